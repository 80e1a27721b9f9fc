/** Crush (Charm): hooks in its crush.json (`install crush`); built from its source, not run (docs/hosts/crush.md). */
import { join } from "../../core/paths.js";
import type { HostDefinition } from "../host/definition.js";
import { crushConfigDir } from "../../presets/crush.js";

export const crushHost: HostDefinition = {
  id: "crush",
  name: "Crush",
  bin: "crush",
  configDir: (home, env) => crushConfigDir(home, env),
  preset: "crush",
  nativeRuleFormats: [],
  hook: {
    description: "Crush hook for PreToolUse and PostCompact (install with `agentsmd install crush`)",
    load: () => import("./hook.js").then((module) => module.runCrushHook),
    // quiet.ts's spelling: the PreToolUse agentsmd registers, `session_id`; state in XDG's directory.
    quiet: { load: () => import("./quiet.js").then((module) => module.quietHost), gate: { toolEvent: '"PreToolUse"', conversation: "session_id" } },
  },
  install: {
    summary: "PreToolUse and PostCompact hooks in a Crush crush.json",
    scopes: ["user", "project"],
    files: { user: "~/.config/crush/crush.json", project: "<cwd>/crush.json (or .crush.json)" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.crushInstaller),
  },
  doctor: {
    names: ["CRUSH.md"],
    rootEntries: ["crush.json", ".crush.json", ".crush"],
    hookFiles: ({ root, home, env }) => [
      { path: join(root, "crush.json"), scope: "project" },
      { path: join(root, ".crush.json"), scope: "project" },
      { path: join(crushConfigDir(home, env), "crush.json"), scope: "user" },
    ],
  },
};
