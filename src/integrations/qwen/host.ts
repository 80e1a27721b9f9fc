/** Qwen Code: hooks in its settings.json (`install qwen`). */
import type { HostDefinition } from "../host/definition.js";
import { CLAUDE_STYLE_GATE } from "../host/quiet-format.js";
import { qwenDir } from "../../presets/qwen.js";

export const qwenHost: HostDefinition = {
  id: "qwen",
  name: "Qwen Code",
  bin: "qwen",
  configDir: qwenDir,
  preset: "qwen",
  nativeRuleFormats: ["qwen"],
  hook: {
    description: "Qwen Code hook for SessionStart, PostToolUse and UserPromptSubmit (install with `agentsmd install qwen`)",
    load: () => import("./profile.js").then((module) => module.runQwenHook),
    quiet: { load: () => import("./quiet.js").then((module) => module.quietHost), gate: CLAUDE_STYLE_GATE },
  },
  install: {
    summary: "hooks in a Qwen Code settings.json",
    scopes: ["user", "project"],
    files: { user: "~/.qwen/settings.json", project: "<cwd>/.qwen/settings.json" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.qwenInstaller),
  },
  doctor: { names: ["QWEN.md", ".qwen/QWEN.local.md"], rootEntries: [".qwen"] },
  sessionLog: {
    hostTouches: false,
    fix: "agentsmd install qwen",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.qwenSessionLog),
  },
};
