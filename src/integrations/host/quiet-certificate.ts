/**
 * The engine certifies its own quiet answers: after a tool step, the premises under which a later
 * tool event on a target in the same directories answers nothing and changes nothing, written
 * beside the state file (host/quiet-format.ts) for the hook's quiet stage (hook/quiet.ts), which
 * then answers without loading the engine. What counts as quiet is decided here and nowhere else:
 * - the step left no transcript mark and the host observes nothing per call (Copilot's `view`);
 * - no scoped rule can apply: no rule directory of a delivered format exists (its absence, and
 *   each existing directory on the way to it, are premises);
 * - per directory: inside the session's root, every directory of its chain unchanged since before
 *   the step looked (io/unchanged.ts: then no instruction file came or went there), and every
 *   instruction file `touch` weighs there admitted at the version on disk (its stat a premise).
 * A target named like an instruction file (a read of it admits it) is left to the full path.
 */
import { chain, isInside } from "../../core/paths.js";
import type { FileSystem } from "../../io/file-system.js";
import { unchangedSince } from "../../io/unchanged.js";
import type { AgentsSession } from "../../session/session.js";
import { certificateText, envPrint, identityOf, quietPath, readCertificate, type Identity, type QuietCertificate, type QuietDir } from "./quiet-format.js";

/** Most directories one certificate vouches for (the most recent), and most entries it holds: the quiet stage reads the whole file at each call. */
const QUIET_DIRS = 32;
const QUIET_ENTRIES = 160;

/** What a step found quiet; bound to a state text when written. */
export type QuietPremises = Pick<QuietCertificate, "names" | "all" | "dirs">;

/** The engine's side of the certificate (the hook adapter gives one; in-process hosts none). */
export interface QuietCertifier {
  /**
   * The premises after a step on `dirs` (a tool step's targets' directories; the session's root
   * and cwd always come first) from the state saved as `from` (null: none), null when none hold. A tool step only admits (a file at its version on
   * disk): what the certificate made for `from` vouched for still holds where its premises do, and
   * the quiet stage stats every premise it relies on, so those directories are kept as they are,
   * neither walked nor stat'ed again.
   */
  premises(session: AgentsSession, dirs: readonly string[], from: string | null, marked: boolean): Promise<QuietPremises | null>;
  /** Writes the certificate for the state just saved as `stateText` (never fails the event; the engine certifies only with a save). */
  write(premises: QuietPremises, stateText: string): Promise<void>;
}

export interface QuietCertifierOptions {
  /** The conversation's state file. */
  statePath: string;
  host: string;
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Reads (deadline-guarded). */
  fs: FileSystem;
  /** The write, after the answer. */
  writeFs: FileSystem;
  /** Date.now() before the event's first look at the disk. */
  since: number;
  /** The check of a state text (host/state-file.ts `stateCheckOf`). */
  checkOf(text: string): string | null;
}

/**
 * A certifier for one hook event of the conversation whose state is `statePath`.
 */
