/**
 * zod schemas: the one source of every public type (docs/loading-rules.md#schemas).
 * Everything that crosses a boundary (config file, env, state file, tool I/O) is parsed here.
 *
 * zod/mini, not classic zod: these schemas are built in every hook process (one per tool call), and
 * classic zod installs dozens of methods on each schema class the first time it is used, several
 * milliseconds per process (docs/performance.md#the-hook-process). Same validation, same messages (core/zod-locale.ts).
 *
 * The config and state schemas are defined in core/config-schema.ts and core/state-schema.ts,
 * built there on first use; this module exports them built. The hook path never imports this
 * module (test/hook-bundle.test.ts), so a hook builds only the schemas it parses.
 */
import * as z from "zod/mini";
import "./zod-locale.js";
import { configSchema, formatIssues, leaves, ruleFormatSchema, RULE_FORMATS, type AgentsConfig } from "./config-schema.js";
import { initialFileSchema, layerSchema, loadedVersionSchema, sessionStateSchema, SESSION_STATE_VERSION, type SessionState } from "./state-schema.js";

export { formatIssues, RULE_FORMATS, SESSION_STATE_VERSION, type AgentsConfig, type SessionState };

const { optionalBoolean, optionalString, string, boolean, strings, positiveInt, count, mtime } = leaves();

/** The first version of the config schema (docs/loading-rules.md#schemas), verbatim (kept for callers who want exactly it). */
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

export const RuleFormatSchema = ruleFormatSchema();
export type RuleFormat = z.infer<typeof RuleFormatSchema>;

/**
 * The full configuration: the v1 keys plus extensions for presets and integrations.
 * Strict at every level, so a typo is an error that names the key.
 */
export const AgentsConfigSchema = configSchema();

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
export const LayerSchema = layerSchema();
export type Layer = z.infer<typeof LayerSchema>;

/** One file of the initial bundle, as `agentsmd list --json` prints it. */
export const InitialFileSchema = initialFileSchema();
export type InitialFile = z.infer<typeof InitialFileSchema>;

/** One loaded version: a file the model has been given, at the mtime it had then. */
export const LoadedVersionSchema = loadedVersionSchema();
export type LoadedVersion = z.infer<typeof LoadedVersionSchema>;

/** A persisted session (`snapshot()` / `restoreSession`, the CLI's `--state` file). */
export const SessionStateSchema = sessionStateSchema();

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
