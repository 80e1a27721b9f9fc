/**
 * Proof that preset `pi` loads what pi itself loads: for each tree, pi's own
 * `loadProjectContextFiles` (the pinned package, run in a Node >= 22.19 child by
 * fixtures/pi-loader.mjs) against `agentsmd list --preset pi --json` (same paths, same order) and
 * pi's own `<project_context>` system-prompt section against `agentsmd show --preset pi` (byte for
 * byte). One real agent run (agents.e2e.test.ts) shows that section is what the model receives.
 *
 * Run: npm run build && npm ci --prefix e2e/pi && npx vitest run -c vitest.e2e.config.ts e2e/pi/preset
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { run } from "../lib/exec.js";
import { PI_PACKAGE_DIR, requirePi } from "./harness.js";

const LOADER = fileURLToPath(new URL("./fixtures/pi-loader.mjs", import.meta.url));

type Entry = string | Uint8Array | { dir: true } | { link: string };

interface Case {
  name: string;
  /** Paths relative to the case base (`repo/…`, `home/…`). */
  files: Record<string, Entry>;
  /** cwd relative to the case base. */
  cwd: string;
  /** PI_CODING_AGENT_DIR, with `<base>` replaced. Default: unset (~/.pi/agent). */
  agentDir?: string;
  /** Paths (relative to the base) pi must load, in order: guards against a vacuous match. */
  expect: string[];
}

const BOM = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("BOM-RULE\n")]);

const CASES: Case[] = [
  {
    name: "global + root + nested chain from a subdirectory",
    files: { "home/.pi/agent/AGENTS.md": "GLOBAL\n", "repo/AGENTS.md": "ROOT\n", "repo/pkg/AGENTS.md": "PKG\n", "repo/pkg/src/a.ts": "x\n" },
    cwd: "repo/pkg/src",
    expect: ["home/.pi/agent/AGENTS.md", "repo/AGENTS.md", "repo/pkg/AGENTS.md"],
  },
  {
    name: "one file per directory: override > AGENTS.md > AGENTS.MD > CLAUDE.md > CLAUDE.MD",
    files: {
      "repo/AGENTS.override.md": "OVERRIDE\n",
      "repo/AGENTS.md": "HIDDEN\n",
      "repo/a/AGENTS.MD": "UPPER\n",
      "repo/a/CLAUDE.md": "HIDDEN-CLAUDE\n",
      "repo/a/b/CLAUDE.md": "CLAUDE\n",
      "repo/a/b/c/CLAUDE.MD": "CLAUDE-UPPER\n",
    },
    cwd: "repo/a/b/c",
    expect: ["repo/AGENTS.override.md", "repo/a/AGENTS.MD", "repo/a/b/CLAUDE.md", "repo/a/b/c/CLAUDE.MD"],
  },
  {
    name: "a directory named AGENTS.md is passed over; empty and BOM files; a symlinked file",
    files: {
      "repo/AGENTS.md": { dir: true },
      "repo/CLAUDE.md": "",
      "repo/x/AGENTS.md": BOM,
      "repo/x/y/shared.md": "LINKED\n",
      "repo/x/y/AGENTS.md": { link: "shared.md" },
    },
    cwd: "repo/x/y",
    expect: ["repo/CLAUDE.md", "repo/x/AGENTS.md", "repo/x/y/AGENTS.md"],
  },
  {
    name: "PI_CODING_AGENT_DIR moves the global file; CLAUDE.md works there too",
    files: { "conf/CLAUDE.md": "CONF-GLOBAL\n", "home/.pi/agent/AGENTS.md": "NOT-USED\n", "repo/AGENTS.md": "ROOT\n" },
    cwd: "repo",
    agentDir: "<base>/conf",
    expect: ["conf/CLAUDE.md", "repo/AGENTS.md"],
  },
  {
    name: "no files at all",
    files: { "repo/src/a.ts": "x\n" },
    cwd: "repo/src",
    expect: [],
  },
  {
    name: "names with markup characters are printed as pi prints them",
    files: { 'repo/we"ird/AGENTS.md': "QUOTE\n", 'repo/we"ird/in side/AGENTS.md': "SPACE\n" },
    cwd: 'repo/we"ird/in side',
    expect: ['repo/we"ird/AGENTS.md', 'repo/we"ird/in side/AGENTS.md'],
  },
];

let scratch: string;
beforeAll(async () => {
  await assertAgentsmdBuilt();
  await requirePi();
  scratch = await realpath(await mkdtemp(path.join(tmpdir(), "agentsmd-e2e-pi-preset-")));
}, 15 * 60_000);
afterAll(async () => {
  if (scratch && process.env.AGENTSMD_E2E_KEEP !== "1") await rm(scratch, { recursive: true, force: true });
});

async function build(base: string, files: Case["files"]): Promise<void> {
  for (const [rel, entry] of Object.entries(files)) {
    const file = path.join(base, rel);
    if (typeof entry === "object" && "dir" in entry) {
      await mkdir(file, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(file), { recursive: true });
    if (typeof entry === "object" && "link" in entry) await symlink(entry.link, file);
    else await writeFile(file, entry);
  }
}

describe("preset pi against pi's own loader", () => {
  CASES.forEach((testCase, index) => {
    it(testCase.name, async () => {
      const base = path.join(scratch, String(index));
      const home = path.join(base, "home");
      await mkdir(home, { recursive: true });
      await build(base, testCase.files);
      const cwd = path.join(base, testCase.cwd);
      const env: Record<string, string> = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" };
      if (testCase.agentDir) env.PI_CODING_AGENT_DIR = testCase.agentDir.replace("<base>", base);

      const pi = await requirePi();
      const native = await run(pi.node, [LOADER, PI_PACKAGE_DIR, cwd], { env, timeoutMs: 60_000 });
      expect(native.code, native.stderr.toString()).toBe(0);
      const loaded = JSON.parse(native.stdout.toString()) as { files: Array<{ path: string; content: string }>; section: string };
      expect(loaded.files.map((file) => path.relative(base, file.path))).toEqual(testCase.expect);

      const common = ["--preset", "pi", "--cwd", cwd, "--home", home];
      const list = await runAgentsmd(["list", "--json", ...common], { env });
      expect(list.code, list.stderr.toString()).toBe(0);
      const ours = (JSON.parse(list.stdout.toString()) as { files: Array<{ path: string }> }).files.map((file) => file.path);
      expect(ours).toEqual(loaded.files.map((file) => file.path));

      const show = await runAgentsmd(["show", ...common], { env });
      expect(show.code, show.stderr.toString()).toBe(0);
      const expected = loaded.section === "" ? "" : `${loaded.section}`;
      expect(show.stdout.toString().replace(/\n$/, "")).toBe(expected);
    });
  });
});
