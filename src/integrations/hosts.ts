/**
 * The hook hosts `agentsmd hook <host>` dispatches to, derived from the host registry: one entry
 * per host with a `hook`, its runner loaded only when that hook runs. A host registered later
 * (registry.ts `registerHost`) appears here too.
 */
import type { HookFlag, HostHook } from "./host/definition.js";
import { hostById, hostDefinitions } from "./registry.js";

export type { HookFlag };

export type HookHostEntry = HostHook;

function entryOf(id: string | symbol): HookHostEntry | undefined {
  return typeof id === "string" ? hostById(id)?.hook : undefined;
}

/** Host name -> entry (a live view of the registry). */
export const HOOK_HOSTS: Readonly<Record<string, HookHostEntry>> = new Proxy({} as Record<string, HookHostEntry>, {
  get: (_, id) => entryOf(id),
  has: (_, id) => entryOf(id) !== undefined,
  ownKeys: () => hostDefinitions().flatMap((host) => (host.hook ? [host.id] : [])),
  getOwnPropertyDescriptor: (_, id) => {
    const entry = entryOf(id);
    return entry ? { value: entry, enumerable: true, configurable: true, writable: false } : undefined;
  },
});
