/**
 * zod schemas: the one source of every public type (spec §0.5 / §0.6).
 * Everything that crosses a boundary (config file, env, state file, tool I/O) is parsed here.
 *
 * zod/mini, not classic zod: these schemas are built in every hook process (one per tool call), and
 * classic zod installs dozens of methods on each schema class the first time it is used, several
 * milliseconds per process (issue 15). Same validation, same messages (core/zod-locale.ts).
 */
import * as z from "zod/mini";
import "./zod-locale.js";

// Shared leaves: a zod schema is an immutable value, and each instance costs a hook process time to build.
const optionalBoolean = z.optional(z.boolean());
const optionalString = z.optional(z.string());
const nonEmptyString = z.string().check(z.minLength(1));
const string = z.string();
const boolean = z.boolean();
const strings = z.array(string);
const positiveInt = z.optional(z.number().check(z.int(), z.positive()));
const count = z.number().check(z.int(), z.nonnegative());
const mtime = z.number().check(z.nonnegative());

/** Spec §0.5 v1 schema, verbatim (kept for callers who want exactly it). */
export const AgentsConfigV1Schema = z.strictObject({
  enabled: optionalBoolean,
  root: z.optional(
    z.object({
      projectRootOverride: optionalString,
      markers: z.optional(strings),
      stopAtFsRoot: optionalBoolean,
    }),
  ),
  initial: z.optional(z.object({ maxFiles: positiveInt, maxBytes: positiveInt })),
  resolver: z.optional(z.object({ enabled: optionalBoolean, maxFilesPerResolve: positiveInt })),
});

const markerName = z.string().check(
  z.minLength(1, "a marker cannot be empty"),
  z.refine((s) => !s.includes("\0"), "a marker cannot contain NUL"),
  z.refine((s) => !s.startsWith("/"), "a marker is a name looked up in each ancestor, not an absolute path"),
  z.refine((s) => !s.split(/[\\/]/).includes(".."), "a marker cannot contain '..'"),
);

const fileName = z.string().check(
  z.minLength(1),
  z.refine((s) => !s.includes("\0") && !s.startsWith("/"), "a relative file name is expected"),
  // A name is looked up inside each directory of the chain; ".." would reach files outside it.
  z.refine((s) => !s.split(/[\\/]/).includes(".."), "a file name cannot contain '..'"),
);

/** Scoped-rule formats agentsmd reads (load/rules/formats.ts holds where each lives and how it matches). */
export const RULE_FORMATS = ["copilot", "claude", "cursor", "continue", "qwen", "windsurf"] as const;
export const RuleFormatSchema = z.enum(RULE_FORMATS);
export type RuleFormat = z.infer<typeof RuleFormatSchema>;

/**
 * The full configuration: the v1 keys plus extensions for presets and integrations.
 * Strict at every level, so a typo is an error that names the key.
 */
