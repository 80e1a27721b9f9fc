/**
 * Make sure a pinned peer CLI is installed in its own e2e folder (`e2e/<name>/node_modules`),
 * never as a dependency of agentsmd itself.
 *
 * Each folder has a `package.json` pinning the exact version and a committed `package-lock.json`;
 * CI installs with `npm ci --prefix e2e/<name>`. When the package is missing or at another
 * version, `ensureInstalled` runs that same command once (set `AGENTSMD_E2E_NO_INSTALL=1` to
 * fail instead, e.g. on an offline machine).
 *
 * Example:
 * ```ts
 * const pkgDir = await ensureInstalled({ folder: "codex", pkg: "@openai/codex", version: "0.169.0" });
 * // pkgDir = <repo>/e2e/codex/node_modules/@openai/codex
 * ```
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "./exec.js";

/** Absolute path of the repository root. */
export const REPO_ROOT: string = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Absolute path of the `e2e` folder. */
const E2E_ROOT: string = path.join(REPO_ROOT, "e2e");

export interface EnsureInstalledOptions {
  /** Folder under `e2e/` holding the pinned package.json + lockfile, e.g. `"codex"`. */
  folder: string;
  /** npm package name, e.g. `"@openai/codex"`. */
  pkg: string;
  /** Exact version expected in node_modules. */
  version: string;
}

async function installedVersion(pkgDir: string): Promise<string | undefined> {
  try {
    const json = JSON.parse(await readFile(path.join(pkgDir, "package.json"), "utf8")) as { version?: unknown };
    return typeof json.version === "string" ? json.version : undefined;
  } catch {
    return undefined;
  }
}

const inFlight = new Map<string, Promise<string>>();

/** Returns the absolute directory of the installed package, installing it first if needed. */
export function ensureInstalled(options: EnsureInstalledOptions): Promise<string> {
  const key = `${options.folder}\0${options.pkg}\0${options.version}`;
  let p = inFlight.get(key);
  if (!p) {
    p = doEnsure(options);
    inFlight.set(key, p);
    p.catch(() => inFlight.delete(key));
  }
  return p;
}

async function doEnsure({ folder, pkg, version }: EnsureInstalledOptions): Promise<string> {
  const prefix = path.join(E2E_ROOT, folder);
  const pkgDir = path.join(prefix, "node_modules", ...pkg.split("/"));
  const found = await installedVersion(pkgDir);
  if (found === version) return pkgDir;
  const command = `npm ci --prefix ${path.relative(REPO_ROOT, prefix)}`;
  if (process.env.AGENTSMD_E2E_NO_INSTALL === "1") {
    throw new Error(`${pkg}@${version} is not installed in ${prefix} (found: ${found ?? "nothing"}). ` + `Run \`${command}\` from ${REPO_ROOT}.`);
  }
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = await run(npm, ["ci", "--prefix", prefix, "--no-audit", "--no-fund"], {
    cwd: REPO_ROOT,
    timeoutMs: 15 * 60_000,
  });
  const after = await installedVersion(pkgDir);
  if (r.code !== 0 || after !== version) {
    throw new Error(`\`${command}\` failed (exit ${r.code}); ${pkg} is at ${after ?? "nothing"}, expected ${version}.\n` + r.stderr.toString().slice(-4000));
  }
  return pkgDir;
}
