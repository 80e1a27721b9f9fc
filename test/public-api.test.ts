/**
 * The package root's public API, chosen on purpose: what a host author needs (sessions, schemas,
 * errors, guidance, renderers by name, quoting). Adding or removing a name is a decision: this
 * list changes with it. Internals (stat cache, locks, state-file helpers, counting file system,
 * registries) are not exported. The types of the core calls are pinned with expectTypeOf
 * (checked by `npm run typecheck`, which includes test/).
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import * as api from "../src/index.js";
import type { AgentsSession, InlineBlock, ResolvedAgents, SessionOptions, SessionState, WatchOptions } from "../src/index.js";

const ROOT_EXPORTS = [
  "AgentsConfigSchema",
  "AgentsConfigV1Schema",
  "AgentsMdError",
  "AgentsSession",
  "ConfigError",
  "DEFAULT_COMPACTION_TOKENS",
  "DEFAULT_PRESET",
  "DiagnosticSchema",
  "FsError",
  "InitialFileSchema",
  "InlineBlockSchema",
  "LayerSchema",
  "LoadedVersionSchema",
  "PROMPT_GUIDANCE",
  "RESOLVE_TRIGGER_TOOLS",
  "RULE_FORMATS",
  "ResolvedAgentsSchema",
  "RuleFormatSchema",
  "SESSION_STATE_VERSION",
  "SessionStateSchema",
  "StateError",
  "SystemReminderTypeSchema",
  "agentsRemoved",
  "agentsResolvePaths",
  "agentsUpdated",
  "agentsUpdatedInline",
  "asyncFileSystem",
  "buildCompactionContext",
  "codeliaRenderer",
  "codexRenderer",
  "configJsonSchema",
  "createSession",
  "estimateTokens",
  "findProjectRoot",
  "formatIssues",
  "getPreset",
  "getRenderer",
  "loadConfigFile",
  "nodeFileSystem",
  "parseConfig",
  "parseSessionState",
  "presetNames",
  "quote",
  "resolveConfig",
  "restoreSession",
  "sessionResumeDiff",
  "systemReminder",
  "unquote",
];

describe("public API of agentsmd", () => {
  it("exports exactly the chosen names", () => {
    expect(Object.keys(api).sort()).toEqual([...ROOT_EXPORTS].sort());
  });

  it("keeps internals out of the root", () => {
    for (const internal of [
      "StatCache",
      "withLock",
      "readStateFile",
      "writeStateFile",
      "countingFileSystem",
      "registerPreset",
      "registerRenderer",
      "ABSENT_CODES",
    ]) {
      expect(api).not.toHaveProperty(internal);
    }
  });

  it("pins the types of the core calls", () => {
    expectTypeOf(api.createSession).parameters.toEqualTypeOf<[options?: SessionOptions]>();
    expectTypeOf(api.createSession).returns.resolves.toEqualTypeOf<AgentsSession>();
    expectTypeOf<AgentsSession["resolve"]>().returns.resolves.toEqualTypeOf<ResolvedAgents>();
    expectTypeOf<AgentsSession["touch"]>().returns.resolves.toEqualTypeOf<InlineBlock[]>();
    expectTypeOf<AgentsSession["snapshot"]>().returns.toEqualTypeOf<SessionState>();
    expectTypeOf<AgentsSession["initialMessage"]>().toEqualTypeOf<string>();
    expectTypeOf<ResolvedAgents["files"][number]>().toEqualTypeOf<{ path: string; mtimeMs: number; sizeBytes: number }>();
    expectTypeOf(api.restoreSession).returns.resolves.toHaveProperty("session").toEqualTypeOf<AgentsSession>();
    expectTypeOf(api.PROMPT_GUIDANCE).toEqualTypeOf<string>();
    expectTypeOf(api.quote).toEqualTypeOf<(name: string) => string>();
    expectTypeOf<WatchOptions>().not.toBeAny();
  });
});
