/** Kilo Code: loads agentsmd as a plugin (`agentsmd/kilo`). */
import type { HostDefinition } from "../host/definition.js";
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
  },
  // Kilo Code attaches a nested AGENTS.md to a read's result itself; the audit reads its session database.
  sessionLog: {
    hostTouches: true,
    fix: 'npm install -D agentsmd, then .kilo/plugins/agentsmd.js: export { default } from "agentsmd/kilo";',
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.kiloSessionLog),
  },
};
