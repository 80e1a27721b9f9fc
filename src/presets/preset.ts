/**
 * Presets as data: the loading rules of one agent, named. `config.ts` layers user settings on top.
 */
import { readCodexConfig, type AgentConfigContext, type AgentConfigLayer } from "./agent-config.js";
import type { Diagnostic } from "../core/schema.js";
import { join } from "../core/paths.js";
import { isBlank } from "../core/budget.js";
import { codeliaRenderer, codexRenderer, type Renderer } from "../core/render.js";

/** How a file that does not fit the budget is cut. */
export type CutMode =
  /** at a UTF-8 character boundary, followed by a visible line naming how much was shown and where the rest is */
  | "utf8-with-note"
  /** at the raw byte, decoded lossily (a split character becomes U+FFFD), no trace: what Codex does */
  | "byte";

export interface UserLayer {
  /** Candidates in order; with `select: "first-non-empty"` the first one with text wins. */
  candidates: string[];
  select: "first-non-empty" | "all";
  /** Trim the text (Codex trims its global file). */
  trim: boolean;
  /** An empty file still yields a block (hygge). @default false */
  keepEmpty?: boolean;
  /**
   * The first candidate that exists in any form ends the search; a directory or special file there
   * yields nothing (OpenCode's existsSafe). @default false: such candidates are passed over
   */
  firstExisting?: boolean;
  /** Candidates passed over after a look at the disk (Kilo skips ~/.claude/CLAUDE.md after its Claude Code migration). @default none */
  omit?(fs: import("../io/file-system.js").FileSystem): Promise<readonly string[]>;
}

export interface PresetEnv {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The session's configured file names (`files.names`), for presets whose user layer follows them (gemini). */
  names?: readonly string[];
}

/**
 * Where a project lies and which directories later touches reach. Agents differ here; the loading
 * rules' answers (docs/loading-rules.md) are {@link SPEC_SCOPE}.
 */
export interface ScopeSlot {
  /** Without a marker: the root is cwd (the loading rules), the file-system root, or there is no project at all (hygge). */
  noMarker: "cwd" | "none" | "fs-root";
  /** The root is the directory holding the marker, or the one above it (Qwen Code). */
  rootAt: "marker" | "above-marker";
  /**
   * Which directories of the chain root -> target `touch` and `resolve` consider: all of them; only
   * those strictly below cwd, with nothing for targets outside cwd (OpenCode's nested files); or
   * all of them but only for targets inside cwd (Gemini CLI: JIT only inside the workspace).
   */
  nested: "root" | "below-cwd" | "inside-cwd";
  /**
   * The order `touch` delivers nested files in: root side first (docs/loading-rules.md#progressive-resolution, Gemini CLI's JIT walk)
   * or nearest directory first (OpenCode's read attachments, hygge, Copilot CLI). Under the inline
   * caps, files come in this order until one does not fit.
   */
  touchOrder: "root-first" | "nearest-first";
}

/** How the startup bundle is assembled from the files found. The loading rules' answers are {@link SPEC_STARTUP}. */
export interface StartupSlot {
  /** Which directories load at startup: the root -> cwd chain (the loading rules), the root only (hygge), or cwd only (Continue CLI). */
  dirs: "chain" | "root" | "cwd";
  /** Which files the budget keeps when it cannot hold all: the most specific, or the root side (Codex). */
  keep: "nearest-first" | "root-first";
  /** Project files in chain order (root first), or sorted as plain strings (Gemini CLI). */
  order: "chain" | "path";
  /**
   * A candidate that cannot be probed (EACCES, ELOOP...) before any file is chosen in its
   * directory: skip it with a diagnostic, or drop every project file (Codex).
   */
  probeErrors: "skip" | "drop-project";
}

/** How the agent treats one file's text (startup, user layers, `touch`). The spec's answers are {@link SPEC_TEXT}. */
export interface TextSlot {
  /** How a file that does not fit the budget is cut (a byte cut also keeps a leading BOM, as Codex does). */
  cut: CutMode;
  /** Skip files that are empty after trimming (they cost nothing). */
  skipBlank: boolean;
  /** Trim each project file's text at startup (hygge trims). */
  trim: boolean;
  /** True when a file's text counts as blank: Unicode White_Space only in the loading rules ({@link isBlank}); Gemini CLI uses JavaScript's `trim()`. */
  blank(text: string): boolean;
}

