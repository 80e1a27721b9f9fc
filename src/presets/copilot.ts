/**
 * Preset `copilot`: what GitHub Copilot CLI (1.0.102) loads by itself, observed with the real binary
 * (e2e/copilot, FINDINGS.md there; `copilot instruction list --json` and the requests it sends):
 *
 * - every directory from the git root down to cwd: `.github/copilot-instructions.md`, `AGENTS.md`,
 *   `CLAUDE.md`, `GEMINI.md`, all of them (an empty file still gets a block at startup);
 * - the user file `~/.copilot/copilot-instructions.md` (`$COPILOT_HOME/copilot-instructions.md`);
 * - in the system message as `<custom_instruction>` blocks: the user file, then the root's and
 *   cwd's `.github/copilot-instructions.md`, then the root's and cwd's model files, then each
 *   directory in between, nearest first; a file whose text equals one already sent is left out;
 * - nested files only after the `view` tool reads a file below them (never after create, edit,
 *   bash, grep, glob or a directory listing), nearest directory first, empty files skipped, each
 *   once per session, also for an edited file; as a user message of `<system_reminder>` blocks
 *   "Custom instructions from <path relative to the git root>".
 *
 * Not modelled: `.github/instructions/**\/*.instructions.md` and `.claude/rules` (glob-scoped, shown
 * as a table), `~/.copilot/instructions/`, `COPILOT_CUSTOM_INSTRUCTIONS_DIRS`, names in other
 * letter cases (Copilot matches `agents.md` too), `@` imports (Copilot expands them since 1.0.66).
 */
import { SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";
import { type RenderBlock, type Renderer } from "../core/render.js";
import { isInside, join, parentOf } from "../core/paths.js";
import { quote } from "../core/quote.js";

/** The repository-wide file Copilot reads in each directory, before the model files. */
export const COPILOT_REPO_FILE = ".github/copilot-instructions.md";
/** The files Copilot calls "model" instructions, in its order within a directory. */
export const COPILOT_MODEL_FILES: readonly string[] = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
const COPILOT_NAMES: readonly string[] = [COPILOT_REPO_FILE, ...COPILOT_MODEL_FILES];

/**
 * `~/.copilot`, or `$COPILOT_HOME`.
 */
export function copilotHome(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const dir = env.COPILOT_HOME;
  return dir && dir.length > 0 ? dir : join(home, ".copilot");
}

/** The directory a block belongs to (`.github/copilot-instructions.md` belongs to the directory holding `.github`). */
function scopeDir(block: RenderBlock): string {
  const dir = parentOf(block.path);
  return block.path.endsWith(`/${COPILOT_REPO_FILE}`) ? parentOf(dir) : dir;
}

function isRepoFile(block: RenderBlock): boolean {
  return block.path.endsWith(`/${COPILOT_REPO_FILE}`);
}

function depth(dir: string): number {
  return dir === "/" ? 0 : dir.split("/").length;
}

/** Copilot's order within one directory: the repository file, then AGENTS.md, CLAUDE.md, GEMINI.md. */
function rank(block: RenderBlock): number {
  if (isRepoFile(block)) return 0;
  const index = COPILOT_MODEL_FILES.indexOf(block.path.slice(block.path.lastIndexOf("/") + 1));
  return index < 0 ? COPILOT_MODEL_FILES.length + 1 : index + 1;
}

/**
 * The initial blocks in the order Copilot sends them, without repeated texts.
 */
export function copilotOrder(blocks: readonly RenderBlock[], root: string, cwd: string): RenderBlock[] {
  const user = blocks.filter((block) => block.layer === "user");
  const project = blocks.filter((block) => block.layer !== "user");
  const ends = (block: RenderBlock) => scopeDir(block) === root || scopeDir(block) === cwd;
  const edge = project.filter(ends).sort((a, b) => (scopeDir(a) === scopeDir(b) ? 0 : scopeDir(a) === root ? -1 : 1));
  const between = project
    .filter((block) => !ends(block))
    .map((block, index) => ({ block, index }))
    .sort((a, b) => depth(scopeDir(b.block)) - depth(scopeDir(a.block)) || rank(a.block) - rank(b.block) || a.index - b.index)
    .map((entry) => entry.block);
  const ordered = [...user, ...edge.filter(isRepoFile), ...edge.filter((block) => !isRepoFile(block)), ...between];
  const seen = new Set<string>();
  return ordered.filter((block) => {
    if (seen.has(block.content)) return false;
    seen.add(block.content);
    return true;
  });
}

function relative(path: string, root: string): string {
  return isInside(path, root) && path !== root ? path.slice(root.length + (root.endsWith("/") ? 0 : 1)) : path;
}

/**
 * One nested file as Copilot attaches it after a `view`.
 */
function copilotReminder(label: string, content: string): string {
  return `<system_reminder>\nCustom instructions from ${label}. Apply these to any code you write here:\n\n${content}\n</system_reminder>`;
}

/**
 * Initial: the run of `<custom_instruction>` blocks of Copilot's system message, byte for byte.
 * Inline: the user message Copilot adds after a `view` (nearest directory first).
 */
export const copilotRenderer: Renderer = {
  initial({ root, cwd, blocks }) {
    return copilotOrder(blocks, root, cwd)
      .map((block) => `<custom_instruction>\n${block.content}\n</custom_instruction>`)
      .join("\n\n");
  },
  inline(blocks, { root }) {
    if (blocks.length === 0) return "";
    const ordered = blocks
      .map((block, index) => ({ block, index }))
      .sort((a, b) => depth(scopeDir(b.block)) - depth(scopeDir(a.block)) || rank(a.block) - rank(b.block) || a.index - b.index)
      .map((entry) => entry.block);
    return `\n${ordered.map((block) => copilotReminder(quote(relative(block.path, root)), block.content)).join("\n")}`;
  },
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const copilotPreset: Preset = {
  name: "copilot",
  description: "GitHub Copilot CLI: .github/copilot-instructions.md, AGENTS.md, CLAUDE.md, GEMINI.md from the git root to cwd; nested files after view",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: COPILOT_NAMES, select: "all" },
  initial: { maxFiles: UNLIMITED, maxBytes: 4 * 1024 * 1024 },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: UNLIMITED, maxBytes: 4 * 1024 * 1024, exclude: [] },
  scope: { ...SPEC_SCOPE, touchOrder: "nearest-first" },
  startup: SPEC_STARTUP,
  text: { ...SPEC_TEXT, skipBlank: false },
  dedupe: "path",
  renderer: copilotRenderer,
  userLayers: ({ home, env }) => [{ candidates: [join(copilotHome(home, env), "copilot-instructions.md")], select: "all", trim: false }],
};
