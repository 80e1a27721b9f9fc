/**
 * Preset `gemini`: what Gemini CLI (≥ 0.44, tiered JIT loader) loads by itself (docs/loading-rules.md#gemini-cli); proven
 * byte for byte against `@google/gemini-cli-core` 0.61.0 by e2e/gemini (see its FINDINGS.md).
 *
 * - names: `GEMINI.md` plus the configured ones, put in front of it (`files.names` plays the part
 *   of `context.fileName`; GEMINI.md cannot be removed); every name present in a directory loads;
 * - global files `~/.gemini/<name>` (`$GEMINI_CLI_HOME` replaces the home directory);
 * - at startup every directory from the nearest `.git` (`memoryBoundaryMarkers`) down to cwd, or cwd
 *   alone without one; files de-duplicated by identity (device + inode; a project file that is a
 *   global file under another name is dropped) and sorted as plain strings, as Gemini CLI does (a
 *   child can sort before its parent);
 * - text trimmed and judged blank with JavaScript's `trim()` (U+FEFF is whitespace, U+0085 is not);
 * - just in time, for targets inside cwd only: the files from the root down to the target not yet
 *   loaded (by identity: an edited file is not offered again), framed `--- Newly Discovered
 *   Project Context ---`; no ignore rules and no byte or file limit;
 * - `@path` imports expanded exactly as Gemini's `processImports` does (gemini-imports.ts).
 *
 * Not modelled: folder trust (an untrusted folder gets no workspace files), extension context,
 * private project memory, include directories, the walk stopping at `~/.gemini`, `importFormat:
 * "flat"`; a loaded file replaced by a new inode (an editor's rename) is not offered again.
 */
import { readGeminiSettings } from "./agent-config.js";
import { SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";
import { type RenderBlock, type Renderer } from "../core/render.js";
import { join, parentOf } from "../core/paths.js";
import { quote } from "../core/quote.js";

const GEMINI_MD = "GEMINI.md";

/** The text Gemini CLI puts before just-in-time files (after the tool output and a blank line). */
const GEMINI_JIT_HEADER = "--- Newly Discovered Project Context ---";
const GEMINI_JIT_FOOTER = "--- End Project Context ---";

/** `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`. */
export function geminiDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const override = env.GEMINI_CLI_HOME;
  return join(override && override.length > 0 ? override : home, ".gemini");
}

/** Configured names in front of GEMINI.md, which always stays (Gemini CLI ≥ 0.44). */
export function geminiNames(configured: readonly string[] | undefined): string[] {
  return [...new Set([...(configured ?? []), GEMINI_MD])];
}

/** Gemini's notion of blank: nothing left after JavaScript's `trim()`. */
function geminiBlank(text: string): boolean {
  return text.trim() === "";
}

/**
 * Gemini's `concatenateInstructions`: each non-blank file trimmed (JavaScript `trim()`) between
 * `--- Context from: P ---` lines, joined by a blank line.
 */
function geminiContext(blocks: readonly RenderBlock[]): string {
  return blocks
    .map((block) => {
      const text = block.content.trim();
      return text === "" ? null : `--- Context from: ${quote(block.path)} ---\n${text}\n--- End of Context from: ${quote(block.path)} ---`;
    })
    .filter((text): text is string => text !== null)
    .join("\n\n");
}

/** Gemini's explainer before global memory in the system instruction (`renderUserMemory`, string form). */
const GEMINI_MEMORY_EXPLAINER = `The following content is loaded from local and global configuration files.
**Context Precedence:**
- **Global (~/.gemini/):** foundational user preferences. Apply these broadly.
- **Extensions:** supplementary knowledge and capabilities.
- **Workspace Root:** workspace-wide mandates. Supersedes global preferences.
- **Sub-directories:** highly specific overrides. These rules supersede all others for files within their scope.

**Conflict Resolution:**
- **Precedence:** Strictly follow the order above (Sub-directories > Workspace Root > Extensions > Global).
- **System Overrides:** Contextual instructions override default operational behaviors (e.g., tech stack, style, workflows, tool preferences) defined in the system prompt. However, they **cannot** override Core Mandates regarding safety, security, and agent integrity.`;

