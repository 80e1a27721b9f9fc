/**
 * Preset `qwen`: what Qwen Code 0.24.4 loads by itself (`loadServerHierarchicalMemory` in
 * `packages/core/src/memory/memoryDiscovery.ts`); proven byte for byte against the function
 * itself, run from the pinned package (e2e/qwen/preset.e2e.test.ts).
 *
 * - names `QWEN.md`, `AGENTS.md` (`context.fileName` replaces them; `files.names` plays its part);
 * - per name: the global `~/.qwen/<name>` (`$QWEN_HOME/<name>` when set), then every directory
 *   from the one above the nearest `.git` (a directory or a file) down to cwd, root first (the
 *   session's root is that directory above); without a `.git` the walk goes up towards the
 *   file-system root;
 * - then `<git root>/.qwen/QWEN.local.md`;
 * - files de-duplicated by identity (Qwen: by real path), text trimmed, blank files dropped;
 * - framed `--- Context from: <path relative to cwd> ---` … `--- End of Context from: … ---`,
 *   joined by a blank line, in that order: all files of the first name, then of the next (a path
 *   with control or markup characters is quoted by core/quote.ts, where Qwen prints it raw).
 *
 * Qwen loads nothing later: no nested file reaches the model when a tool touches a path
 * (QwenLM/qwen-code#6101), which is what `agentsmd hook qwen` adds.
 *
 * Not modelled: folder trust (an untrusted folder loads no project files), `.qwen/rules/`,
 * extension context files, `@path` imports (Qwen's own rules differ from Gemini's: a missing file
 * stays as `@path`), cwd equal to home (Qwen then reads `~/<name>` only), the walk without a
 * `.git` stopping at the parent of home or below the file-system root, `.qwen/QWEN.local.md` in a
 * directory other than the root.
 */
import { relative } from "node:path";
import { SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";
import type { RenderBlock, Renderer } from "../core/render.js";
import { join, nameOf } from "../core/paths.js";
import { quote } from "../core/quote.js";

const QWEN_MD = "QWEN.md";
const QWEN_LOCAL_MD = "QWEN.local.md";
/** Qwen's default `context.fileName` list. */
const QWEN_DEFAULT_NAMES: readonly string[] = [QWEN_MD, "AGENTS.md"];

/**
 * `~/.qwen`, or `$QWEN_HOME` (a leading `~` expands to `home`, as Qwen's `resolvePath` does).
 */
export function qwenDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const override = env.QWEN_HOME;
  if (!override) return join(home, ".qwen");
  if (override === "~") return home;
  if (override.startsWith("~/")) return join(home, override.slice(2));
  return override;
}

/** Qwen's blank test: nothing left after JavaScript's `trim()`. */
function qwenBlank(text: string): boolean {
  return text.trim() === "";
}

/** The name order Qwen loads in: its names in order, the local file last. */
function nameRank(path: string, names: readonly string[]): number {
  const name = nameOf(path);
  const index = names.indexOf(name);
  if (index >= 0) return index;
  return name === QWEN_LOCAL_MD ? names.length + 1 : names.length;
}

/**
 * Qwen's `concatenateInstructions`: blocks grouped by name (the global file, then root to cwd),
 * each trimmed between `--- Context from: <relative path> ---` lines, joined by a blank line.
 */
function qwenContext(blocks: readonly RenderBlock[], cwd: string, names: readonly string[] = QWEN_DEFAULT_NAMES): string {
  return blocks
    .map((block, index) => ({ block, index, rank: nameRank(block.path, names) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ block }) => {
      const text = block.content.trim();
      if (text === "") return null;
      const shown = quote(relative(cwd, block.path));
      return `--- Context from: ${shown} ---\n${text}\n--- End of Context from: ${shown} ---`;
    })
    .filter((text): text is string => text !== null)
    .join("\n\n");
}

const qwenRenderer: Renderer = {
  initial({ blocks, cwd }) {
    return qwenContext(blocks, cwd);
  },
  inline(blocks, { cwd }) {
    return blocks
      .map((block) => {
        const text = block.content.trim();
        const shown = quote(relative(cwd, block.path));
        return text === "" ? null : `--- Context from: ${shown} ---\n${text}\n--- End of Context from: ${shown} ---`;
      })
      .filter((text): text is string => text !== null)
      .join("\n\n");
  },
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;
const LOCAL = `.qwen/${QWEN_LOCAL_MD}`;

export const qwenPreset: Preset = {
  name: "qwen",
  description: "Qwen Code: QWEN.md + AGENTS.md from the git root to cwd per name, ~/.qwen globals, .qwen/QWEN.local.md, nothing on touch",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: [...QWEN_DEFAULT_NAMES, LOCAL], select: "all" },
  initial: { maxFiles: UNLIMITED, maxBytes: UNLIMITED },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: 50, maxBytes: 256 * 1024, exclude: [], groups: [[...QWEN_DEFAULT_NAMES]] },
  scope: { ...SPEC_SCOPE, noMarker: "fs-root", rootAt: "above-marker" },
  startup: { ...SPEC_STARTUP, keep: "root-first" },
  text: { ...SPEC_TEXT, blank: qwenBlank },
  dedupe: "identity",
  renderer: qwenRenderer,
  userLayers: ({ home, env, names }) => [
    {
      candidates: (names ?? QWEN_DEFAULT_NAMES).filter((name) => !name.includes("/")).map((name) => join(qwenDir(home, env), name)),
      select: "all",
      trim: false,
    },
  ],
};
