/**
 * zod schemas: the one source of every public type (spec §0.5 / §0.6).
 * Everything that crosses a boundary (config file, env, state file, tool I/O) is parsed here.
 */
import * as z from "zod";

/** Spec §0.5 v1 schema, verbatim (kept for callers who want exactly it). */
export const AgentsConfigV1Schema = z
  .object({
    enabled: z.boolean().optional(),
    root: z
      .object({
        projectRootOverride: z.string().optional(),
        markers: z.array(z.string()).optional(),
        stopAtFsRoot: z.boolean().optional(),
      })
      .optional(),
    initial: z
      .object({
        maxFiles: z.number().int().positive().optional(),
        maxBytes: z.number().int().positive().optional(),
      })
      .optional(),
    resolver: z
      .object({
        enabled: z.boolean().optional(),
        maxFilesPerResolve: z.number().int().positive().optional(),
      })
      .optional(),
  })
  .strict();

const markerName = z
  .string()
  .min(1, "a marker cannot be empty")
  .refine((s) => !s.includes("\0"), "a marker cannot contain NUL")
  .refine((s) => !s.startsWith("/"), "a marker is a name looked up in each ancestor, not an absolute path")
  .refine((s) => !s.split(/[\\/]/).includes(".."), "a marker cannot contain '..'");

const fileName = z
  .string()
  .min(1)
  .refine((s) => !s.includes("\0") && !s.startsWith("/"), "a relative file name is expected")
  // A name is looked up inside each directory of the chain; ".." would reach files outside it.
  .refine((s) => !s.split(/[\\/]/).includes(".."), "a file name cannot contain '..'");

/** Scoped-rule formats agentsmd reads (load/rules/formats.ts holds where each lives and how it matches). */
export const RULE_FORMATS = ["copilot", "claude", "cursor", "continue", "qwen", "windsurf"] as const;
export const RuleFormatSchema = z.enum(RULE_FORMATS);
export type RuleFormat = z.infer<typeof RuleFormatSchema>;

/**
 * The full configuration: the v1 keys plus extensions for presets and integrations.
 * Strict at every level, so a typo is an error that names the key.
 */