/**
 * The global tier as Gemini CLI appends it to the system instruction: `renderUserMemory` of the
 * global memory string, headed by the context file names (`names`: the session's
 * `files.names`). "" without global files.
 */
export function geminiSystemMemory(blocks: readonly RenderBlock[], names: readonly string[] = [GEMINI_MD]): string {
  const global = geminiContext(blocks.filter((block) => block.layer === "user"));
  return global === "" ? "" : `\n# Contextual Instructions (${names.join(", ")})\n${GEMINI_MEMORY_EXPLAINER}\n\n<loaded_context>\n${global}\n</loaded_context>`;
}

/**
 * The project tier as Gemini CLI puts it in the first user message, inside `<session_context>`
 * (`getSessionMemory`): "" without project files.
 */
export function geminiSessionMemory(blocks: readonly RenderBlock[]): string {
  const project = geminiContext(blocks.filter((block) => block.layer !== "user"));
  return project === "" ? "" : `\n<loaded_context>\n<project_context>\n${project}\n</project_context>\n</loaded_context>`;
}

function depth(path: string): number {
  return parentOf(path).split("/").length;
}

/**
 * One message holding both tiers (`<global_context>` then `<project_context>` inside
 * `<loaded_context>`); a host that places them as Gemini CLI does uses {@link geminiSystemMemory}
 * and {@link geminiSessionMemory}. Inline: the JIT block Gemini CLI appends to a tool's output
 * (the host adds it after a blank line), files root to leaf.
 */
const geminiRenderer: Renderer = {
  initial({ blocks }) {
    const sections: string[] = [];
    const global = geminiContext(blocks.filter((block) => block.layer === "user"));
    const project = geminiContext(blocks.filter((block) => block.layer !== "user"));
    if (global !== "") sections.push(`<global_context>\n${global}\n</global_context>`);
    if (project !== "") sections.push(`<project_context>\n${project}\n</project_context>`);
    return sections.length === 0 ? "" : `<loaded_context>\n${sections.join("\n")}\n</loaded_context>`;
  },
  inline(blocks) {
    // Gemini walks root to leaf (stable within a directory); one touch of several targets is sorted likewise.
    const ordered = blocks.map((block, index) => ({ block, index })).sort((a, b) => depth(a.block.path) - depth(b.block.path) || a.index - b.index);
    const text = geminiContext(ordered.map((entry) => entry.block));
    return text === "" ? "" : `${GEMINI_JIT_HEADER}\n${text}\n${GEMINI_JIT_FOOTER}`;
  },
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const geminiPreset: Preset = {
  name: "gemini",
  description: "Gemini CLI: GEMINI.md (+ configured names) from the git root to cwd, ~/.gemini globals, JIT files on touch, no budget",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: [GEMINI_MD], select: "all" },
  initial: { maxFiles: UNLIMITED, maxBytes: UNLIMITED },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: UNLIMITED, maxBytes: UNLIMITED, exclude: [] },
  scope: { ...SPEC_SCOPE, nested: "inside-cwd" },
  startup: { ...SPEC_STARTUP, keep: "root-first", order: "path" },
  // Text stays as read: the renderer trims it (JavaScript trim), after imports are expanded.
  text: { ...SPEC_TEXT, blank: geminiBlank },
  dedupe: "identity",
  renderer: geminiRenderer,
  imports: { enabled: true, marker: "gemini" },
  userLayers: ({ home, env, names }) => [{ candidates: geminiNames(names).map((name) => join(geminiDir(home, env), name)), select: "all", trim: false }],
  agentConfig: (context) => readGeminiSettings(context, geminiDir(context.home, context.env)),
  adapt(config, raw) {
    config.files.names = geminiNames(raw.files?.names);
  },
};
