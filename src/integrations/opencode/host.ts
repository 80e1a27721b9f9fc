/** OpenCode: loads agentsmd as a plugin (`agentsmd/opencode`). */
import type { HostDefinition, PluginCheck } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { opencodeConfigDir } from "../../presets/opencode.js";

export const opencodeHost: HostDefinition = {
  id: "opencode",
  name: "OpenCode",
  bin: "opencode",
  configDir: (home, env) => opencodeConfigDir({ home, env }),
  preset: "opencode",
  nativeRuleFormats: [],
  plugin: {
    enable: (home, env) => `add "plugin": ["agentsmd"] to ${join(opencodeConfigDir({ home, env }), "opencode.json")} (OpenCode installs the package itself)`,
    // OpenCode loads `{plugin,plugins}/*.{ts,js}` of its global config directory in every project.
    file: {
      path: (home, env) => join(opencodeConfigDir({ home, env }), "plugin/agentsmd.js"),
      entry: "dist/plugin/opencode.js",
      specifier: "url",
      event: "tool.execute.after read",
      check: (importAt) => importAt<{ check: PluginCheck }>(import.meta.url, "../host/family-plugin-check.js").then((m) => m.check),
    },
  },
  doctor: { presets: ["opencode-plugin"], rootEntries: [".opencode", "opencode.json", "opencode.jsonc"] },
  // OpenCode attaches a nested AGENTS.md to a read's result itself; the audit reads its session database.
  sessionLog: {
    hostTouches: true,
    fix: "agentsmd setup opencode",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.opencodeSessionLog),
  },
};
