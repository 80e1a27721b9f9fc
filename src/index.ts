/**
 * agentsmd: the right AGENTS.md instructions at the right moment.
 * @example
 * import { createSession } from "agentsmd";
 * const session = await createSession({ cwd: process.cwd() });
 */
export { createSession, restoreSession, parseSessionState, AgentsSession, RESOLVE_TRIGGER_TOOLS } from "./session/session.js";
export type { SessionOptions, AdmitOptions, RestoreOptions, FileVersion } from "./session/session.js";
export { PROMPT_GUIDANCE } from "./core/guidance.js";
export * from "./core/schema.js";
export { resolveConfig, loadConfigFile, parseConfig, configFromEnv, mergeConfigs, DEFAULT_PRESET, DEFAULT_REVALIDATE_MS } from "./load/config.js";
export type { ResolvedConfig, ConfigInput, ConfigResult } from "./load/config.js";
export { findProjectRoot } from "./load/root.js";
export type { RootResult, RootOptions, RootReason } from "./load/root.js";
export { getPreset, presetNames, registerPreset, DEFAULT_EXCLUDES } from "./presets/preset.js";
export type { Preset, UserLayer, CutMode } from "./presets/preset.js";
export { nodeFileSystem, asyncFileSystem, countingFileSystem, ABSENT_CODES } from "./io/file-system.js";
export type { FileSystem, FileInfo, ReadResult, FsCounters } from "./io/file-system.js";
export { AgentsMdError, ConfigError, StateError, FsError } from "./core/errors.js";
export { agentsResolvePaths, sessionResumeDiff, systemReminder } from "./core/reminders.js";
export { getRenderer, registerRenderer, codeliaRenderer, codexRenderer } from "./core/render.js";
export type { Renderer, RenderBlock } from "./core/render.js";
export { readStateFile, writeStateFile, withLock } from "./io/state-store.js";
export { StatCache } from "./io/cache.js";
export type { RefreshOptions, RefreshResult, RefreshedFile } from "./session/session.js";
export { buildCompactionContext, estimateTokens, compactionTruncationLine, DEFAULT_COMPACTION_TOKENS } from "./session/compaction.js";
export type { CompactionContext, CompactionContextOptions, CompactionFile, TokenCounter } from "./session/compaction.js";
export { agentsUpdated, agentsUpdatedInline, agentsRemoved } from "./core/reminders.js";
// agentsmd/watch holds watchSession (chokidar loads on demand); only its types are re-exported here.
export type { WatchOptions, SessionWatcher } from "./session/watch.js";