const AgentsConfigKeys = z
  .object({
    /** Preset name; see `agentsmd --help`. @default "codelia" */
    preset: z.string().optional(),
    enabled: z.boolean().optional(),
    root: z
      .object({
        projectRootOverride: z.string().min(1).optional(),
        markers: z.array(markerName).optional(),
        stopAtFsRoot: z.boolean().optional(),
      })
      .strict()
      .optional(),
    initial: z
      .object({
        maxFiles: z.number().int().positive().optional(),
        maxBytes: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    resolver: z
      .object({
        enabled: z.boolean().optional(),
        maxFilesPerResolve: z.number().int().positive().optional(),
        /** What a target outside the root yields: nothing, or the chain of the target's own root. @default "ignore" */
        outsideRoot: z.enum(["ignore", "own-root"]).optional(),
      })
      .strict()
      .optional(),
    /** Instruction file names tried in each directory, in order. */
    files: z
      .object({
        names: z.array(fileName).min(1).optional(),
        /** `first`: the first candidate that is a regular file wins; `all`: every candidate present. */
        select: z.enum(["first", "all"]).optional(),
        /**
         * An instruction file that is a symlink (or sits under a symlinked directory) resolving
         * outside the project root: `inside-root` skips it with a `symlink-outside-root` diagnostic
         * (a cloned repository's `AGENTS.md -> ~/.aws/credentials` reaches no model); `follow` reads
         * it as the agents do. Chains of targets outside the root (`resolver.outsideRoot:
         * "own-root"`) are not confined. @default "inside-root" (issue 18)
         */
        symlinks: z.enum(["follow", "inside-root"]).optional(),
      })
      .strict()
      .optional(),
    /** Inline (lazy) mode caps and exclusions. */
    lazy: z
      .object({
        maxFiles: z.number().int().positive().optional(),
        maxBytes: z.number().int().positive().optional(),
        exclude: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .optional(),
    /** Cache revalidation window in ms: how long a stat result is trusted without asking the disk again. */
    cache: z
      .object({
        revalidateMs: z.number().int().nonnegative().optional(),
      })
      .strict()
      .optional(),
    /**
     * `@path` imports in instruction files, expanded in place (imports.ts). Defaults per preset: on in
     * `claude` and `gemini`, off elsewhere; `codex` never expands them.
     */
    imports: z
      .object({
        /** @default the preset's */
        enabled: z.boolean().optional(),
        /** Let imports resolve anywhere, outside the project root too (after symlinks). @default false */
        allowOutsideRoot: z.boolean().optional(),
        /**
         * Directories (or files) outside the project root that imports may read, absolute or `~/...`
         * (home); compared after symlinks. Never set by default: a cloned repository cannot import
         * `~/.ssh/id_rsa` unless the user lists it here. @default []
         */
        allow: z
          .array(
            z
              .string()
              .min(1)
              .refine((value) => value.startsWith("/") || value.startsWith("~/"), "must be an absolute path or start with ~/"),
          )
          .max(1000)
          .optional(),
      })
      .strict()
      .optional(),
    /** Scoped rules (`.github/instructions`, `.claude/rules`, `.cursor/rules`, `.continue/rules`, `.qwen/rules`, `.windsurf/rules`). */
    rules: z
      .object({
        /**
         * Formats delivered to the host; `[]` turns scoped rules off. A format the host reads itself is
         * never delivered, even when listed. @default every format the host does not read itself
         */
        formats: z.array(RuleFormatSchema).optional(),
      })
      .strict()
      .optional(),
    /**
     * OpenCode settings, same names as its `opencode.json` (preset `opencode`): `instructions`, files
     * and globs loaded after the AGENTS.md chain. Set here, it replaces the list OpenCode's own
     * configuration gives.
     */
    opencode: z
      .object({
        instructions: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    /** Codex CLI settings, same names as `~/.codex/config.toml` (preset `codex`). */
    codex: z
      .object({
        project_doc_max_bytes: z.number().int().nonnegative().optional(),
        project_doc_fallback_filenames: z.array(z.string()).optional(),
        project_root_markers: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const AgentsConfigSchema = AgentsConfigKeys.extend({
  /**
   * Settings for one preset only, applied over the rest of the file when that preset runs, e.g.
   * `{ "presets": { "gemini": { "files": { "names": ["GEMINI.md", "AGENTS.md"] } } } }`: a setting
   * meant for one agent never changes what another preset shows.
   */
  presets: z.record(z.string(), AgentsConfigKeys.omit({ preset: true })).optional(),
  /** Read each agent's own configuration (Codex config.toml, Gemini settings.json, OpenCode opencode.json). @default true */
  agentConfig: z.boolean().optional(),
}).strict();

export type AgentsConfig = z.infer<typeof AgentsConfigSchema>;

export const ResolvedAgentsSchema = z
  .object({
    files: z.array(
      z
        .object({
          path: z.string(),
          mtimeMs: z.number().nonnegative(),
          sizeBytes: z.number().int().nonnegative(),
        })
        .strict(),
    ),
  })
  .strict();

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
export const InitialFileSchema = z
  .object({
    path: z.string(),
    layer: LayerSchema,
    mtimeMs: z.number().nonnegative(),
    sizeBytes: z.number().int().nonnegative(),
    includedBytes: z.number().int().nonnegative(),
    truncated: z.boolean(),
  })
  .strict();
export type InitialFile = z.infer<typeof InitialFileSchema>;

/** One loaded version: a file the model has been given, at the mtime it had then. */
export const LoadedVersionSchema = z
  .object({
    path: z.string(),
    mtimeMs: z.number().nonnegative(),
    layer: LayerSchema,
  })
  .strict();
export type LoadedVersion = z.infer<typeof LoadedVersionSchema>;

export const SESSION_STATE_VERSION = 1;

const MAX_STATE_ENTRIES = 1_000_000;

/** A persisted session (`snapshot()` / `restoreSession`, the CLI's `--state` file). */
export const SessionStateSchema = z
  .object({
    version: z.literal(SESSION_STATE_VERSION),
    preset: z.string(),
    cwd: z.string(),
    root: z.string(),
    markers: z.array(z.string()),
    config: AgentsConfigSchema,
    initialFiles: z.array(InitialFileSchema).max(MAX_STATE_ENTRIES),
    initialMessage: z.string(),
    coveredDirs: z.array(z.string()).max(MAX_STATE_ENTRIES),
    seenDirs: z.array(z.string()).max(MAX_STATE_ENTRIES),
    loaded: z.array(LoadedVersionSchema).max(MAX_STATE_ENTRIES),
    lazyLoadedFiles: z.number().int().nonnegative(),
    lazyLoadedBytes: z.number().int().nonnegative(),
    lazyCapped: z.boolean(),
    /** Initial-scope files the budget left out, at the version seen then (a resume does not report them as changed). */
    leftOut: z
      .array(z.object({ path: z.string(), mtimeMs: z.number().nonnegative() }).strict())
      .max(MAX_STATE_ENTRIES)
      .optional(),
  })
  .strict();
export type SessionState = z.infer<typeof SessionStateSchema>;

/** A body delivered in inline mode (`touch`). */
export const InlineBlockSchema = z
  .object({
    path: z.string(),
    layer: LayerSchema,
    mtimeMs: z.number().nonnegative(),
    sizeBytes: z.number().int().nonnegative(),
    content: z.string(),
    truncated: z.boolean(),
    /** Set when the block is a scoped rule: its format and the glob that matched ("" for always-apply). */
    rule: z.object({ format: RuleFormatSchema, glob: z.string() }).strict().optional(),
  })
  .strict();
export type InlineBlock = z.infer<typeof InlineBlockSchema>;

/** A non-fatal problem. Library code never prints; it collects these. */
export const DiagnosticSchema = z
  .object({
    level: z.enum(["info", "warning", "error"]),
    code: z.string(),
    message: z.string(),
    path: z.string().optional(),
    /** What the user can do about it, when there is something to do. */
    fix: z.string().optional(),
  })
  .strict();
export type Diagnostic = z.infer<typeof DiagnosticSchema>;

/**
 * Formats a zod error as `key.path: message` lines.
 * @example formatIssues(AgentsConfigSchema.safeParse({ initial: { maxFiles: -1 } }).error!) // "initial.maxFiles: ..."
 */
export function formatIssues(error: z.ZodError): string {
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
