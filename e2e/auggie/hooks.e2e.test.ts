/**
 * Auggie end to end: the real pinned client (`@augmentcode/auggie` 0.36.0) with agentsmd installed
 * the way the README says (`agentsmd install auggie`: a PostToolUse hook in
 * ~/.augment/settings.json), run as `auggie --print` against a FAKE of Augment's backend
 * (augment-backend.ts: Auggie speaks only Augment's protocol, and the real server builds the
 * prompt). Every instruction file carries one unique token; counting a token in the last
 * `/chat-stream` request counts what the client gave the backend to build the prompt from.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/auggie`. Each agent run is bounded (RUN_TIMEOUT_MS,
 * 90 s; a resume case is two runs, 180 s at most).
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runAgentsmd, runInstall } from "../lib/agentsmd.js";
import { describeTextRun, homeEnv, runText } from "../lib/exec.js";
import { dir, createRepoHomeTree, type RepoHomeTree } from "../lib/tree.js";
import { chatText, startAugmentBackend, type AugmentBackend, type AugmentStep } from "./augment-backend.js";
import { AUGGIE_VERSION as VERSION, auggieBin, auggieEnv } from "./harness.js";

const RUN_TIMEOUT_MS = 90_000;

const FILES = {
  "repo/.git": dir(),
  "repo/AGENTS.md": "# Root\nToken AG-ROOT-1: two-space indentation.\n",
  "repo/CLAUDE.md": "# Claude\nToken AG-CLAUDE-7: Auggie sends this file itself.\n",
  "repo/packages/api/AGENTS.md": "# API\nToken AG-API-2: every handler validates its input.\n",
  "repo/packages/api/src/handler.ts": "export const handler = 1;\n",
  "repo/packages/api/src/db/AGENTS.md": "# DB\nToken AG-DB-3: migrations are append-only.\n",
  "repo/packages/api/src/db/schema.ts": "export const schema = {};\n",
  "repo/packages/web/AGENTS.md": "# Web\nToken AG-WEB-5: function components only.\n",
  "repo/packages/web/App.tsx": "export function App() { return null; }\n",
  "repo/packages/unused/AGENTS.md": "# Unused\nToken AG-UNUSED-6: never touched, never delivered.\n",
};
const ALL = ["AG-ROOT-1", "AG-CLAUDE-7", "AG-API-2", "AG-DB-3", "AG-DB-EDITED-8", "AG-WEB-5", "AG-UNUSED-6"];

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await auggieBin();
}, 600_000);

async function setup(): Promise<{ fx: RepoHomeTree; backend: AugmentBackend }> {
  const fx = await createRepoHomeTree({ ...FILES, "home/.local/state": dir() }, { prefix: "agentsmd-auggie-" });
  const backend = await startAugmentBackend({ script: [] });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => backend.close(),
  );
  await runInstall(["install", "auggie"], { env: homeEnv(fx.home), cwd: fx.repo });
  return { fx, backend };
}

async function turn(fx: RepoHomeTree, backend: AugmentBackend, script: AugmentStep[], options: { cwd?: string; args?: string[] } = {}) {
  backend.setScript(script);
  const env = auggieEnv(fx.home, backend);
  const run = await runText(process.execPath, [await auggieBin(), "--print", ...(options.args ?? []), "Work on the task."], {
    cwd: options.cwd ?? fx.repo,
    env,
    timeoutMs: RUN_TIMEOUT_MS,
    stderrTail: 20_000,
  });
  expect(run.code, describeTextRun(run, backend.requests)).toBe(0);
  expect(backend.turnsUsed, describeTextRun(run, backend.requests)).toBe(script.length);
  return run;
}

function lastRequest(backend: AugmentBackend): string {
  const last = backend.chatRequests().at(-1);
  expect(last).toBeTruthy();
  return chatText(last!);
}

function counts(text: string, tokens: readonly string[]): Record<string, number> {
  return Object.fromEntries(tokens.map((token) => [token, text.split(token).length - 1]));
}

describe(`Auggie ${VERSION} with \`agentsmd install auggie\` (fake Augment backend)`, () => {
  it("the client sends the workspace root's AGENTS.md and CLAUDE.md itself (preset auggie), nothing nested, from the root and from a subdirectory", async () => {
    const { fx, backend } = await setup();
    for (const cwd of [fx.repo, fx.path("packages/api")]) {
      await turn(fx, backend, [{ text: "done" }], { cwd });
      const rules = (backend.chatRequests().at(-1)!.rules ?? []).map((rule) => rule.path);
      expect(rules.filter((rule) => rule !== "non-interactive-prompt.md")).toEqual(["AGENTS.md", "CLAUDE.md"]);
      const listed = await runAgentsmd(["--preset", "auggie", "--json", "list"], { env: homeEnv(fx.home), cwd });
      expect(
        (JSON.parse(listed.stdout.toString("utf8")) as { files: Array<{ path: string }> }).files.map((file) => file.path),
        listed.stderr.toString("utf8"),
      ).toEqual([fx.path("AGENTS.md"), fx.path("CLAUDE.md")]);
    }
  });

  it("from the repo root: a view below, a file created in a new directory: each applicable AGENTS.md once, the root's never repeated, a sibling never", async () => {
    const { fx, backend } = await setup();
    await turn(fx, backend, [
      { toolCalls: [{ tool: "view", args: { path: "packages/api/src/db/schema.ts" } }] },
      { toolCalls: [{ tool: "save-file", args: { path: "packages/web/feature/new.ts", file_content: "export {};\n" } }] },
      { text: "done" },
    ]);
    expect(counts(lastRequest(backend), ALL)).toEqual({
      "AG-ROOT-1": 1,
      "AG-CLAUDE-7": 1,
      "AG-API-2": 1,
      "AG-DB-3": 1,
      "AG-DB-EDITED-8": 0,
      "AG-WEB-5": 1,
      "AG-UNUSED-6": 0,
    });
  });

  it("from a subdirectory: the same, the workspace still the repo root (Auggie's view paths are relative to it)", async () => {
    const { fx, backend } = await setup();
    await turn(fx, backend, [{ toolCalls: [{ tool: "view", args: { path: "packages/api/src/db/schema.ts" } }] }, { text: "done" }], {
      cwd: fx.path("packages/api"),
    });
    expect(counts(lastRequest(backend), ALL)).toMatchObject({ "AG-ROOT-1": 1, "AG-CLAUDE-7": 1, "AG-API-2": 1, "AG-DB-3": 1, "AG-WEB-5": 0, "AG-UNUSED-6": 0 });
  });

  it("an AGENTS.md edited during the turn comes again, once, with the next view under it; the unchanged ones do not", async () => {
    const { fx, backend } = await setup();
    const edit = `printf '# DB\\nToken AG-DB-EDITED-8: migrations are reviewed.\\n' > packages/api/src/db/AGENTS.md`;
    await turn(fx, backend, [
      { toolCalls: [{ tool: "view", args: { path: "packages/api/src/db/schema.ts" } }] },
      { toolCalls: [{ tool: "launch-process", args: { command: edit, wait: true, max_wait_seconds: 30, cwd: fx.repo } }] },
      { toolCalls: [{ tool: "view", args: { path: "packages/api/src/db/schema.ts" } }] },
      { text: "done" },
    ]);
    expect(await readFile(fx.path("packages/api/src/db/AGENTS.md"), "utf8")).toContain("AG-DB-EDITED-8");
    expect(counts(lastRequest(backend), ALL)).toMatchObject({ "AG-API-2": 1, "AG-DB-3": 1, "AG-DB-EDITED-8": 1, "AG-ROOT-1": 1 });
  });

  it.each([
    ["--continue", () => ["--continue"]],
    ["--resume <id>", (id: string) => ["--resume", id]],
  ])(
    "after `auggie --print %s`: the same conversation id, the history sent again; an AGENTS.md edited between the runs once more, the unedited one not repeated",
    async (_flag, resumeArgs) => {
      const { fx, backend } = await setup();
      const view = { toolCalls: [{ tool: "view", args: { path: "packages/api/src/db/schema.ts" } }] };
      await turn(fx, backend, [view, { text: "done" }]);
      const first = backend.chatRequests().length;
      const id = backend.chatRequests()[0]!.conversation_id!;
      // Auggie keeps the session in ~/.augment/sessions/<conversation id>.json.
      expect((await stat(path.join(fx.home, ".augment/sessions", `${id}.json`))).isFile()).toBe(true);
      await writeFile(fx.path("packages/api/src/db/AGENTS.md"), "# DB\nToken AG-DB-EDITED-8: migrations are reviewed.\n");

      await turn(fx, backend, [view, { toolCalls: [{ tool: "view", args: { path: "packages/api/src/handler.ts" } }] }, { text: "done" }], {
        args: resumeArgs(id),
      });
      const resumed = backend.chatRequests().slice(first);
      expect(resumed.map((request) => request.conversation_id)).toEqual(resumed.map(() => id));
      expect(resumed[0]!.chat_history?.length).toBeGreaterThan(0);
      // The history holds run 1's delivery (AG-API-2, the old AG-DB-3); run 2 adds the edited file only.
      expect(counts(lastRequest(backend), ALL)).toEqual({
        "AG-ROOT-1": 1,
        "AG-CLAUDE-7": 1,
        "AG-API-2": 1,
        "AG-DB-3": 1,
        "AG-DB-EDITED-8": 1,
        "AG-WEB-5": 0,
        "AG-UNUSED-6": 0,
      });
    },
  );

  it("uninstall takes the hook out: the nested files are no longer added", async () => {
    const { fx, backend } = await setup();
    const removed = await runAgentsmd(["uninstall", "auggie"], { env: homeEnv(fx.home), cwd: fx.repo });
    expect(removed.code, removed.stderr.toString("utf8")).toBe(0);
    await turn(fx, backend, [{ toolCalls: [{ tool: "view", args: { path: "packages/api/src/db/schema.ts" } }] }, { text: "done" }]);
    expect(counts(lastRequest(backend), ALL)).toMatchObject({ "AG-API-2": 0, "AG-DB-3": 0, "AG-ROOT-1": 1 });
  });
});