export interface Preset {
  name: string;
  description: string;
  /**
   * A per-file size limit the agent applies outside any budget (`doctor` reports files over it):
   * the agent's name as users know it, the limit, and what the agent does with a larger file.
   * @default none
   */
  fileLimit?: { agent: string; bytes: number; effect: string };
  // The defaults of the config keys of the same names (load/config.ts layers settings on top).
  root: {
    markers: readonly string[];
    /** false: stop the upward walk at the home directory (home itself not searched). */
    stopAtFsRoot: boolean;
  };
  files: {
    /** Instruction file names tried in each directory, in order. */
    names: readonly string[];
    /** `first`: first candidate that is a regular file wins; `all`: every candidate present. */
    select: "first" | "all";
  };
  initial: {
    maxFiles: number;
    /** 0 disables project files (Codex's `project_doc_max_bytes = 0`). */
    maxBytes: number;
  };
  resolver: { enabled: boolean; maxFilesPerResolve: number };
  lazy: {
    maxFiles: number;
    maxBytes: number;
    exclude: readonly string[];
    /**
     * Name groups for directories reached by `touch`: the first group with any regular file wins and
     * contributes every file of it present. @default one group per `files.names` entry ("first"),
     * or one group of all names ("all")
     */
    groups?: ReadonlyArray<readonly string[]>;
  };
  // What differs between agents, in named slots (each whole: the spec's answers are SPEC_*).
  scope: ScopeSlot;
  startup: StartupSlot;
  text: TextSlot;
  /**
   * Files are one file when their path is (`path`), or when their device + inode are (`identity`:
   * hard links, case-insensitive file systems; Gemini CLI). With `identity` a user file and a
   * project file can be one file (the user file wins), and a loaded identity is not offered
   * again when its file is edited.
   */
  dedupe: "path" | "identity";
  /** How the bundle is framed for the model (core/render.ts, or the preset's own). */
  renderer: Renderer;
  /** A preset-specific `agentsmd list` text (hygge prints its own table). */
  formatList?(
    rows: ReadonlyArray<{ path: string; layer: import("../core/schema.js").Layer; sizeBytes: number; content: string }>,
    context: { root: string; cwd: string },
  ): string;
  /** Home-level layers (outside the budget). */
  userLayers(context: PresetEnv): UserLayer[];
  /**
   * Per-session name groups that need I/O to decide, run once the root is known (Claude Code loads
   * AGENTS.md only when no CLAUDE.md exists at or above cwd). Not run when the config sets
   * `files.names`. @default none: groups come from `files` and `lazy.groups`
   */
  prepare?(context: PrepareContext): Promise<PreparedGroups | undefined>;
  /** Preset-specific config keys, applied after the generic merge (e.g. Codex's own setting names). */
  adapt?(config: import("../core/schema.js").MutableConfig, raw: import("../core/schema.js").AgentsConfig, diagnostics: Diagnostic[]): void;
  /**
   * Files the agent loads at startup because its configuration lists them (OpenCode's
   * `instructions`), loaded after the chain in this order, layer `config`. Run once the root is known.
   */
  listed?(context: ListedContext): Promise<ListedFiles>;
  /**
   * Instruction files the agent's own settings exclude (Claude Code's `claudeMdExcludes`,
   * `CLAUDE_CODE_DISABLE_CLAUDE_MDS`): invisible to every probe and user layer of the session.
   */
  excludes?(context: ListedContext): Promise<Excludes | undefined>;
  /** Reads the agent's own configuration (Codex config.toml, Gemini settings.json; OpenCode and Claude Code through `listed` and `excludes`): applied under agentsmd's config. */
  agentConfig?(context: AgentConfigContext): Promise<AgentConfigLayer>;
  /**
   * `@path` imports (imports.ts): on or off by default; `locked` ignores `imports.enabled` in the
   * config (Codex never expands them); the marker framing an import; the nesting limit.
   * @default off, switchable with `imports.enabled`, marker "agentsmd", depth 5
   */
  imports?: { enabled: boolean; locked?: boolean; marker?: import("../core/schema.js").ImportMarker; maxDepth?: number };
}

/** The default rules' scope (docs/loading-rules.md): the root is the marker's directory, or cwd without one; touches reach the whole chain. */
export const SPEC_SCOPE: ScopeSlot = { noMarker: "cwd", rootAt: "marker", nested: "root", touchOrder: "root-first" };

/** The loading rules' startup bundle: the chain root -> cwd, nearest files kept first, rendered root first, unprobeable candidates skipped. */
export const SPEC_STARTUP: StartupSlot = { dirs: "chain", keep: "nearest-first", order: "chain", probeErrors: "skip" };

/** The loading rules' text rules: UTF-8 cut with a note, blank files skipped, text as read, Unicode White_Space blank. */
export const SPEC_TEXT: TextSlot = { cut: "utf8-with-note", skipBlank: true, trim: false, blank: isBlank };

/**
 * True when the preset keeps a leading BOM: a byte cut reads raw bytes (Codex), the others drop it
 * as the agents' decoders do.
 */
export function keepsBom(preset: Pick<Preset, "text">): boolean {
  return preset.text.cut === "byte";
}

export interface PrepareContext extends PresetEnv {
  cwd: string;
  root: string;
  fs: import("../io/file-system.js").FileSystem;
  /** Files the agent's settings exclude (`Preset.excludes`): they count as absent. */
  exclude?: (path: string) => boolean;
}

export interface ListedContext extends PrepareContext {
  /** false with `--no-agent-config`: only agentsmd's own config counts. */
  agentConfig: boolean;
  raw: import("../core/schema.js").AgentsConfig;
  /** The project a repository's config may name files in (the session's import root, core/confine.ts). @default the root */
  scope?: string;
}

