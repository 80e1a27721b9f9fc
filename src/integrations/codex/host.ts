/** Codex: hooks in `$CODEX_HOME/hooks.json` (`install codex [--trust]`). */
import type { HostDefinition } from "../host/definition.js";
import { codexHome } from "../../presets/agent-config.js";

export const codexHost: HostDefinition = {
  id: "codex",
  name: "Codex",
  bin: "codex",
  configDir: codexHome,
  preset: "codex",
  nativeRuleFormats: [],
  hook: {
    description: "Codex hook for SessionStart, PostToolUse (shell and apply_patch) and UserPromptSubmit (install with `agentsmd install codex --trust`)",
    load: () => import("./hook.js").then((module) => module.runCodexHook),
    // The conversation is `session_id` alone (Codex has no subagent id); its state is in XDG's directory.
    quiet: { load: () => import("./quiet.js").then((module) => module.quietHost), gate: { toolEvent: '"PostToolUse"', conversation: "session_id" } },
  },
  install: {
    summary: "hooks in $CODEX_HOME/hooks.json",
    scopes: ["user"],
    files: { user: "$CODEX_HOME/hooks.json (~/.codex/hooks.json)" },
    options: [
      {
        name: "trust",
        flags: "--trust",
        description: "also record Codex's trust for exactly agentsmd's hooks (through `codex app-server` when codex is on PATH, else in config.toml)",
      },
      { name: "codexBin", flags: "--codex-bin <path>", description: "the codex executable used for --trust (default: codex on PATH)", path: true },
    ],
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.codexInstaller),
  },
  doctor: {
    names: ["AGENTS.override.md"],
    rootEntries: [".codex"],
    readAgentsMd: "Codex: project_doc_fallback_filenames in ~/.codex/config.toml",
  },
  sessionLog: {
    deliveryPreset: "codex",
    hostTouches: false,
    fix: "agentsmd install codex --trust",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.codexSessionLog),
  },
};
