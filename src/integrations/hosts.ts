/**
 * The hook hosts `agentsmd hook <host>` dispatches to, derived from the host registry: one entry
 * per host with a `hook`, its runner loaded only when that hook runs. A host registered later
 * (registry.ts `registerHost`) appears here too.
 */
import type { HostDefinition, HostHook } from "./host/definition.js";
import { hostById, hostDefinitions } from "./registry.js";

export type HookHostEntry = HostHook;

const entries = new WeakMap<HostDefinition, HookHostEntry>();

/**
 * A host's hook entry, its runner's sessions told the scoped-rule formats the host reads itself
 * (its definition's `nativeRuleFormats`, unless the caller's session options say otherwise).
 */
function entryOf(id: string | symbol): HookHostEntry | undefined {
  const host = typeof id === "string" ? hostById(id) : undefined;
  const hook = host?.hook;
  if (host === undefined || hook === undefined) return undefined;
  let entry = entries.get(host);
  if (entry === undefined) {
    const native = host.nativeRuleFormats;
    entry = {
      ...hook,
      load: () => hook.load().then((runner) => (text, options) => runner(text, { ...options, session: { nativeRuleFormats: native, ...options.session } })),
    };
    entries.set(host, entry);
  }
  return entry;
}

/** Host name -> entry (a live view of the registry). */
export const HOOK_HOSTS: Readonly<Record<string, HookHostEntry>> = new Proxy(
  {},
  {
    get: (_, id) => entryOf(id),
    has: (_, id) => entryOf(id) !== undefined,
    ownKeys: () => hostDefinitions().flatMap((host) => (host.hook ? [host.id] : [])),
    getOwnPropertyDescriptor: (_, id) => {
      const entry = entryOf(id);
      return entry ? { value: entry, enumerable: true, configurable: true, writable: false } : undefined;
    },
  },
);