const AgentsConfigKeys = z.strictObject({
  /** Preset name; see `agentsmd --help`. @default "codelia" */
  preset: optionalString,
  enabled: optionalBoolean,
  root: z.optional(
    z.strictObject({
      projectRootOverride: z.optional(nonEmptyString),
      markers: z.optional(z.array(markerName)),
      stopAtFsRoot: optionalBoolean,
    }),
  ),
  initial: z.optional(z.strictObject({ maxFiles: positiveInt, maxBytes: positiveInt })),
  resolver: z.optional(
    z.strictObject({
      enabled: optionalBoolean,
      maxFilesPerResolve: positiveInt,
      /** What a target outside the root yields: nothing, or the chain of the target's own root. @default "ignore" */
      outsideRoot: z.optional(z.enum(["ignore", "own-root"])),
    }),
  ),
  /** Instruction file names tried in each directory, in order. */
  files: z.optional(
    z.strictObject({
      names: z.optional(z.array(fileName).check(z.minLength(1))),
      /** `first`: the first candidate that is a regular file wins; `all`: every candidate present. */
      select: z.optional(z.enum(["first", "all"])),
      /**
       * An instruction file that is a symlink (or sits under a symlinked directory) resolving
       * outside the project root: `inside-root` skips it with a `symlink-outside-root` diagnostic
       * (a cloned repository's `AGENTS.md -> ~/.aws/credentials` reaches no model); `follow` reads
       * it as the agents do. Chains of targets outside the root (`resolver.outsideRoot:
       * "own-root"`) are not confined. @default "inside-root" (issue 18)
       */
      symlinks: z.optional(z.enum(["follow", "inside-root"])),
    }),
  ),
  /** Inline (lazy) mode caps and exclusions. */
  lazy: z.optional(
    z.strictObject({
      maxFiles: positiveInt,
      maxBytes: positiveInt,
      exclude: z.optional(z.array(nonEmptyString)),
    }),
  ),
  /** Cache revalidation window in ms: how long a stat result is trusted without asking the disk again. */
  cache: z.optional(z.strictObject({ revalidateMs: z.optional(count) })),
  /**
   * `@path` imports in instruction files, expanded in place (imports.ts). Defaults per preset: on in
   * `claude` and `gemini`, off elsewhere; `codex` never expands them.
   */
  imports: z.optional(
    z.strictObject({
      /** @default the preset's */
      enabled: optionalBoolean,
      /** Let imports resolve anywhere, outside the project root too (after symlinks). @default false */
      allowOutsideRoot: optionalBoolean,
      /**
       * Directories (or files) outside the project root that imports may read, absolute or `~/...`
       * (home); compared after symlinks. Never set by default: a cloned repository cannot import
       * `~/.ssh/id_rsa` unless the user lists it here. @default []
       */
      allow: z.optional(
        z
          .array(
            z.string().check(
              z.minLength(1),
              z.refine((value) => value.startsWith("/") || value.startsWith("~/"), "must be an absolute path or start with ~/"),
            ),
          )
          .check(z.maxLength(1000)),
      ),
    }),
  ),
  /** Scoped rules (`.github/instructions`, `.claude/rules`, `.cursor/rules`, `.continue/rules`, `.qwen/rules`, `.windsurf/rules`). */
  rules: z.optional(
    z.strictObject({
      /**
       * Formats delivered to the host; `[]` turns scoped rules off. A format the host reads itself is
       * never delivered, even when listed. @default every format the host does not read itself
       */
      formats: z.optional(z.array(RuleFormatSchema)),
    }),
  ),
  /**
   * OpenCode settings, same names as its `opencode.json` (preset `opencode`): `instructions`, files
   * and globs loaded after the AGENTS.md chain. Set here, it replaces the list OpenCode's own
   * configuration gives.
   */
  opencode: z.optional(z.strictObject({ instructions: z.optional(strings) })),
  /** Codex CLI settings, same names as `~/.codex/config.toml` (preset `codex`). */
  codex: z.optional(
    z.strictObject({
      project_doc_max_bytes: z.optional(count),
      project_doc_fallback_filenames: z.optional(strings),
      project_root_markers: z.optional(strings),
    }),
  ),
});

export const AgentsConfigSchema = z.strictObject({
  ...AgentsConfigKeys.shape,
  /**
   * Settings for one preset only, applied over the rest of the file when that preset runs, e.g.
   * `{ "presets": { "gemini": { "files": { "names": ["GEMINI.md", "AGENTS.md"] } } } }`: a setting
   * meant for one agent never changes what another preset shows.
   */
  presets: z.optional(z.record(string, z.omit(AgentsConfigKeys, { preset: true }))),
  /** Read each agent's own configuration (Codex config.toml, Gemini settings.json, OpenCode opencode.json). @default true */
  agentConfig: optionalBoolean,
});

export type AgentsConfig = z.infer<typeof AgentsConfigSchema>;

export const ResolvedAgentsSchema = z.strictObject({
  files: z.array(
    z.strictObject({
      path: string,
      mtimeMs: mtime,
      sizeBytes: count,
    }),
  ),
});

export type ResolvedAgents = z.infer<typeof ResolvedAgentsSchema>;
export type ResolvedFile = ResolvedAgents["files"][number];

export const SystemReminderTypeSchema = z.enum([
  "agents.resolve.paths",
  "session.resume.diff",
  "tool.output.trimmed",
  "permission.decision",
  /** Admitted instruction files changed on disk (`session.refresh()`). */
  "agents.updated",
  /** Admitted instruction files deleted (`session.refresh()`). */
  "agents.removed",
]);

export type SystemReminderType = z.infer<typeof SystemReminderTypeSchema>;

/** user: home-level files; project: the chain; path: delivered on touch; config: listed by the agent's configuration (OpenCode's `instructions`). */
export const LayerSchema = z.enum(["user", "project", "path", "config"]);
export type Layer = z.infer<typeof LayerSchema>;

/** One file of the initial bundle, as `agentsmd list --json` prints it. */
export const InitialFileSchema = z.strictObject({
  path: string,
  layer: LayerSchema,
  mtimeMs: mtime,
  sizeBytes: count,
  includedBytes: count,
  truncated: boolean,
});
export type InitialFile = z.infer<typeof InitialFileSchema>;