/** Files the agent's own settings keep from loading (see `Preset.excludes`). */
export interface Excludes {
  /** True for a path the agent never loads, at startup or on touch. */
  matches(path: string): boolean;
  diagnostics: Diagnostic[];
}

/** Files an agent's configuration lists beside the chain (see `Preset.listed`). */
export interface ListedFiles {
  /** Absolute paths in the agent's order; files already loaded are dropped by the loader. */
  paths: string[];
  /** Why each path is listed, in words (for `explain`). */
  reasons: Map<string, string>;
  diagnostics: Diagnostic[];
}

/** Name groups decided for one session (see `Preset.prepare`). */
export interface PreparedGroups {
  /** Groups for the initial scope and `resolve`. */
  groups: ReadonlyArray<readonly string[]>;
  /** Groups for directories reached by `touch`. @default `groups` */
  lazyGroups?: ReadonlyArray<readonly string[]>;
  /** Why these groups, in a sentence (shown by `explain`). */
  reason?: string;
}

/**
 * The byte budget agentsmd applies where the agent a preset reproduces has no limit of its own
 * (`initial.maxBytes` / `lazy.maxBytes` of `Number.MAX_SAFE_INTEGER`): imports included, so a
 * repository cannot amplify itself into hundreds of megabytes of context (docs/security.md). A config that
 * sets the key explicitly wins. `explain` says when it applies.
 */
export const AGENTSMD_DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * A preset budget as a session uses it: the agent's own, or {@link AGENTSMD_DEFAULT_MAX_BYTES}
 * where the agent has none.
 */
export function budgetOf(presetBytes: number): number {
  return presetBytes >= Number.MAX_SAFE_INTEGER ? AGENTSMD_DEFAULT_MAX_BYTES : presetBytes;
}

export const DEFAULT_EXCLUDES: readonly string[] = [".git", "node_modules", "vendor", ".venv", "__pycache__", "dist", "target", "bin", "build"];

const LAZY_DEFAULTS = { maxFiles: 50, maxBytes: 256 * 1024, exclude: DEFAULT_EXCLUDES };

/** The default rules (docs/loading-rules.md, as Codelia ships them). */
export const codeliaPreset: Preset = {
  name: "codelia",
  description: "the loading rules of docs/loading-rules.md: AGENTS.md root -> cwd, resolver reminders",
  root: { markers: [".codelia", ".git", ".jj"], stopAtFsRoot: true },
  files: { names: ["AGENTS.md"], select: "first" },
  initial: { maxFiles: 16, maxBytes: 256 * 1024 },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: LAZY_DEFAULTS,
  scope: SPEC_SCOPE,
  startup: SPEC_STARTUP,
  text: SPEC_TEXT,
  dedupe: "path",
  renderer: codeliaRenderer,
  userLayers: () => [],
};

const CODEX_BUILTIN_NAMES = ["AGENTS.override.md", "AGENTS.md"];

/** Codex takes only bare names as fallbacks; anything else is dropped with a warning. */
function isBareName(name: string): boolean {
  return name.length > 0 && !name.includes("/") && !name.includes("\0") && name !== "." && name !== "..";
}

/** Codex CLI 0.169 (docs/loading-rules.md#codex). */
export const codexPreset: Preset = {
  name: "codex",
  description: "Codex CLI: AGENTS.override.md / AGENTS.md per dir from the git root to cwd, 32 KiB root-first",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: CODEX_BUILTIN_NAMES, select: "first" },
  initial: { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: 32 * 1024 },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: LAZY_DEFAULTS,
  scope: SPEC_SCOPE,
  startup: { ...SPEC_STARTUP, keep: "root-first", probeErrors: "drop-project" },
  text: { ...SPEC_TEXT, cut: "byte" },
  dedupe: "path",
  renderer: codexRenderer,
  imports: { enabled: false, locked: true },
  userLayers: ({ home, env }) => {
    const codexHome = env.CODEX_HOME && env.CODEX_HOME.length > 0 ? env.CODEX_HOME : join(home, ".codex");
    return [{ candidates: [join(codexHome, "AGENTS.override.md"), join(codexHome, "AGENTS.md")], select: "first-non-empty", trim: true }];
  },
  agentConfig: readCodexConfig,
  adapt(config, raw, diagnostics) {
    const codex = raw.codex;
    if (!codex) return;
    if (codex.project_doc_max_bytes !== undefined) config.initial.maxBytes = codex.project_doc_max_bytes;
    if (codex.project_root_markers !== undefined) config.root.markers = [...codex.project_root_markers];
    if (codex.project_doc_fallback_filenames !== undefined) {
      const names = [...CODEX_BUILTIN_NAMES];
      for (const entry of codex.project_doc_fallback_filenames) {
        const name = entry.trim();
        if (name.length === 0 || names.includes(name)) continue;
        if (!isBareName(name)) {
          diagnostics.push({
            level: "warning",
            code: "fallback-not-bare",
            message: `codex.project_doc_fallback_filenames: "${entry}" is not a bare file name; Codex ignores it, so it is ignored here too`,
          });
          continue;
        }
        names.push(name);
      }
      config.files.names = names;
    }
  },
};
