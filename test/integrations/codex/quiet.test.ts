/**
 * Codex's quiet stage (codex/quiet.ts): a Codex conversation is certified like any other, and a
 * shell command whose targets the event alone settles is answered by the stage when the engine
 * would say nothing; a glob, a git word or an instruction file goes to the full path. Through the
 * built launcher a certified `cat` loads the quiet bundle and not Codex's.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { quietCall } from "../../../src/hook/quiet.js";
import { fullCall, sleep } from "../../helpers/quiet-setup.js";
import { quietHost } from "../../../src/integrations/codex/quiet.js";
import { agentsmdVersion, quietPath } from "../../../src/integrations/host/quiet-format.js";
import { conversationPath, hostStateDir } from "../../../src/integrations/host/state-file.js";
import { RACY_MS } from "../../../src/io/unchanged.js";
import { ensureBuilt, REPO } from "../../helpers/bin.js";
import { createTree, type Tree } from "../../helpers/tree.js";

const codexCall = (event: object, env: Record<string, string>) => fullCall(event, env, "codex");

/** A Codex conversation in `r` whose first `cat` of pkg/a.ts gave pkg/AGENTS.md. */
async function conversation(extraEnv: Record<string, string> = {}): Promise<{ tree: Tree; env: Record<string, string>; shell: (command: string) => object }> {
  const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root rules\n", "r/pkg/AGENTS.md": "pkg rules\n", "r/pkg/a.ts": "", "r/pkg/b.ts": "" });
  await sleep(RACY_MS + 200);
  const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), ...extraEnv };
  const base = { session_id: "c1", cwd: tree.path("r"), transcript_path: null, model: "gpt-5", permission_mode: "default" };
  const shell = (command: string) => ({
    ...base,
    hook_event_name: "PostToolUse",
    turn_id: "t1",
    tool_name: "Bash",
    tool_input: { command },
    tool_response: "",
    tool_use_id: "call_1",
  });
  // Codex loads the root -> cwd chain itself: the start gives nothing, and certifies the root.
  expect(await codexCall({ ...base, hook_event_name: "SessionStart", source: "startup" }, env)).toBe("");
  expect(await codexCall(shell("cat pkg/a.ts"), env)).toContain("pkg rules");
  return { tree, env, shell };
}

describe("Codex's quiet stage", () => {
  let setup: Awaited<ReturnType<typeof conversation>>;
  let version: string;
  const quiet = (event: object) => quietCall(quietHost, ["hook", "codex"], JSON.stringify(event), setup.env, version);
  beforeAll(async () => {
    setup = await conversation();
    version = await agentsmdVersion();
  }, 30_000);

  it("a Codex conversation is certified, and the stage answers a seen `cat` as the full path does: nothing, no state change", async () => {
    const state = conversationPath(hostStateDir("codex", setup.env, setup.tree.home), { id: "c1" });
    expect(readFileSync(quietPath(state), "utf8")).toContain(setup.tree.path("r/pkg"));
    expect(quiet(setup.shell("cat pkg/a.ts"))).toBe(true);
    expect(quiet(setup.shell("cd pkg && head -n 5 b.ts | wc -l"))).toBe(true);
    expect(quiet(setup.shell("rg 'x y' pkg"))).toBe(true);
    const before = readFileSync(state, "utf8");
    expect(await codexCall(setup.shell("cat pkg/a.ts"), setup.env)).toBe("");
    expect(readFileSync(state, "utf8")).toBe(before);
  });

  it("a command the file system settles (a glob, a git word), an instruction file, an unreadable command: the full path", () => {
    expect(quiet(setup.shell("cat pkg/*.ts"))).toBe(false);
    expect(quiet(setup.shell("git show HEAD:pkg/a.ts"))).toBe(false);
    expect(quiet(setup.shell("git diff pkg/a.ts"))).toBe(false);
    expect(quiet(setup.shell("cat pkg/AGENTS.md"))).toBe(false);
    expect(quiet(setup.shell("cat $(echo pkg/a.ts)"))).toBe(false);
    expect(quiet({ ...setup.shell("cat pkg/a.ts"), session_id: "" })).toBe(false);
    expect(quiet({ ...setup.shell("cat pkg/a.ts"), transcript_path: 7 })).toBe(false);
    expect(quiet(setup.shell("cat pkg/a.ts"))).toBe(true);
  });

  it("apply_patch: its headers are the targets", () => {
    const patch = (file: string) => ({
      ...setup.shell(""),
      tool_name: "apply_patch",
      tool_input: { command: `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n` },
    });
    expect(quiet(patch("pkg/a.ts"))).toBe(true);
    expect(quiet(patch("pkg/AGENTS.md"))).toBe(false);
  });
});

describe("Codex through the built launcher", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);

  it("a certified `cat` loads the quiet bundle and not Codex's; a start and a glob load Codex's", async () => {
    const { tree, env, shell } = await conversation({ PATH: process.env.PATH ?? "", AGENTSMD_COMPILE_CACHE: "0" });
    const report = join(tree.root, "loaded.json");
    const preload = join(tree.root, "report.cjs");
    writeFileSync(preload, `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const run = (event: object) => {
      const result = spawnSync(process.execPath, ["-r", preload, join(REPO, "dist/hook/hook.cjs"), "codex"], {
        input: JSON.stringify(event),
        encoding: "utf8",
        env,
      });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      return { stdout: result.stdout, loaded: (JSON.parse(readFileSync(report, "utf8")) as string[]).filter((file) => file !== preload).sort() };
    };
    const launcher = join(REPO, "dist/hook/hook.cjs");
    const quietBundle = join(REPO, "dist/hook/agentsmd-quiet-codex.cjs");
    const codexBundle = join(REPO, "dist/hook/agentsmd-hook-codex.cjs");
    expect(run(shell("cat pkg/a.ts"))).toEqual({ stdout: "", loaded: [quietBundle, launcher] });
    // The gate lets it through (its cwd is certified), the stage leaves it to Codex's bundle.
    expect(run(shell("cat pkg/*.ts"))).toEqual({ stdout: "", loaded: [codexBundle, quietBundle, launcher] });
    const { session_id, cwd } = shell("") as { session_id: string; cwd: string };
    expect(run({ session_id, cwd, hook_event_name: "SessionStart", source: "resume" }).loaded).toEqual([codexBundle, launcher]);
  }, 60_000);
});
