/** GitHub Copilot CLI: a hooks file of agentsmd's own (`install copilot`). */
import type { HostDefinition } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { copilotHome } from "../../presets/copilot.js";

export const copilotHost: HostDefinition = {
  id: "copilot",
  name: "GitHub Copilot CLI",
  bin: "copilot",
  configDir: copilotHome,
  preset: "copilot",
  // Copilot CLI reads Claude Code's rules too (1.0.89).
  nativeRuleFormats: ["copilot", "claude"],
  hook: {
    description: "GitHub Copilot CLI hook for sessionStart, userPromptSubmitted, postToolUse and preCompact (install with `agentsmd install copilot`)",
    flags: [
      {
        name: "event",
        flags: "--event <event>",
        description: "the Copilot event this hook entry is registered for (Copilot's payload does not name it; inferred from its fields when absent)",
        choices: ["sessionStart", "userPromptSubmitted", "postToolUse", "preCompact"],
      },
    ],
    load: () => import("./hook.js").then((module) => module.runCopilotHook),
  },
  install: {
    summary: "a hooks file of its own in ~/.copilot/hooks",
    scopes: ["user", "project"],
    files: { user: "~/.copilot/hooks/agentsmd.json", project: "<cwd>/.github/hooks/agentsmd.json" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.copilotInstaller),
  },
  doctor: {
    names: [".github/copilot-instructions.md"],
    hookFiles: ({ root, home, env }) => [
      { dir: join(root, ".github/hooks"), scope: "project" },
      { dir: join(copilotHome(home, env), "hooks"), scope: "user" },
      // Copilot CLI also runs the project's Claude-style settings, with its own events.
      { path: join(root, ".claude/settings.json"), scope: "project", foreign: true },
    ],
    runsForeignHooks: {
      code: "copilot-runs-claude-hooks",
      fix: "run `agentsmd install copilot` so Copilot CLI gets nested AGENTS.md files through its own hook",
    },
  },
  sessionLog: {
    deliveryPreset: "copilot",
    // Copilot attaches a nested file itself only after a `view` of a file below it: not on touch.
    hostTouches: false,
    fix: "agentsmd install copilot",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.copilotSessionLog),
  },
};
