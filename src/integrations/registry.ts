/**
 * The host registry: every host agentsmd serves, one definition each (`<host>/host.ts`, see
 * host/definition.ts). The CLI, doctor, explain, tree and the rules layer iterate it; adding a
 * host is its folder and one line here.
 */
import type { HostDefinition } from "./host/definition.js";
import { ampHost } from "./amp/host.js";
import { auggieHost } from "./auggie/host.js";
import { claudeCodeHost } from "./claude-code/host.js";
import { clineHost } from "./cline/host.js";
import { continueHost } from "./continue/host.js";
import { crushHost } from "./crush/host.js";
import { droidHost } from "./droid/host.js";
import { codexHost } from "./codex/host.js";
import { copilotHost } from "./copilot/host.js";
import { geminiHost } from "./gemini/host.js";
import { kiloHost } from "./kilo/host.js";
import { mcpHost } from "./mcp/host.js";
import { opencodeHost } from "./opencode/host.js";
import { piHost } from "./pi/host.js";
import { qwenHost } from "./qwen/host.js";

export type { HostDefinition };

/** In setup's order: hook hosts, then plugin hosts, then MCP. */
const BUILT_IN: readonly HostDefinition[] = [
  claudeCodeHost,
  codexHost,
  geminiHost,
  copilotHost,
  qwenHost,
  clineHost,
  droidHost,
  auggieHost,
  crushHost,
  continueHost,
  opencodeHost,
  kiloHost,
  piHost,
  ampHost,
  mcpHost,
];

const hosts: HostDefinition[] = [...BUILT_IN];

/**
 * Every registered host, in registry order.
 */
export function hostDefinitions(): readonly HostDefinition[] {
  return hosts;
}

/**
 * The host with this id, or undefined.
 */
export function hostById(id: string): HostDefinition | undefined {
  return hosts.find((host) => host.id === id);
}

/** Hosts with hooks agentsmd installs (`agentsmd install <host>`). */
export function installableHosts(): Array<HostDefinition & { install: NonNullable<HostDefinition["install"]> }> {
  return hosts.filter((host): host is HostDefinition & { install: NonNullable<HostDefinition["install"]> } => host.install !== undefined);
}

/** Hosts setup detects: an executable or a configuration directory. */
export function detectableHosts(): HostDefinition[] {
  return hosts.filter((host) => host.bin !== undefined && host.configDir !== undefined);
}

/**
 * Adds a caller's own host (an embedder's, or a test's) after the built-in ones; the returned
 * function takes it out again. An id already registered is refused.
 */
export function registerHost(definition: HostDefinition): () => void {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.id)) throw new Error(`host id ${JSON.stringify(definition.id)}: use lowercase letters, digits and dashes`);
  if (hostById(definition.id)) throw new Error(`host ${JSON.stringify(definition.id)} is already registered`);
  hosts.push(definition);
  return () => {
    const at = hosts.indexOf(definition);
    if (at >= 0) hosts.splice(at, 1);
  };
}
