/**
 * Preset `continue`: what Continue CLI (`cn`, `@continuedev/cli` 1.5.47) loads by itself, read in
 * its `constructSystemMessage` and observed in the system prompt the pinned binary sends a scripted
 * model (e2e/continue/mcp.e2e.test.ts):
 *
 * - the first of `AGENTS.md`, `AGENT.md`, `CLAUDE.md`, `CODEX.md` in cwd alone (no walk up to a
 *   `.git`: a session started in a subdirectory never sees the repository root's file);
 * - its text as is, under `<context name="userRules">` at the end of the system message;
 * - nothing when a tool touches a path elsewhere: nested files and the root's file seen from a
 *   subdirectory are what `agentsmd mcp --preset continue` returns.
 *
 * Not modelled: `.continue/rules/*.md` (cn 1.5.47 puts the always-apply ones of cwd and
 * `~/.continue/rules` after the agent file, and never applies a `globs` or `regex` rule), a
 * directory named like a candidate (cn stops there and loads nothing).
 */
import { join } from "../core/paths.js";
import { codeliaRenderer, type Renderer } from "../core/render.js";
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";

/**
 * `~/.continue`, Continue's configuration directory (`CONTINUE_GLOBAL_DIR` when set, as cn reads it).
 */
export function continueHome(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const override = env.CONTINUE_GLOBAL_DIR?.trim();
  return override ? override : join(home, ".continue");
}

const continueRenderer: Renderer = {
  initial: ({ blocks }) => {
    const text = blocks.map((block) => block.content).join("\n\n");
    return text === "" ? "" : `<context name="userRules">\n${text}\n</context>`;
  },
  // What the MCP tools return: agentsmd's own framing, naming each file.
  inline: codeliaRenderer.inline,
};

export const continuePreset: Preset = {
  name: "continue",
  description: "Continue CLI: the first of AGENTS.md, AGENT.md, CLAUDE.md, CODEX.md in cwd only, nothing on touch",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: ["AGENTS.md", "AGENT.md", "CLAUDE.md", "CODEX.md"], select: "first" },
  initial: { maxFiles: 1, maxBytes: Number.MAX_SAFE_INTEGER },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: 50, maxBytes: 256 * 1024, exclude: DEFAULT_EXCLUDES },
  scope: SPEC_SCOPE,
  startup: { ...SPEC_STARTUP, dirs: "cwd" },
  text: SPEC_TEXT,
  dedupe: "path",
  renderer: continueRenderer,
  userLayers: () => [],
};
