/** OpenCode: loads agentsmd as a plugin (`agentsmd/opencode`). */
import type { HostDefinition } from "../host/definition.js";
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
  },
  doctor: { presets: ["opencode-plugin"], rootEntries: [".opencode", "opencode.json", "opencode.jsonc"] },
};
