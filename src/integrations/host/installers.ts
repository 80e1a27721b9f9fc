/**
 * The install code of a host, loaded on use: the one place that imports a host's `installer.js`
 * by URL (host/definition.ts `ImportAt`). The CLI, setup and doctor reach a host's installer here;
 * the hook process never does.
 */
import type { HostDefinition, HostInstaller } from "./definition.js";

/** `import()` of `path` relative to `base` (a definition's `import.meta.url`). */
export function importAt<T>(base: string, path: string): Promise<T> {
  return import(new URL(path, base).href) as Promise<T>;
}

/**
 * The installer of `host`, or null for a host agentsmd installs nothing into.
 */
export async function installerOf(host: HostDefinition): Promise<HostInstaller | null> {
  return host.install ? host.install.load(importAt) : null;
}
