/** pi: loads agentsmd as an extension (`agentsmd/pi`). */
import type { HostDefinition, PluginCheck } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { piAgentDir } from "../../presets/pi.js";

export const piHost: HostDefinition = {
  id: "pi",
  name: "pi",
  bin: "pi",
  configDir: (home, env) => (env.PI_CODING_AGENT_DIR ? piAgentDir({ home, env }) : join(home, ".pi")),
  preset: "pi",
  nativeRuleFormats: [],
  plugin: {
    enable: () => "run `pi install npm:agentsmd` (pi reads the package's extension manifest)",
    // The user's extensions directory: pi loads a project's `.pi/extensions/` only once the project is trusted.
    file: {
      path: (home, env) => join(piAgentDir({ home, env }), "extensions/agentsmd.js"),
      entry: "dist/plugin/pi.js",
      specifier: "path",
      event: "tool_result read",
      check: (importAt) => importAt<{ check: PluginCheck }>(import.meta.url, "./plugin-check.js").then((m) => m.check),
    },
  },
  sessionLog: {
    // No deliveryPreset: pi's own has no root marker (its root is `/`), and the audit's project,
    // what it confines paths to, is found by agentsmd's default markers (the repository).
    // pi loads its chain at startup only: nested files are agentsmd's.
    hostTouches: false,
    fix: "agentsmd setup pi",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.piSessionLog),
  },
};