/** One loaded version: a file the model has been given, at the mtime it had then. */
export const LoadedVersionSchema = z.strictObject({
  path: string,
  mtimeMs: mtime,
  layer: LayerSchema,
});
export type LoadedVersion = z.infer<typeof LoadedVersionSchema>;

export const SESSION_STATE_VERSION = 1;

const MAX_STATE_ENTRIES = 1_000_000;
const entries = <T extends z.ZodMiniType>(item: T) => z.array(item).check(z.maxLength(MAX_STATE_ENTRIES));

/** A persisted session (`snapshot()` / `restoreSession`, the CLI's `--state` file). */
export const SessionStateSchema = z.strictObject({
  version: z.literal(SESSION_STATE_VERSION),
  preset: string,
  cwd: string,
  root: string,
  markers: strings,
  config: AgentsConfigSchema,
  initialFiles: entries(InitialFileSchema),
  initialMessage: string,
  coveredDirs: entries(string),
  seenDirs: entries(string),
  loaded: entries(LoadedVersionSchema),
  lazyLoadedFiles: count,
  lazyLoadedBytes: count,
  lazyCapped: boolean,
  /** Initial-scope files the budget left out, at the version seen then (a resume does not report them as changed). */
  leftOut: z.optional(entries(z.strictObject({ path: string, mtimeMs: mtime }))),
});
export type SessionState = z.infer<typeof SessionStateSchema>;

/** A body delivered in inline mode (`touch`). */
export const InlineBlockSchema = z.strictObject({
  path: string,
  layer: LayerSchema,
  mtimeMs: mtime,
  sizeBytes: count,
  content: string,
  truncated: boolean,
  /** Set when the block is a scoped rule: its format and the glob that matched ("" for always-apply). */
  rule: z.optional(z.strictObject({ format: RuleFormatSchema, glob: string })),
});
export type InlineBlock = z.infer<typeof InlineBlockSchema>;

/** A non-fatal problem. Library code never prints; it collects these. */
export const DiagnosticSchema = z.strictObject({
  level: z.enum(["info", "warning", "error"]),
  code: string,
  message: string,
  path: optionalString,
  /** What the user can do about it, when there is something to do. */
  fix: optionalString,
});
export type Diagnostic = z.infer<typeof DiagnosticSchema>;

/**
 * Formats a zod error as `key.path: message` lines.
 * @example formatIssues(AgentsConfigSchema.safeParse({ initial: { maxFiles: -1 } }).error!) // "initial.maxFiles: ..."
 */
export function formatIssues(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : "(top level)";
      return `${where}: ${issue.message}`;
    })
    .join("\n");
}

/**
 * JSON Schema of the config, generated from zod (never hand-written).
 * @example JSON.stringify(configJsonSchema(), null, 2) // what `agentsmd schema` prints
 */
export function configJsonSchema(): object {
  return z.toJSONSchema(AgentsConfigSchema, { target: "draft-2020-12" });
}

/** The merged, validated config a session works with (load/config.ts builds it). */
export interface MutableConfig {
  preset: string;
  enabled: boolean;
  root: { projectRootOverride?: string; markers: string[]; stopAtFsRoot: boolean };
  initial: { maxFiles: number; maxBytes: number };
  resolver: { enabled: boolean; maxFilesPerResolve: number; outsideRoot: "ignore" | "own-root" };
  files: { names: string[]; select: "first" | "all"; symlinks: "follow" | "inside-root" };
  lazy: { maxFiles: number; maxBytes: number; exclude: string[] };
  cache: { revalidateMs: number };
  /** `@path` imports (imports.ts). */
  imports: { enabled: boolean; allowOutsideRoot: boolean; allow: string[] };
}

export type ResolvedConfig = Readonly<MutableConfig>;

/** How an expanded import is framed. */
export type ImportMarker =
  /**
   * `[agentsmd: imported from /abs/path]` ... `[agentsmd: end of import from /abs/path]`: plain text,
   * so renderers that drop HTML comments (claude) keep it.
   */
  | "agentsmd"
  /**
   * Gemini CLI's tree format: the same comments naming the path as written, content untouched.
   * Sessions with this marker (preset `gemini`) expand with Gemini's whole rule set instead
   * (gemini-imports.ts: its tokens, its root, its failure comments).
   */
  | "gemini"
  /**
   * No `@path` imports: Kilo Code's config variables instead (kilo-variables.ts: `{file:}` inlined,
   * `{env:}` substituted in the global file and refusing a project file). Preset `kilo`.
   */
  | "kilo";
