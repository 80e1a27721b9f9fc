/**
 * The hook's quiet stage: what `dist/hook/agentsmd-quiet-<host>.cjs` runs (scripts/build-hook.mjs),
 * before the host's bundle loads. Most tool calls deliver nothing, and loading the engine to learn
 * that is most of a call's cost. The engine certifies its quiet answers beside the state file
 * (integrations/host/quiet-certificate.ts); this stage answers a tool event from that certificate
 * alone when every premise still holds, and otherwise leaves the event (stdin as read) to the
 * full path. It never decides anything itself: no certificate, no answer.
 *
 * Read as the full path reads: the state directory must be the user's alone, the state and
 * certificate files regular files of this user (lstat first, opened without following a link,
 * never a FIFO), bounded, their checks holding. Like hook/launch.ts it imports node:fs itself: it
 * runs before io/file-system.ts would load.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";
import { ownDirectoryProblem } from "../io/own-directory.js";
import { conversationPath, hostStateDir, stateCheckOf } from "../integrations/host/state-file.js";
import {
  belowPremises,
  certificateHolds,
  chainPremises,
  envPrint,
  identityOf,
  parseCertificate,
  quietPath,
  type QuietHost,
  type StatFacts,
} from "../integrations/host/quiet-format.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The most premises one call stats (an engine's certificate holds at most 160 directories' and the rule directories'). */
const MAX_PREMISES = 4096;

/** A state file larger than this goes to the full path (which reads up to 64 MiB). */
const MAX_QUIET_STATE = 8 * 1024 * 1024;

/** What group and others may not do in a state directory (io/state-store.ts): write. */
const STATE_DIR_DENIED = 0o022;

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const facts = (stats: Stats): StatFacts => ({
  kind: stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other",
  symlink: stats.isSymbolicLink(),
  ino: stats.ino,
  size: stats.size,
  mtimeMs: stats.mtimeMs,
  ctimeMs: stats.ctimeMs,
});

/** A stat, or null when nothing is there; other errors throw (the caller falls through). */
function statOrNull(path: string, follow: boolean): Stats | null {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

/** The text of a regular file of this user, not a link, at most `max` bytes; null otherwise. */
function ownFileText(path: string, max: number, uid: number | undefined): string | null {
  const seen = statOrNull(path, false);
  if (seen === null || !seen.isFile() || seen.size > max || (uid !== undefined && seen.uid !== uid)) return null;
  const fd = openSync(path, READ_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.ino !== seen.ino || info.dev !== seen.dev || info.size > max) return null;
    const bytes = Buffer.allocUnsafe(info.size);
    let at = 0;
    while (at < bytes.length) {
      const read = readSync(fd, bytes, at, bytes.length - at, at);
      if (read === 0) return null; // shorter than its stat: changing under us
      at += read;
    }
    return bytes.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The state directory and the `agentsmd` folder above it are this user's alone (io/state-store.ts's rule). */
function privateDirs(dir: string, uid: number | undefined): boolean {
  const levels = basename(dirname(dir)) === "agentsmd" ? [dirname(dir), dir] : [dir];
  return levels.every((level) => {
    const info = statOrNull(level, false);
    return info !== null && ownDirectoryProblem({ directory: info.isDirectory(), uid: info.uid, mode: info.mode }, uid, STATE_DIR_DENIED) === null;
  });
}

/**
 * The directory a tool target governs from, as the engine takes it (session/scope.ts `targetDir`
 * after io/real-path.ts `canonicalTargets`), when the target is spelled by its real path (else
 * undefined: the full path resolves links).
 */
function targetDirOf(target: string): string | undefined {
  let real: string | null;
  try {
    real = realpathSync.native(target);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "ENOENT") return undefined;
    real = null;
  }
  if (real !== null) return real === target ? (statSync(target).isDirectory() ? target : dirname(target)) : undefined;
  const parent = dirname(target);
  return realpathSync.native(parent) === parent ? parent : undefined;
}

/**
 * True when the certificate beside the event's state file vouches that the full engine would
 * answer this event with nothing and change nothing: the caller then exits without output. False
 * for anything else, the caller running the full path. Never throws.
 */
export function quietCall(quiet: QuietHost, argv: readonly string[], text: string, env: Env, version: string): boolean {
  try {
    // Options (a state directory, a preset, a host flag) change what the full path does: it decides.
    if (argv.length !== 2 || argv[0] !== "hook" || argv[1] !== quiet.host) return false;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return false;
    }
    const event = quiet.event(raw, env);
    if (event === null || event.targets.length === 0) return false;
    const home = env.HOME;
    if (!home || !isAbsolute(home)) return false;
    const dir = quiet.stateDir?.(env) ?? hostStateDir(quiet.host, env, home);
    const uid = process.getuid?.();
    if (!privateDirs(dir, uid)) return false;
    const statePath = conversationPath(dir, event.conversation);
    const certText = ownFileText(quietPath(statePath), MAX_QUIET_STATE, uid);
    const cert = certText === null ? null : parseCertificate(certText, version);
    if (cert === null || cert.host !== quiet.host || typeof cert.dirs !== "object" || cert.dirs === null) return false;
    // Whether every target is in a certified directory first; the state read and the checksums only when they are (a miss stops here).
    const names = Array.isArray(cert.names) && cert.names.every((name) => typeof name === "string") ? cert.names : [];
    const chains = event.targets.map((target) => {
      const dir = targetDirOf(target) ?? "";
      return chainPremises(cert.dirs, dir) ?? belowPremises(cert.dirs, dir, names);
    });
    if (chains.some((chain) => chain === null)) return false;
    // A read of an instruction file admits it: the full path's.
    if (event.targets.some((target) => names.includes(basename(target)))) return false;
    const premises = new Map(typeof cert.all === "object" && cert.all !== null ? Object.entries(cert.all) : []);
    for (const chain of chains) {
      for (const [path, identity] of chain!) {
        // Two premises on one path that disagree cannot both hold.
        if ((premises.get(path) ?? identity) !== identity) return false;
        premises.set(path, identity);
      }
    }
    // The premises (a stat each) before the state read and the checksums: a call that delivers
    // (an instruction file where the certificate said none) stops here, at the cost of its stats.
    // The certificate is not checked yet: a bound on what it may make us stat.
    if (premises.size > MAX_PREMISES) return false;
    for (const [path, identity] of premises) {
      if (typeof identity !== "string") return false;
      // A file premise is what stat says (a linked instruction file's target), the rest what lstat says.
      const info = statOrNull(path, identity.startsWith("f"));
      if (identityOf(info && facts(info)) !== identity) return false;
    }
    const state = ownFileText(statePath, MAX_QUIET_STATE, uid);
    return state !== null && certificateHolds(certText!) && cert.state === stateCheckOf(state) && cert.env === envPrint(env);
  } catch {
    return false;
  }
}
