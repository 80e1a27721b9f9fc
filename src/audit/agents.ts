/**
 * The agents whose session logs the audit reads: every registered host with a `sessionLog` slot
 * and a preset of what it loads itself (host/definition.ts). No host is named here.
 */
import { hostById, hostDefinitions } from "../integrations/registry.js";
import { importAt } from "../integrations/host/installers.js";
import type { HostDefinition, HostSessionLog } from "../integrations/host/definition.js";
import type { SessionLogReader } from "../integrations/host/log-event.js";

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

function agentOf(host: HostDefinition): AuditAgent | undefined {
  const log: HostSessionLog | undefined = host.sessionLog;
  if (log === undefined || host.preset === undefined) return undefined;
  return {
    name: host.id,
    displayName: host.name,
    agentPreset: host.preset,
    deliveryPreset: log.deliveryPreset,
    agentTouches: log.hostTouches,
    install: log.fix,
    load: () => log.load(importAt),
  };
}

/** Every agent the audit reads, in registry order. */
export function auditAgents(): AuditAgent[] {
  return hostDefinitions().flatMap((host) => agentOf(host) ?? []);
}

/** The agent named `name`, or undefined. */
export function auditAgent(name: string): AuditAgent | undefined {
  const host = hostById(name);
  return host === undefined ? undefined : agentOf(host);
}