export function quietCertifier(options: QuietCertifierOptions): QuietCertifier {
  const { fs } = options;
  const settled = (info: Awaited<ReturnType<FileSystem["lstat"]>>) => info !== null && !info.symlink && unchangedSince(info, options.since);
  const earlier = async (from: string | null): Promise<QuietCertificate | null> => {
    const check = from === null ? null : options.checkOf(from);
    if (check === null) return null;
    try {
      const path = quietPath(options.statePath);
      const info = await fs.lstat(path);
      if (info === null || info.symlink || info.kind !== "file") return null;
      const read = await fs.read(path, 1024 * 1024);
      const cert = read.truncated ? null : readCertificate(Buffer.from(read.bytes).toString("utf8"), options.version);
      return cert && cert.state === check && cert.host === options.host && cert.env === envPrint(options.env) ? cert : null;
    } catch {
      return null;
    }
  };
  return {
    async premises(session, dirs, from, marked) {
      if (marked) return null;
      try {
        const all: Record<string, Identity> = {};
        const rules = session.rules.quietPaths();
        for (const dir of rules?.dirs ?? []) {
          // Each level below the rules' root: existing ones unchanged, the first missing one absent.
          for (const level of chain(rules!.root, dir)) {
            const info = await fs.lstat(level);
            if (info === null) {
              all[level] = "-";
              break;
            }
            if (level === dir || !settled(info)) return null;
            all[level] = identityOf(info);
          }
        }
        const tree: QuietCertificate["dirs"] = {};
        let certified = 0;
        // The root and cwd first, at every certifying step: the anchors of every target below them (quiet-format.ts `belowPremises`), never crowded out.
        for (const dir of new Set([session.root, session.cwd, ...dirs])) {
          if (certified >= QUIET_DIRS) break;
          const entries = await dirEntries(session, dir);
          if (entries && graft(tree, entries)) certified++;
        }
        // Kept as they are: a premise that no longer holds fails at the quiet stage, which stats each.
        const before = await earlier(from);
        for (const [dir, entry] of Object.entries(before?.dirs ?? {})) {
          if (certified >= QUIET_DIRS) break;
          // Only a directory certified itself; the others are on its chain.
          if (entry.quiet !== true || tree[dir]?.quiet === true) continue;
          const entries = chainEntries(before!.dirs, dir);
          if (entries && graft(tree, entries)) certified++;
        }
        return certified === 0 ? null : { names: [...session.config.files.names], all, dirs: tree };
      } catch {
        return null; // a certificate is an optimisation: none when anything is in doubt
      }
    },
    async write(premises, stateText) {
      const state = options.checkOf(stateText);
      if (state === null) return;
      const text = certificateText({ version: options.version, host: options.host, state, env: envPrint(options.env), ...premises });
      // No fsync: a torn file fails its checksum, and the quiet stage then leaves the call to the full path.
      await options.writeFs.writeAtomic(quietPath(options.statePath), text, { sync: false }).catch(() => undefined);
    },
  };

  /** The entries of `dir`'s chain, root first, `dir` certified quiet; null when a premise does not hold now. */
  async function dirEntries(session: AgentsSession, dir: string): Promise<Array<[string, QuietDir]> | null> {
    if (!isInside(dir, session.root)) return null;
    const entries: Array<[string, QuietDir]> = [];
    for (const level of chain(session.root, dir)) {
      const info = await fs.lstat(level);
      if (info?.kind !== "directory" || !settled(info)) return null;
      const up = entries.at(-1)?.[0];
      entries.push([level, up === undefined ? { id: identityOf(info) } : { up, id: identityOf(info) }]);
    }
    for (const file of await session.quietCandidates(dir)) {
      if (session.loadedVersion(file.path)?.mtimeMs !== file.mtimeMs) return null;
      const info = await fs.stat(file.path);
      if (info?.mtimeMs !== file.mtimeMs) return null;
      // Under the deepest directory of the chain that holds it (an AGENTS.md, a .github/ file).
      let at: QuietDir | undefined;
      for (const [level, entry] of entries) if (isInside(file.path, level) && file.path !== level) at = entry;
      if (at === undefined) return null;
      (at.files ??= {})[file.path] = identityOf(info);
    }
    entries.at(-1)![1].quiet = true;
    return entries;
  }
}

/** The entries of a certified directory's chain in `dirs`, root first; null when it is broken. */
function chainEntries(dirs: QuietCertificate["dirs"], dir: string): Array<[string, QuietDir]> | null {
  const entries: Array<[string, QuietDir]> = [];
  const seen = new Set<string>();
  for (let at: string | undefined = dir; at !== undefined; at = dirs[at]!.up) {
    if (!Object.hasOwn(dirs, at) || seen.has(at)) return null;
    seen.add(at);
    entries.unshift([at, dirs[at]!]);
  }
  return entries;
}

/**
 * Adds a certified directory's chain to `tree` when it agrees with what is there (each shared
 * directory: same parent, same identity; each shared file: same identity) and the tree stays
 * within QUIET_ENTRIES; false (tree untouched) otherwise. A shared directory then carries the
 * files of both: a premise more only makes the quiet stage stricter.
 */
function graft(tree: QuietCertificate["dirs"], entries: ReadonlyArray<readonly [string, QuietDir]>): boolean {
  let added = 0;
  for (const [path, entry] of entries) {
    const there = Object.hasOwn(tree, path) ? tree[path] : undefined;
    if (there === undefined) {
      added++;
      continue;
    }
    if (there.up !== entry.up || there.id !== entry.id) return false;
    for (const [file, identity] of Object.entries(entry.files ?? {})) if ((there.files?.[file] ?? identity) !== identity) return false;
  }
  if (Object.keys(tree).length + added > QUIET_ENTRIES) return false;
  for (const [path, entry] of entries) {
    const there = (tree[path] ??= entry.up === undefined ? { id: entry.id } : { up: entry.up, id: entry.id });
    if (entry.files) there.files = { ...there.files, ...entry.files };
  }
  tree[entries.at(-1)![0]]!.quiet = true;
  return true;
}
