/** Kilo Code: loads agentsmd as a plugin (`agentsmd/kilo`). */
import type { HostDefinition, PluginCheck } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { kiloConfigDir } from "../../presets/kilo.js";

export const kiloHost: HostDefinition = {
  id: "kilo",
  name: "Kilo Code",
  bin: "kilo",
  configDir: (home, env) => kiloConfigDir({ home, env }),
  preset: "kilo",
  nativeRuleFormats: [],
  plugin: {
    enable: () => 'in each project: `npm install -D agentsmd`, then a file .kilo/plugins/agentsmd.js holding: export { default } from "agentsmd/kilo";',
    // Kilo, as OpenCode, loads `{plugin,plugins}/*.{ts,js}` of its global config directory in every project.
    file: {
      path: (home, env) => join(kiloConfigDir({ home, env }), "plugins/agentsmd.js"),
      entry: "dist/plugin/kilo.js",
      specifier: "url",
      event: "tool.execute.after read",
      check: (importAt) => importAt<{ check: PluginCheck }>(import.meta.url, "../host/family-plugin-check.js").then((m) => m.check),
    },
  },
  // Kilo Code attaches a nested AGENTS.md to a read's result itself; the audit reads its session database.
  sessionLog: {
    hostTouches: true,
    fix: "agentsmd setup kilo",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.kiloSessionLog),
  },
};
