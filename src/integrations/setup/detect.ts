/**
 * Which agents are on this machine, for `agentsmd setup`: each registered host with an executable
 * and a configuration directory (its definition's `bin` and `configDir`). Detection reads PATH
 * and stats directories; it changes nothing.
 */
import { delimiter } from "node:path";
import { join } from "../../core/paths.js";
import { nodeFileSystem, type FileSystem } from "../../io/file-system.js";
import type { Env } from "../host/definition.js";
import { detectableHosts } from "../registry.js";

/** What detection found for one agent. */
export interface Detected {
  id: string;
  name: string;
  /** The executable found on PATH, or null. */
  binary: string | null;
  configDir: string;
  configDirExists: boolean;
  /** Found: the executable or the configuration directory. */
  found: boolean;
}

/**
 * The first executable file called `name` in `env.PATH`, or null.
 */
export async function findOnPath(name: string, env: Env, fs: FileSystem = nodeFileSystem): Promise<string | null> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir.startsWith("/")) continue; // a relative PATH entry would depend on the cwd
    const candidate = join(dir, name);
    const info = await fs.stat(candidate).catch(() => null);
    if (info?.kind === "file" && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
  }
  return null;
}

/**
 * Which agents are on this machine: an executable on PATH or a configuration directory in the home.
 */
export async function detectAgents(options: { home: string; env: Env; fs?: FileSystem }): Promise<Detected[]> {
  const fs = options.fs ?? nodeFileSystem;
  return Promise.all(
    detectableHosts().map(async (host) => {
      const binary = await findOnPath(host.bin!, options.env, fs);
      const configDir = host.configDir!(options.home, options.env);
      const configDirExists = (await fs.stat(configDir).catch(() => null))?.kind === "directory";
      return { id: host.id, name: host.name, binary, configDir, configDirExists, found: binary !== null || configDirExists };
    }),
  );
}
