/**
 * agentsmd: the right AGENTS.md instructions at the right moment.
 * @example
 * import { createSession } from "agentsmd";
 * const session = await createSession({ cwd: process.cwd() });
 */
export { createSession, restoreSession, parseSessionState, AgentsSession, RESOLVE_TRIGGER_TOOLS } from "./session.js";
export type { SessionOptions, AdmitOptions, RestoreOptions, FileVersion } from "./session.js";
export { PROMPT_GUIDANCE } from "./guidance.js";
export * from "./schema.js";
export { resolveConfig, loadConfigFile, parseConfig, configFromEnv, mergeConfigs, DEFAULT_PRESET, DEFAULT_REVALIDATE_MS } from "./config.js";
export type { ResolvedConfig, ConfigInput, ConfigResult } from "./config.js";
export { findProjectRoot } from "./root.js";
export type { RootResult, RootOptions, RootReason } from "./root.js";
export { getPreset, presetNames, registerPreset, DEFAULT_EXCLUDES } from "./presets.js";
export type { Preset, UserLayer, CutMode } from "./presets.js";
export { nodeFileSystem, asyncFileSystem, countingFileSystem, ABSENT_CODES } from "./file-system.js";
export type { FileSystem, FileInfo, ReadResult, FsCounters } from "./file-system.js";
export { AgentsMdError, ConfigError, StateError, FsError } from "./errors.js";
export { agentsResolvePaths, sessionResumeDiff, systemReminder } from "./reminders.js";
export { getRenderer, registerRenderer, codeliaRenderer, codexRenderer } from "./render.js";
export type { Renderer, RenderBlock } from "./render.js";
export { readStateFile, writeStateFile, withLock } from "./state-store.js";
export { StatCache } from "./cache.js";
export type { RefreshOptions, RefreshResult, RefreshedFile } from "./session.js";
export { buildCompactionContext, estimateTokens, compactionTruncationLine, DEFAULT_COMPACTION_TOKENS } from "./compaction.js";
export type { CompactionContext, CompactionContextOptions, CompactionFile, TokenCounter } from "./compaction.js";
export { agentsUpdated, agentsUpdatedInline, agentsRemoved } from "./reminders.js";
// agentsmd/watch holds watchSession (chokidar loads on demand); only its types are re-exported here.
export type { WatchOptions, SessionWatcher } from "./watch.js";
