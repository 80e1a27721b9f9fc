/**
 * Project root estimation (docs/loading-rules.md#the-project-root): override, else the nearest ancestor holding a marker,
 * else cwd.
 */
import type { FileSystem } from "../io/file-system.js";
import type { Diagnostic } from "../core/schema.js";
import { ancestors, isInside, join } from "../core/paths.js";
import { ConfigError } from "../core/errors.js";
import { plantedFile, plantedMessage } from "../io/real-path.js";

/** How the root was found: the config's override, a marker, none (cwd), or the preset's own root (Claude Code has none: `/`). */
export type RootReason = "override" | "marker" | "no-marker" | "preset";

export interface RootResult {
  root: string;
  reason: RootReason;
  /** The marker path that decided the root (reason "marker"). */
  marker?: string;
  diagnostics: Diagnostic[];
}

export interface RootOptions {
  cwd: string;
  markers: readonly string[];
  projectRootOverride?: string | undefined;
  /** false: the walk stops below `home` (home itself is not searched). */
  stopAtFsRoot: boolean;
  home: string;
  fs: FileSystem;
}

/**
 * Finds the project root for `cwd`.
 * @example
 * const { root, reason } = await findProjectRoot({ cwd: "/repo/pkg", markers: [".git"], stopAtFsRoot: true, home: "/home/me", fs: nodeFileSystem });
 */
export async function findProjectRoot(options: RootOptions): Promise<RootResult> {
  const diagnostics: Diagnostic[] = [];
  const { cwd, fs } = options;
  if (options.projectRootOverride !== undefined) {
    const root = options.projectRootOverride;
    const info = await fs.stat(root).catch(() => null);
    if (!info || info.kind !== "directory") {
      throw new ConfigError(`root.projectRootOverride: ${root} is not an existing directory`, {
        path: root,
        fix: "point root.projectRootOverride (or CODELIA_AGENTS_ROOT / AGENTSMD_ROOT / --root) at an existing directory",
      });
    }
    if (!isInside(cwd, root)) {
      diagnostics.push({
        level: "warning",
        code: "root-not-ancestor",
        message: `the root override ${root} is not an ancestor of cwd ${cwd}: only files in the root itself are loaded initially`,
        path: root,
      });
    }
    return { root, reason: "override", diagnostics };
  }
  const dirs = searchDirs(cwd, options);
  if (options.markers.length > 0 && dirs.length > 0) {
    // Nearest first, stopping at the first hit: with the default (synchronous) metadata calls this
    // is the fewest stats and the shortest time (measured in the bench's initial-load case).
    for (const dir of dirs) {
      const marker = await firstMarker(dir, options.markers, fs, diagnostics);
      if (marker) return { root: dir, reason: "marker", marker, diagnostics };
    }
  }
  return { root: cwd, reason: "no-marker", diagnostics };
}

/** The directories searched for markers, nearest first. */
function searchDirs(cwd: string, options: RootOptions): string[] {
  const all = ancestors(cwd);
  if (options.stopAtFsRoot || !isInside(cwd, options.home)) return all;
  // Stop below home: home itself (and anything above it) is not searched.
  return all.filter((dir) => dir !== options.home && isInside(dir, options.home));
}

async function firstMarker(dir: string, markers: readonly string[], fs: FileSystem, diagnostics: Diagnostic[]): Promise<string | undefined> {
  const known = fs.knownEntries?.(dir);
  for (const marker of markers) {
    if (known && !known.has(marker.split("/")[0]!)) continue;
    const path = join(dir, marker);
    // A marker may be a file or a directory (.git is a file in worktrees); errors count as absent.
    const info = await fs.stat(path).catch(() => null);
    if (!info) continue;
    if (await plantedFile(fs, path, info)) {
      diagnostics.push({
        level: "warning",
        code: "marker-planted",
        message: `root marker ${plantedMessage(path, info.uid)}; the search for the project root goes on above it (fix: set --root, or remove the marker)`,
        path,
      });
      continue;
    }
    return path;
  }
  return undefined;
}
