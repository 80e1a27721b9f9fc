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
  // OpenCode attaches a nested AGENTS.md to a read's result itself; the audit reads its session database.
  sessionLog: {
    hostTouches: true,
    fix: 'add "plugin": ["agentsmd"] to opencode.json',
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.opencodeSessionLog),
  },
};
