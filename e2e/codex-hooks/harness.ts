/**
 * Codex hooks end to end: a fixture repository, a CODEX_HOME with agentsmd installed and trusted
 * through `agentsmd install codex --trust` (so install + trust are part of what is proven), and
 * `codex exec` runs of the pinned @openai/codex (reused from e2e/codex) against the scripted
 * Responses server.
 *
 * The model is `gpt-5.5` so Codex offers its freeform `apply_patch` tool (the mock's default
 * `mock-model` gets no apply_patch), and the sandbox is off (`danger-full-access`; the container
 * has no bubblewrap to rely on) so patches and commands really run.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv, run, type RunResult } from "../lib/exec.js";
import { codexProviderConfig, startResponsesServer, type RecordedResponsesRequest, type ResponsesServer, type ResponsesTurn } from "../lib/responses-server.js";
import { createTree, dir, type BuiltTree } from "../lib/tree.js";
import { codexEntry } from "../codex/oracle.js";

/** Unique words, one per instruction file, so every delivery can be counted in a request. */
export const MARK = {
  global: "GLOBAL-RULE-7a1",
  root: "ROOT-RULE-3c9",
  pkgPlain: "PKG-PLAIN-RULE-55e", // hidden by pkg/AGENTS.override.md
  pkgOverride: "PKG-OVERRIDE-RULE-0d4",
  pkgSub: "PKG-SUB-RULE-b18",
  lib: "LIB-RULE-e62",
  libEdited: "LIB-RULE-EDITED-9f0",
  sibling: "SIBLING-RULE-c27",
} as const;

export const FIXTURE = {
  "home/.codex/AGENTS.md": `# global\n${MARK.global}\n`,
  "repo/.git": dir(),
  "repo/AGENTS.md": `# root\n${MARK.root}\n`,
  "repo/pkg/AGENTS.md": `# pkg (shadowed)\n${MARK.pkgPlain}\n`,
  "repo/pkg/AGENTS.override.md": `# pkg override\n${MARK.pkgOverride}\n`,
  "repo/pkg/src/a.ts": "export const a = 1;\n",
  "repo/pkg/sub/AGENTS.md": `# pkg/sub\n${MARK.pkgSub}\n`,
  "repo/pkg/sub/x.ts": "export const x = 2;\n",
  "repo/lib/AGENTS.md": `# lib\n${MARK.lib}\n`,
  "repo/lib/old.ts": "export const old = 3;\n",
  "repo/sibling/AGENTS.md": `# sibling\n${MARK.sibling}\n`,
  "repo/sibling/s.ts": "export const s = 4;\n",
} as const;

/** Per-run bound for one `codex exec`. */
const RUN_TIMEOUT_MS = 90_000;

export interface HooksFixture {
  tree: BuiltTree;
  codexHome: string;
  home: string;
  repo: string;
  cleanup(): Promise<void>;
}

/** Builds the fixture; with `install`, runs `agentsmd install codex --trust` into its CODEX_HOME. */
export async function buildFixture(options: { install: boolean; extraConfig?: string }): Promise<HooksFixture & { install?: RunResult }> {
  const tree = await createTree(FIXTURE, { prefix: "agentsmd-codex-hooks-" });
  const codexHome = tree.path("home/.codex");
  const home = tree.path("home");
  // The provider section first: `install --trust` then adds the trust tables through Codex itself.
  const top = `model = "gpt-5.5"\nsandbox_mode = "danger-full-access"\n${options.extraConfig ?? ""}`; // top-level keys, before the provider table
  await writeFile(path.join(codexHome, "config.toml"), codexProviderConfig("http://127.0.0.1:9/v1").replace('model = "mock-model"\n', top));
  const fixture: HooksFixture & { install?: RunResult } = { tree, codexHome, home, repo: tree.path("repo"), cleanup: () => tree.cleanup() };
  if (options.install) {
    fixture.install = await runAgentsmd(["install", "codex", "--trust", "--codex-bin", await codexEntry()], {
      cwd: fixture.repo,
      env: cleanEnv({ CODEX_HOME: codexHome, HOME: home }),
      timeoutMs: 60_000,
    });
  }
  return fixture;
}

/** Points the fixture's config.toml at `server` (the port changes per test). */
async function useServer(fixture: HooksFixture, server: ResponsesServer): Promise<void> {
  const file = path.join(fixture.codexHome, "config.toml");
  const text = await readFile(file, "utf8");
  await writeFile(file, text.replace(/base_url = "http:\/\/127\.0\.0\.1:\d+\/v1"/, `base_url = ${JSON.stringify(server.baseURL)}`));
}

/** Runs `codex exec` (or `codex exec resume --last`) in `cwd` with the fixture's homes. */
async function codexExec(fixture: HooksFixture, options: { cwd: string; prompt: string; resume?: boolean }): Promise<RunResult> {
  const args = [await codexEntry(), "-C", options.cwd, "exec", ...(options.resume ? ["resume", "--last"] : []), "--skip-git-repo-check", options.prompt];
  return run(process.execPath, args, { cwd: options.cwd, env: cleanEnv({ CODEX_HOME: fixture.codexHome, HOME: fixture.home }), timeoutMs: RUN_TIMEOUT_MS });
}

/** Starts a Responses server with `script`, runs one exec, returns the model requests. */
export async function scriptedRun(
  fixture: HooksFixture,
  script: ResponsesTurn[],
  options: { cwd: string; prompt?: string; resume?: boolean },
): Promise<{ result: RunResult; requests: RecordedResponsesRequest[] }> {
  const server = await startResponsesServer({ script, fallbackText: "E2E DONE" });
  try {
    await useServer(fixture, server);
    const result = await codexExec(fixture, { cwd: options.cwd, prompt: options.prompt ?? "work on the task", ...(options.resume ? { resume: true } : {}) });
    return { result, requests: server.requests.filter((q) => q.method === "POST" && q.path.endsWith("/responses")) };
  } finally {
    await server.close();
  }
}

/** How many times `word` occurs in the model-visible input of a request. */
function occurrences(request: RecordedResponsesRequest | undefined, word: string): number {
  const text = JSON.stringify(request?.body?.input ?? []);
  return text.split(word).length - 1;
}

/** Every marker's count in a request, for readable assertions. */
export function counts(request: RecordedResponsesRequest | undefined): Record<keyof typeof MARK, number> {
  const out = {} as Record<keyof typeof MARK, number>;
  for (const [key, word] of Object.entries(MARK)) out[key as keyof typeof MARK] = occurrences(request, word);
  return out;
}

/** The developer messages of a request (where Codex puts hook context), in order. */
export function developerTexts(request: RecordedResponsesRequest | undefined): string[] {
  const out: string[] = [];
  for (const item of request?.body?.input ?? []) {
    const it = item as { type?: string; role?: string; content?: Array<{ type?: string; text?: string }> };
    if (it.type === "message" && it.role === "developer") for (const c of it.content ?? []) if (typeof c.text === "string") out.push(c.text);
  }
  return out;
}

/** A patch adding one file. */
export function addFilePatch(rel: string, line: string): string {
  return `*** Begin Patch\n*** Add File: ${rel}\n+${line}\n*** End Patch\n`;
}
