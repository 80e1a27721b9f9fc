/** Gemini CLI: an extension folder (user scope) or the project's settings (`install gemini`). */
import type { HostDefinition } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { geminiDir } from "../../presets/gemini.js";

export const geminiHost: HostDefinition = {
  id: "gemini",
  name: "Gemini CLI",
  bin: "gemini",
  configDir: geminiDir,
  preset: "gemini",
  nativeRuleFormats: [],
  hook: {
    description: "Gemini CLI hook for SessionStart, BeforeAgent, AfterTool and PreCompress (install with `agentsmd install gemini`)",
    load: () => import("./profile.js").then((module) => module.runGeminiHook),
    // Its tool event is AfterTool; the conversation is `session_id` alone (quiet.ts).
    quiet: { load: () => import("./quiet.js").then((module) => module.quietHost), gate: { toolEvent: '"AfterTool"', conversation: "session_id" } },
  },
  install: {
    summary: "a Gemini CLI extension",
    scopes: ["user", "project"],
    files: { user: "~/.gemini/extensions/agentsmd/", project: "<cwd>/.gemini/settings.json" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.geminiInstaller),
  },
  doctor: {
    names: ["GEMINI.md"],
    rootEntries: [".gemini"],
    readAgentsMd: `Gemini CLI: set context.fileName to ["GEMINI.md", "AGENTS.md"] in ~/.gemini/settings.json (or the project's .gemini/settings.json)`,
    timeoutMs: true,
    hookFiles: ({ root, home }) => [
      { path: join(root, ".gemini/settings.json"), scope: "project" },
      { path: join(home, ".gemini/settings.json"), scope: "user" },
    ],
  },
  sessionLog: {
    hostTouches: true,
    fix: "agentsmd install gemini",
    load: (importAt) => importAt<typeof import("./session-log.js")>(import.meta.url, "./session-log.js").then((module) => module.geminiSessionLog),
  },
};
