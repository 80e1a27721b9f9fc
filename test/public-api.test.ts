/**
 * The package's public API, chosen on purpose, per entry of package.json "exports" (docs/api.md
 * says what each is for). Adding or removing a name is a decision: these lists change with it.
 * Runtime names are pinned by importing each entry; type-only names by TypeScript's own view of
 * the entry module. Internals (stat cache, locks, state-file helpers, counting file system,
 * registries, the host layer's packing and targets) are not exported. The types of the core calls
 * are pinned with expectTypeOf (checked by `npm run typecheck`, which includes test/).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as api from "../src/index.js";
import type { AgentsSession, InlineBlock, ResolvedAgents, SessionOptions, SessionState, WatchOptions } from "../src/index.js";

const ROOT = join(import.meta.dirname, "..");

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

/** Each entry: its source module, its runtime names, its type-only names. */
const ENTRIES: Record<string, { src: string; bundle?: string; values: readonly string[]; types: readonly string[] }> = {
  ".": {
    src: "src/index.ts",
    values: ROOT_EXPORTS,
    types: [
      "AdmitOptions",
      "AgentsConfig",
      "CompactionContext",
      "CompactionContextOptions",
      "CompactionFile",
      "ConfigInput",
      "ConfigResult",
      "CutMode",
      "Diagnostic",
      "FileInfo",
      "FileSystem",
      "FileVersion",
      "InitialFile",
      "InlineBlock",
      "Layer",
      "LoadedVersion",
      "Preset",
      "ReadResult",
      "RefreshOptions",
      "RefreshResult",
      "RefreshedFile",
      "RenderBlock",
      "Renderer",
      "ResolvedAgents",
      "ResolvedConfig",
      "ResolvedFile",
      "RestoreOptions",
      "RootOptions",
      "RootReason",
      "RootResult",
      "RuleFormat",
      "SessionOptions",
      "SessionState",
      "SessionWatcher",
      "SystemReminderType",
      "TokenCounter",
      "UserLayer",
      "WatchOptions",
    ],
  },
  "./watch": { src: "src/session/watch.ts", values: ["watchSession"], types: ["SessionWatcher", "WatchDirectory", "WatchOptions", "WatchedSession"] },
  "./opencode": {
    src: "src/integrations/opencode/index.ts",
    bundle: "./dist/plugin/opencode.js",
    values: ["AgentsMdPlugin", "OpenCodeAgents", "OpenCodePluginOptionsSchema", "default", "defaultStateDir", "toolTargets"],
    types: ["OpenCodePluginContext", "OpenCodePluginOptions"],
  },
  "./claude-code": {
    src: "src/integrations/claude-code/index.ts",
    values: [
      "CLAUDE_CONTEXT_LIMIT",
      "CLAUDE_HOOK_EVENTS",
      "ClaudeHookInputSchema",
      "HookInputError",
      "addClaudeHooks",
      "claudeCodeProfile",
      "handleClaudeCodeHook",
      "installClaudeCode",
      "removeClaudeHooks",
      "settingsPath",
      "uninstallClaudeCode",
    ],
    types: ["AgentsMdMode", "ClaudeHookInput", "ClaudeHookOptions", "ClaudeHookOutput", "InstallResult", "InstallScope"],
  },
  "./mcp": {
    src: "src/integrations/mcp/index.ts",
    values: [
      "CONTEXT_DESCRIPTION",
      "McpResolveResultSchema",
      "McpResolvedFileSchema",
      "RESOLVE_DESCRIPTION",
      "SERVER_INSTRUCTIONS",
      "createAgentsMcpServer",
      "runMcpStdio",
    ],
    types: ["AgentsMcpOptions", "McpResolveResult"],
  },
  "./pi": {
    src: "src/integrations/pi/index.ts",
    bundle: "./dist/plugin/pi.js",
    values: [
      "PI_CUSTOM_TYPE",
      "PiAgents",
      "PiExtensionOptionsSchema",
      "PiHookInputSchema",
      "carriedFiles",
      "createPiExtension",
      "default",
      "piProfile",
      "piStateDir",
    ],
    types: ["PiDelivery", "PiExtensionAPI", "PiExtensionOptions", "PiHookInput"],
  },
  "./kilo": {
    src: "src/integrations/kilo/index.ts",
    bundle: "./dist/plugin/kilo.js",
    values: ["KiloAgents", "KiloAgentsMdPlugin", "default", "kiloToolTargets"],
    types: ["KiloPluginOptions"],
  },
};

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types: string; import: string }> };
const distOf = (src: string) => ({
  types: `./${src.replace(/^src/, "dist").replace(/\.ts$/, ".d.ts")}`,
  import: `./${src.replace(/^src/, "dist").replace(/\.ts$/, ".js")}`,
});

describe("every package entry", () => {
  it("is in this table, and points at its module's build", () => {
    const entries = Object.keys(pkg.exports).filter((key) => key !== "./package.json" && key !== "./server");
    expect(entries.sort()).toEqual(Object.keys(ENTRIES).sort());
    // A plugin entry imports its bundle (scripts/build-plugins.mjs), with tsc's types.
    for (const [entry, { src, bundle }] of Object.entries(ENTRIES))
      expect(pkg.exports[entry], entry).toEqual({ ...distOf(src), ...(bundle !== undefined ? { import: bundle } : {}) });
  });

  it("./server is ./opencode: OpenCode loads a package named in its `plugin` list from its ./server export", () => {
    // OpenCode resolves an npm plugin as exports["./server"], then exports["."], then main; without
    // this alias `{ "plugin": ["agentsmd"] }` would load the library root (docs/hosts/opencode.md).
    expect(pkg.exports["./server"]).toEqual(pkg.exports["./opencode"]);
  });

  it.each(Object.entries(ENTRIES))("%s exports exactly its chosen runtime names", async (_entry, { src, values }) => {
    const mod = (await import(join(ROOT, src))) as Record<string, unknown>;
    expect(Object.keys(mod).sort()).toEqual([...values].sort());
  });

  it("each entry exports exactly its chosen type names, and no `export *`", { timeout: 120_000 }, () => {
    const files = Object.values(ENTRIES).map(({ src }) => join(ROOT, src));
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    for (const [entry, { src, values, types }] of Object.entries(ENTRIES)) {
      const source = program.getSourceFile(join(ROOT, src))!;
      expect(
        source.statements.filter((node) => ts.isExportDeclaration(node) && !node.exportClause),
        `${entry}: export *`,
      ).toEqual([]);
      const names = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((symbol) => symbol.name);
      expect(names.sort(), entry).toEqual([...values, ...types].sort());
    }
  });
});

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
