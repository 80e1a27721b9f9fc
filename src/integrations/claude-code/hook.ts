/**
 * The runner of `agentsmd hook claude-code`: loads only the profile and the host layer (not the
 * installer or the package's other exports).
 */
import { hookRunner } from "../host/deliver.js";
import { claudeCodeProfile, type AgentsMdMode } from "./profile.js";

function mode(value: string | undefined): AgentsMdMode | undefined {
  return value === "auto" || value === "inject" || value === "native" ? value : undefined;
}

export const runClaudeCodeHook = hookRunner((flags) => claudeCodeProfile({ agentsMd: mode(flags.agentsMd) }));
