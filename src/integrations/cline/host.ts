/** Cline CLI: a hook file of agentsmd's own in ~/.cline/hooks (`install cline`). */
import type { HostDefinition } from "../host/definition.js";
import { clineDir } from "../../presets/cline.js";

export const clineHost: HostDefinition = {
  id: "cline",
  name: "Cline",
  bin: "cline",
  configDir: clineDir,
  preset: "cline",
  nativeRuleFormats: [],
  hook: {
    description: "Cline hook for PostToolUse (install with `agentsmd install cline`)",
    load: () => import("./profile.js").then((module) => module.runClineHook),
  },
  install: {
    summary: "a hook file of its own, PostToolUse.sh, in ~/.cline/hooks",
    scopes: ["user", "project"],
    files: { user: "~/.cline/hooks/PostToolUse.sh", project: "<cwd>/.clinerules/hooks/PostToolUse.sh" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.clineInstaller),
  },
  doctor: { rootEntries: [".clinerules"] },
  sessionLog: {
    hostTouches: false,
    fix: "agentsmd install cline",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.clineSessionLog),
  },
};
