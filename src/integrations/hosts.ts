/**
 * The hook hosts `agentsmd hook <host>` dispatches to: one entry per host, its module loaded only
 * when that hook runs. A new host adds one entry here (and its profile in its own folder).
 */
import type { HookRunner } from "./host/deliver.js";

/** A host-specific flag of `agentsmd hook <host>`, handed to the runner under `name`. */
interface HookFlag {
  name: string;
  /** Commander syntax, e.g. "--agents-md <mode>". */
  flags: string;
  description: string;
  /** Allowed values; another value is reported and ignored. */
  choices?: readonly string[];
}

export interface HookHostEntry {
  /** One line for `agentsmd hook --help`. */
  description: string;
  flags?: readonly HookFlag[];
  /** Loads the host's runner (a dynamic import, so other hosts' code never loads). */
  load(): Promise<HookRunner>;
}

/** Host name -> entry. */
export const HOOK_HOSTS: Readonly<Record<string, HookHostEntry>> = {
  "claude-code": {
    description: "Claude Code hook for SessionStart, PostToolUse and UserPromptSubmit (install with `agentsmd install claude-code`)",
    flags: [
      {
        name: "agentsMd",
        flags: "--agents-md <mode>",
        description: "AGENTS.md delivery: auto (skip what Claude Code loads itself), inject, native",
        choices: ["auto", "inject", "native"],
      },
    ],
    load: () => import("./claude-code/hook.js").then((module) => module.runClaudeCodeHook),
  },
  codex: {
    description: "Codex hook for SessionStart, PostToolUse (shell and apply_patch) and UserPromptSubmit (install with `agentsmd install codex --trust`)",
    load: () => import("./codex/hook.js").then((module) => module.runCodexHook),
  },
  copilot: {
    description: "GitHub Copilot CLI hook for sessionStart, userPromptSubmitted, postToolUse and preCompact (install with `agentsmd install copilot`)",
    flags: [
      {
        name: "event",
        flags: "--event <event>",
        description: "the Copilot event this hook entry is registered for (Copilot's payload does not name it; inferred from its fields when absent)",
        choices: ["sessionStart", "userPromptSubmitted", "postToolUse", "preCompact"],
      },
    ],
    load: () => import("./copilot/hook.js").then((module) => module.runCopilotHook),
  },
  gemini: {
    description: "Gemini CLI hook for SessionStart, BeforeAgent, AfterTool and PreCompress (install with `agentsmd install gemini`)",
    load: () => import("./gemini/profile.js").then((module) => module.runGeminiHook),
  },
  qwen: {
    description: "Qwen Code hook for SessionStart, PostToolUse and UserPromptSubmit (install with `agentsmd install qwen`)",
    load: () => import("./qwen/profile.js").then((module) => module.runQwenHook),
  },
};
