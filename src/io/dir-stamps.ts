/**
 * Stamps of the directories a walk depended on, to tell later, by one stat each and no listing,
 * whether the walk would still find the same names (the OpenCode-family plugins keep their config
 * `instructions` matches while these hold).
 *
 * A directory's entries change only with its mtime (a creation, removal or rename in it), and a
 * symlinked directory retargeted changes its parent's: a walk stamps each directory it lists and
 * that directory's parent, and for each path it probes the directory holding it and that one's
 * parent. A stamp is the directory's device, inode and mtime; an absent directory is stamped
 * absent together with its nearest existing ancestor (the creation of the missing part changes that
 * one). A directory modified within {@link RACY_MS} of its stamp may change again without its mtime
 * moving (timestamps are coarse: a jiffy on Linux, 1-2 s elsewhere): its stamp is racy, and
 * {@link stampsHold} never vouches for it (a watcher set before the stamp does).
 */
import { RACY_MS } from "./unchanged.js";
import { parentOf } from "../core/paths.js";
import type { FileInfo, FileSystem } from "./file-system.js";

/**
 * A directory as stamped: present (identity, mtime, and `racy` when modified within
 * {@link RACY_MS}), absent, or unknown (the stat failed).
 */
export type DirStamp = { dev: number; ino: number; mtimeMs: number; kind: FileInfo["kind"]; racy: boolean } | "absent" | "unknown";

export class DirStamps {
  readonly #fs: FileSystem;
  readonly #stamps = new Map<string, DirStamp>();
  readonly #pending = new Map<string, Promise<void>>();

  readonly #before: ((dir: string) => void) | undefined;

  /** `before(dir)` runs before a directory is stamped (a watch set then misses no later change). */
  constructor(fs: FileSystem, before?: (dir: string) => void) {
    this.#fs = fs;
    this.#before = before;
  }

  /** Call before listing `dir`. */
  listing(dir: string): Promise<void> {
    return this.#withParent(dir);
  }

  /** Call before probing `path` (an lstat of one name). */
  probing(path: string): Promise<void> {
    return this.#withParent(parentOf(path));
  }

  async #withParent(dir: string): Promise<void> {
    await Promise.all([this.#stamp(dir), this.#stamp(parentOf(dir))]);
  }

  /** Stamps `dir` once; when it is absent, its ancestors up to an existing one too. */
  #stamp(dir: string): Promise<void> {
    let pending = this.#pending.get(dir);
    if (!pending) {
      this.#before?.(dir);
      pending = stampOf(this.#fs, dir).then((stamp) => {
        this.#stamps.set(dir, stamp);
        const parent = parentOf(dir);
        return stamp === "absent" && parent !== dir ? this.#stamp(parent) : undefined;
      });
      this.#pending.set(dir, pending);
    }
    return pending;
  }

  /** The stamps taken, once every pending one settled. */
  async settled(): Promise<ReadonlyMap<string, DirStamp>> {
    await Promise.all(this.#pending.values());
    return new Map(this.#stamps);
  }
}

async function stampOf(fs: FileSystem, dir: string): Promise<DirStamp> {
  try {
    const info = await fs.stat(dir);
    if (!info) return "absent";
    return { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs, kind: info.kind, racy: Date.now() - info.mtimeMs < RACY_MS };
  } catch {
    return "unknown";
  }
}

/**
 * True when `dir` still looks as `stamp` says (one stat); a racy stamp counts here (a watcher set
 * before the stamp covers what its mtime cannot show).
 */
export async function stampHolds(fs: FileSystem, dir: string, stamp: DirStamp): Promise<boolean> {
  if (stamp === "unknown") return false;
  const now = await stampOf(fs, dir);
  if (now === "unknown" || now === "absent" || stamp === "absent") return now === stamp;
  return now.dev === stamp.dev && now.ino === stamp.ino && now.mtimeMs === stamp.mtimeMs && now.kind === stamp.kind;
}

/** True when every stamp holds and none is racy: what a walk found is still there (one stat per directory, in parallel). */
export async function stampsHold(fs: FileSystem, stamps: ReadonlyMap<string, DirStamp>): Promise<boolean> {
  for (const stamp of stamps.values()) if (stamp === "unknown" || (typeof stamp === "object" && stamp.racy)) return false;
  const checks = await Promise.all([...stamps].map(([dir, stamp]) => stampHolds(fs, dir, stamp)));
  return checks.every(Boolean);
}
