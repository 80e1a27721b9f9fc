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
};
