/** Claude Code: hooks in its settings.json (`install claude-code`), or the plugin folder. */
import type { HostDefinition } from "../host/definition.js";
import { CLAUDE_STYLE_GATE } from "../host/quiet-format.js";
import { join } from "../../core/paths.js";
import { claudeConfigDir } from "../../presets/claude.js";

export const claudeCodeHost: HostDefinition = {
  id: "claude-code",
  name: "Claude Code",
  bin: "claude",
  configDir: claudeConfigDir,
  preset: "claude",
  nativeRuleFormats: ["claude"],
  hook: {
    description: "Claude Code hook for SessionStart, PostToolUse and UserPromptSubmit (install with `agentsmd install claude-code`)",
    flags: [
      {
        name: "agentsMd",
        flags: "--agents-md <mode>",
        description: "AGENTS.md delivery: auto (skip what Claude Code loads itself), inject, native",
        choices: ["auto", "inject", "native"],
      },
    ],
    load: () => import("./hook.js").then((module) => module.runClaudeCodeHook),
    quiet: {
      load: () => import("./quiet.js").then((module) => module.quietHost),
      // Its state in the plugin's data when Claude Code names it (tools.ts `pluginDataDir`).
      gate: { ...CLAUDE_STYLE_GATE, stateEnv: { name: "CLAUDE_PLUGIN_DATA", folder: "sessions" } },
    },
  },
  install: {
    summary: "hook entries in a Claude Code settings.json",
    scopes: ["user", "project", "local"],
    files: { user: "~/.claude/settings.json", project: "<cwd>/.claude/settings.json", local: "<cwd>/.claude/settings.local.json" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.claudeCodeInstaller),
  },
  doctor: {
    names: ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"],
    rootEntries: [".claude"],
    hookFiles: ({ root, home, env }) => [
      { path: join(root, ".claude/settings.json"), scope: "project" },
      { path: join(root, ".claude/settings.local.json"), scope: "project" },
      { path: join(claudeConfigDir(home, env), "settings.json"), scope: "user" },
    ],
    projectOnly: {
      code: "claude-hooks-project-only",
      reason: "Claude Code (2.1.328 and later) started in a subdirectory does not read that file",
      pluginKey: "enabledPlugins",
      fix: "run `agentsmd install claude-code` (user scope, works from every directory) or load the plugin folder (`claude --plugin-dir <agentsmd>/claude-plugin`)",
    },
  },
  sessionLog: {
    hostTouches: true,
    fix: "agentsmd install claude-code",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.claudeCodeSessionLog),
  },
};
