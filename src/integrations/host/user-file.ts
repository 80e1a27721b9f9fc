/**
 * Editing a host's configuration file (settings.json, hooks.json, config.toml) so that uninstall
 * gives the user's file back byte for byte: every host's `install`/`uninstall` goes through here.
 *
 * `installEdit` records, once per file, what was there before agentsmd first touched it (the
 * bytes, or that there was no file) and the bytes agentsmd wrote. `uninstallEdit` restores those
 * original bytes exactly when the file still holds what agentsmd wrote (or removes the file
 * agentsmd created, and the directories it created for it that are empty now); when the user changed the file since, only agentsmd's part is taken out and
 * everything else is kept. A symlinked file (dotfiles) is edited through the link: the link stays.
 *
 * Records live in `$XDG_STATE_HOME/agentsmd/install/` (else `~/.local/state/agentsmd/install/`),
 * one JSON file per edited file, named by a hash of its real path.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { ConfigError } from "../../core/errors.js";
import { join, parentOf, xdgDir } from "../../core/paths.js";
import { nodeFileSystem, readTextFile, removeEmptyDir, type FileSystem } from "../../io/file-system.js";

/** Largest configuration file read (a settings file is a few KB). */
const MAX_USER_FILE_BYTES = 4 * 1024 * 1024;

const RecordSchema = z.strictObject({
  kind: z.literal("agentsmd/install-record"),
  version: z.literal(1),
  file: z.string(),
  /** The file's text before agentsmd first edited it; null when there was no file. */
  original: z.nullable(z.string()),
  /** What agentsmd last wrote. */
  written: z.string(),
  /** Directories the install created for the file, deepest first: uninstall removes those left empty. */
  dirs: z.optional(z.array(z.string())),
});
type InstallRecord = z.infer<typeof RecordSchema>;

export interface UserFileOptions {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  /** Where install records live. @default see module doc */
  recordDir?: string;
  /** @default nodeFileSystem */
  fs?: FileSystem;
}

export interface EditResult {
  /** The file as given. */
  file: string;
  /** The file written (the symlink's target when `file` is a link). */
  target: string;
  changed: boolean;
}

function recordDir(options: UserFileOptions): string {
  return options.recordDir ?? join(xdgDir(options.env, "XDG_STATE_HOME", options.home, ".local/state"), "agentsmd/install");
}

/** The file to write: a symlink's final target, so a dotfiles link stays a link. */
async function targetOf(file: string, fs: FileSystem): Promise<string> {
  const info = await fs.lstat(file).catch(() => null);
  if (!info?.symlink) return file;
  return fs.realpath(file).catch(() => file);
}

// node:crypto on demand: this module reaches the hook bundle, whose calls must not pay its start-up.
function recordPath(target: string, options: UserFileOptions): string {
  return join(recordDir(options), `${process.getBuiltinModule("node:crypto").createHash("sha256").update(target).digest("hex").slice(0, 32)}.json`);
}

async function readRecord(path: string, target: string, fs: FileSystem): Promise<InstallRecord | null> {
  const text = await readTextFile(path, MAX_USER_FILE_BYTES * 3, fs).catch(() => null);
  if (text === null) return null;
  try {
    const record = RecordSchema.parse(JSON.parse(text));
    return record.file === target ? record : null;
  } catch {
    return null; // a damaged record only loses the byte-exact restore, never the user's file
  }
}

async function readUserFile(file: string, fs: FileSystem): Promise<string | null> {
  try {
    return await readTextFile(file, MAX_USER_FILE_BYTES, fs);
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`, {
      path: file,
      cause: error,
      fix: `check ${file} (a regular file of at most 4 MiB); it was left unchanged`,
    });
  }
}

/** The directories `mkdir -p dir` would create, deepest first (what uninstall may take away again). */
async function missingDirs(dir: string, fs: FileSystem): Promise<string[]> {
  const missing: string[] = [];
  for (let at = dir; ; at = parentOf(at)) {
    if ((await fs.lstat(at).catch(() => null)) !== null || parentOf(at) === at) return missing;
    missing.push(at);
  }
}

/**
 * Applies `edit` to a host configuration file (null text: no file yet) and records the original
 * bytes the first time, so {@link uninstallEdit} can restore them exactly. `edit` returns the new
 * text; returning the same text writes nothing. Idempotent when `edit` is.
 */
export async function installEdit(file: string, edit: (text: string | null) => string, options: UserFileOptions): Promise<EditResult> {
  const fs = options.fs ?? nodeFileSystem;
  const target = await targetOf(file, fs);
  const current = await readUserFile(target, fs);
  const next = edit(current);
  if (next === current) return { file, target, changed: false };
  const where = recordPath(target, options);
  const known = await readRecord(where, target, fs);
  // A record whose written text is no longer there is from an older install the user undid by hand.
  const kept = known && known.written === current;
  const original = kept ? known.original : current;
  const dirs = [...(kept ? (known.dirs ?? []) : []), ...(await missingDirs(parentOf(target), fs))];
  // The records sit beside agentsmd's state: a directory of the user's alone.
  await fs.mkdir(parentOf(where), 0o700);
  const record: InstallRecord = { kind: "agentsmd/install-record", version: 1, file: target, original, written: next, ...(dirs.length > 0 ? { dirs } : {}) };
  await fs.writeAtomic(where, `${JSON.stringify(record)}\n`);
  await fs.mkdir(parentOf(target));
  await fs.writeAtomic(target, next);
  return { file, target, changed: true };
}

/**
 * Takes agentsmd's part out of a host configuration file. When the file still holds exactly what
 * {@link installEdit} wrote, the original bytes come back (or the file agentsmd created is
 * removed); otherwise `revert` removes agentsmd's part from the current text, and a file agentsmd
 * created that holds nothing else afterwards (`isEmpty`, default: blank or `{}`) is removed.
 */
export async function uninstallEdit(
  file: string,
  revert: (text: string) => string,
  options: UserFileOptions & { isEmpty?: (text: string) => boolean },
): Promise<EditResult> {
  const fs = options.fs ?? nodeFileSystem;
  const target = await targetOf(file, fs);
  const current = await readUserFile(target, fs);
  const where = recordPath(target, options);
  const record = await readRecord(where, target, fs);
  const isEmpty = options.isEmpty ?? ((text: string) => /^\s*(\{\s*\})?\s*$/.test(text));
  let next: string | null;
  if (current === null) next = null;
  else if (record && current === record.written) next = record.original;
  else {
    const reverted = revert(current);
    next = record && record.original === null && isEmpty(reverted) ? null : reverted;
  }
  const changed = next !== current;
  if (changed) {
    if (next === null) await fs.remove(target);
    else await fs.writeAtomic(target, next);
  }
  // Directories install created go when they are empty now; any other directory stays.
  if (next === null && record?.dirs) for (const dir of record.dirs) await removeEmptyDir(dir);
  if (record) {
    await fs.remove(where);
    // The default record directory and the agentsmd/ holding it are agentsmd's own: gone when empty (a caller's recordDir stays).
    if (options.recordDir === undefined && (await removeEmptyDir(parentOf(where)))) await removeEmptyDir(parentOf(parentOf(where)));
  }
  return { file, target, changed };
}
