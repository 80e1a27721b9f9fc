/**
 * The config schema built key by key (core/config-schema.ts): `safeParseConfig` must answer as the
 * whole schema does (same data, same issues), for valid and invalid configs alike; a config
 * agentsmd builds itself (`builtInConfig`) is valid, frozen and returned as is.
 */
import { describe, expect, it } from "vitest";
import { AgentsConfigSchema, formatIssues } from "../src/core/schema.js";
import { safeParseConfig } from "../src/core/config-schema.js";
import { builtInConfig, configFromEnv, parseConfig } from "../src/load/config.js";
import { HOOK_CONFIG } from "../src/integrations/host/deliver.js";

class Options {
  lazy = { maxFiles: 1 };
}

const SAMPLES: unknown[] = [
  {},
  { lazy: { maxFiles: 10_000, maxBytes: 16 * 1024 * 1024 } },
  { preset: "claude", enabled: true, agentConfig: false },
  { root: { markers: [".git", ".hg"], stopAtFsRoot: false, projectRootOverride: "/r" }, initial: { maxFiles: 2, maxBytes: 10 } },
  { files: { names: ["AGENTS.md"], select: "all", symlinks: "follow" }, cache: { revalidateMs: 0 } },
  { imports: { enabled: true, allow: ["~/x", "/y"] }, rules: { formats: ["cursor"] }, opencode: { instructions: ["a.md"] } },
  { codex: { project_doc_max_bytes: 1, project_doc_fallback_filenames: ["X.md"], project_root_markers: [] } },
  { presets: { gemini: { files: { names: ["GEMINI.md"] } } }, lazy: undefined },
  // invalid: each must fail with the whole schema's issues
  { lazy: { maxFiles: -1 } },
  { root: { markers: ["../up"] } },
  { files: { names: [] } },
  { typo: 1 },
  { lazy: { maxFiles: 1 }, typo: 1 },
  { presets: { gemini: { preset: "x" } } },
  { imports: { allow: ["relative"] } },
  { rules: { formats: ["nope"] } },
  { enabled: "yes" },
  null,
  [],
  "config",
  new Options(),
  Object.assign(Object.create(null) as object, { lazy: { maxFiles: 3 } }),
];

describe("config schema built key by key", () => {
  it("safeParseConfig gives the whole schema's answer: the same data, or the same issues", () => {
    for (const sample of SAMPLES) {
      const whole = AgentsConfigSchema.safeParse(sample);
      const keyed = safeParseConfig(sample);
      expect(keyed.success, JSON.stringify(sample)).toBe(whole.success);
      if (whole.success && keyed.success) expect(keyed.data).toEqual(whole.data);
      if (!whole.success && !keyed.success) expect(formatIssues(keyed.error)).toBe(formatIssues(whole.error));
    }
  });

  it("parseConfig and configFromEnv keep their messages", () => {
    expect(() => parseConfig({ lazy: { maxFiles: -1 } }, "options")).toThrow("invalid config in options:\nlazy.maxFiles: Too small: expected number to be >0");
    expect(configFromEnv({})).toEqual({});
    expect(() => configFromEnv({ AGENTSMD_MARKERS: "../x" })).toThrow(`AGENTSMD_MARKERS="../x": a marker cannot contain '..'`);
  });

  it("the hook's own config is valid, frozen, and not parsed again", () => {
    expect(AgentsConfigSchema.safeParse(HOOK_CONFIG).success).toBe(true);
    expect(parseConfig(HOOK_CONFIG, "options")).toBe(HOOK_CONFIG);
    expect(Object.isFrozen(HOOK_CONFIG) && Object.isFrozen(HOOK_CONFIG.lazy)).toBe(true);
    // an equal config the caller made is validated as before
    const own = { lazy: { ...HOOK_CONFIG.lazy } };
    expect(parseConfig(own, "options")).not.toBe(own);
    const built = builtInConfig({ initial: { maxFiles: 3 } });
    expect(() => ((built.initial as { maxFiles: number }).maxFiles = -1)).toThrow(TypeError);
  });
});
