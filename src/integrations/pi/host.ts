/** pi: loads agentsmd as an extension (`agentsmd/pi`). */
import type { HostDefinition } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { piAgentDir } from "../../presets/pi.js";

export const piHost: HostDefinition = {
  id: "pi",
  name: "pi",
  bin: "pi",
  configDir: (home, env) => (env.PI_CODING_AGENT_DIR ? piAgentDir({ home, env }) : join(home, ".pi")),
  preset: "pi",
  nativeRuleFormats: [],
  plugin: { enable: () => "run `pi install npm:agentsmd` (pi reads the package's extension manifest)" },
};
