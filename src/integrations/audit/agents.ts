/**
 * The agents whose session logs the audit reads, until the host registry carries a `sessionLog`
 * slot: name -> reader (loaded on first use), the preset of what the agent loads itself, the
 * preset agentsmd's delivery runs, and the install command that fixes a miss.
 */
import type { SessionLogReader } from "./log-event.js";

export interface AuditAgent {
  name: string;
  displayName: string;
  /** Preset of what the agent loads itself. */
  agentPreset: string;
  /** Preset agentsmd delivers with for this agent (undefined: agentsmd's default). */
  deliveryPreset: string | undefined;
  /** Whether the agent itself delivers the files its preset loads on touch (nested files). */
  agentTouches: boolean;
  /** The command that installs agentsmd for the agent. */
  install: string;
  load(): Promise<SessionLogReader>;
}

export const AUDIT_AGENTS: readonly AuditAgent[] = [
  {
    name: "claude-code",
    displayName: "Claude Code",
    agentPreset: "claude",
    deliveryPreset: undefined,
    agentTouches: true,
    install: "agentsmd install claude-code",
    load: () => import("../claude-code/session-log.js").then((m) => m.claudeCodeSessionLog),
  },
  {
    name: "codex",
    displayName: "Codex",
    agentPreset: "codex",
    deliveryPreset: "codex",
    agentTouches: false,
    install: "agentsmd install codex --trust",
    load: () => import("../codex/session-log.js").then((m) => m.codexSessionLog),
  },
];

/** The agent named `name`, or undefined. */
export function auditAgent(name: string): AuditAgent | undefined {
  return AUDIT_AGENTS.find((agent) => agent.name === name);
}
