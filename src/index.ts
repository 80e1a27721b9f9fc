/**
 * agentsmd: the right AGENTS.md instructions at the right moment.
 * @example
 * import { createSession } from "agentsmd";
 * const session = await createSession({ cwd: process.cwd() });
 */
// Sessions: the initial bundle, progressive resolution, inline reads, admission, refresh, state.
export { createSession, restoreSession, parseSessionState, AgentsSession, RESOLVE_TRIGGER_TOOLS } from "./session/session.js";
export type { SessionOptions, AdmitOptions, RestoreOptions, FileVersion, RefreshOptions, RefreshResult, RefreshedFile } from "./session/session.js";
export { PROMPT_GUIDANCE } from "./core/guidance.js";
// Schemas (zod) and the types inferred from them: the one source of public types.
export {
  AgentsConfigSchema,
  AgentsConfigV1Schema,
  configJsonSchema,
  DiagnosticSchema,
  formatIssues,
  InitialFileSchema,
  InlineBlockSchema,
  LayerSchema,
  LoadedVersionSchema,
  ResolvedAgentsSchema,
  RULE_FORMATS,
  RuleFormatSchema,
  SESSION_STATE_VERSION,
  SessionStateSchema,
  SystemReminderTypeSchema,
} from "./core/schema.js";
export type {
  AgentsConfig,
  Diagnostic,
  InitialFile,
  InlineBlock,
  Layer,
  LoadedVersion,
  ResolvedAgents,
  ResolvedFile,
  RuleFormat,
  SessionState,
  SystemReminderType,
} from "./core/schema.js";
export { resolveConfig, loadConfigFile, parseConfig, DEFAULT_PRESET } from "./load/config.js";
export type { ResolvedConfig, ConfigInput, ConfigResult } from "./load/config.js";
export { findProjectRoot } from "./load/root.js";
export type { RootResult, RootOptions, RootReason } from "./load/root.js";
export { getPreset, presetNames } from "./presets/table.js";
export type { Preset, UserLayer, CutMode } from "./presets/preset.js";
export { nodeFileSystem, asyncFileSystem } from "./io/file-system.js";
export type { FileSystem, FileInfo, ReadResult } from "./io/file-system.js";
export { AgentsMdError, ConfigError, StateError, FsError } from "./core/errors.js";
// Model-visible text: reminders, renderers by name, the quoting every name goes through.
export { agentsResolvePaths, sessionResumeDiff, systemReminder, agentsUpdated, agentsUpdatedInline, agentsRemoved } from "./core/reminders.js";
export { codeliaRenderer, codexRenderer } from "./core/render.js";
export { getRenderer } from "./presets/table.js";
export type { Renderer, RenderBlock } from "./core/render.js";
export { quote, unquote } from "./core/quote.js";
export { buildCompactionContext, estimateTokens, DEFAULT_COMPACTION_TOKENS } from "./session/compaction.js";
export type { CompactionContext, CompactionContextOptions, CompactionFile, TokenCounter } from "./session/compaction.js";
// agentsmd/watch holds watchSession (loaded on demand); only its types are re-exported here.
export type { WatchOptions, SessionWatcher } from "./session/watch.js";
