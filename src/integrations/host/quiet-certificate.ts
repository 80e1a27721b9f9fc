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
import { certificateText, envPrint, identityOf, quietPath, readCertificate, type Identity, type QuietCertificate } from "./quiet-format.js";

/** Most directories one certificate vouches for (the most recent: the quiet stage reads the whole file at each call). */
const QUIET_DIRS = 16;

/** What a step found quiet; bound to a state text when written. */
export type QuietPremises = Pick<QuietCertificate, "names" | "all" | "dirs">;

/** The engine's side of the certificate (the hook adapter gives one; in-process hosts none). */
export interface QuietCertifier {
  /**
   * The premises after a tool step on `dirs` (the targets' directories) from the state saved as
   * `from` (null: none), null when none hold. A tool step only admits (a file at its version on
   * disk): what the certificate made for `from` vouched for still holds where its premises do, and
   * the quiet stage stats every premise it relies on, so those directories are kept as they are,
   * neither walked nor stat'ed again.
   */
  premises(session: AgentsSession, dirs: readonly string[], from: string | null, marked: boolean): Promise<QuietPremises | null>;
  /** Writes the certificate for the state saved as `stateText` (never fails the event). */
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
 * @example const quiet = quietCertifier({ statePath, host: "claude-code", version: VERSION, env, fs, writeFs: fs, since: Date.now(), checkOf: stateCheckOf });
 */
export function quietCertifier(options: QuietCertifierOptions): QuietCertifier {
  const { fs } = options;
  const settled = (info: Awaited<ReturnType<FileSystem["lstat"]>>) => info !== null && !info.symlink && unchangedSince(info, options.since);
  /** The certificate beside the state, when it was made for the state saved as `from`. */
  const earlier = async (from: string | null): Promise<QuietCertificate["dirs"]> => {
    const check = from === null ? null : options.checkOf(from);
    if (check === null) return {};
    try {
      const path = quietPath(options.statePath);
      const info = await fs.lstat(path);
      if (info === null || info.symlink || info.kind !== "file") return {};
      const read = await fs.read(path, 1024 * 1024);
      const cert = read.truncated ? null : readCertificate(Buffer.from(read.bytes).toString("utf8"), options.version);
      return cert && cert.state === check && cert.host === options.host && cert.env === envPrint(options.env) ? cert.dirs : {};
    } catch {
      return {};
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
        const out: QuietCertificate["dirs"] = {};
        for (const dir of new Set(dirs)) {
          if (Object.keys(out).length >= QUIET_DIRS) break;
          const premises = await dirPremises(session, dir);
          if (premises) out[dir] = premises;
        }
        // Kept as they are: a premise that no longer holds fails at the quiet stage, which stats each.
        for (const [dir, premises] of Object.entries(await earlier(from))) {
          if (Object.keys(out).length >= QUIET_DIRS) break;
          if (!Object.hasOwn(out, dir)) out[dir] = premises;
        }
        return Object.keys(out).length === 0 ? null : { names: [...session.config.files.names], all, dirs: out };
      } catch {
        return null; // a certificate is an optimisation: none when anything is in doubt
      }
    },
    async write(premises, stateText) {
      const state = options.checkOf(stateText);
      if (state === null) return;
      const text = certificateText({ version: options.version, host: options.host, state, env: envPrint(options.env), ...premises });
      await options.writeFs.writeAtomic(quietPath(options.statePath), text).catch(() => undefined);
    },
  };

  async function dirPremises(session: AgentsSession, dir: string): Promise<Record<string, Identity> | null> {
    if (!isInside(dir, session.root)) return null;
    const premises: Record<string, Identity> = {};
    for (const level of chain(session.root, dir)) {
      const info = await fs.lstat(level);
      if (info?.kind !== "directory" || !settled(info)) return null;
      premises[level] = identityOf(info);
    }
    for (const file of await session.quietCandidates(dir)) {
      if (session.loadedVersion(file.path)?.mtimeMs !== file.mtimeMs) return null;
      const info = await fs.stat(file.path);
      if (info?.mtimeMs !== file.mtimeMs) return null;
      premises[file.path] = identityOf(info);
    }
    return premises;
  }
}
