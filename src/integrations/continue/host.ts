/** Continue CLI (`cn`): agentsmd's MCP server in its config.yaml (`install continue`); cn 1.5.47 runs no hooks. */
import type { HostDefinition } from "../host/definition.js";
import { continueHome } from "../../presets/continue.js";

export const continueHost: HostDefinition = {
  id: "continue",
  name: "Continue CLI",
  bin: "cn",
  configDir: (home, env) => continueHome(home, env),
  preset: "continue",
  // cn 1.5.47 applies only the always-apply rules of .continue/rules, never a globs or regex one: agentsmd delivers those.
  nativeRuleFormats: [],
  install: {
    summary: "an MCP server in ~/.continue/config.yaml",
    scopes: ["user"],
    files: { user: "~/.continue/config.yaml (or --config-file)" },
    options: [
      {
        name: "configFile",
        flags: "--config-file <path>",
        description: "the Continue config.yaml to add the MCP server to (the one you run `cn --config` with; default ~/.continue/config.yaml)",
        path: true,
      },
    ],
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.continueInstaller),
  },
  doctor: { rootEntries: [".continue"] },
  // cn tells the MCP server of no resume or compaction: its session file does (session-read.ts).
  mcp: {
    load: (importAt) => importAt<typeof import("./session-read.js")>(import.meta.url, "./session-read.js").then((module) => module.continueHistory),
  },
};
