/** Factory Droid: hooks in its settings.json (`install droid`). */
import type { HostDefinition } from "../host/definition.js";
import { factoryDir } from "../../presets/droid.js";

export const droidHost: HostDefinition = {
  id: "droid",
  name: "Factory Droid",
  bin: "droid",
  configDir: (home) => factoryDir(home),
  preset: "droid",
  nativeRuleFormats: [],
  hook: {
    description: "Factory Droid hook for SessionStart, PostToolUse and UserPromptSubmit (install with `agentsmd install droid`)",
    load: () => import("./profile.js").then((module) => module.runDroidHook),
  },
  install: {
    summary: "hooks in a Factory Droid settings.json",
    scopes: ["user", "project"],
    files: { user: "~/.factory/settings.json", project: "<cwd>/.factory/settings.json" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.droidInstaller),
  },
  doctor: { rootEntries: [".factory"] },
  sessionLog: {
    // Droid attaches the nested files of a path its Read or LS touched itself.
    hostTouches: true,
    fix: "agentsmd install droid",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.droidSessionLog),
  },
};
