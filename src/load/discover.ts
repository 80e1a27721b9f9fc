/**
 * Which instruction file(s) a directory contributes, and the home-level (user) layers.
 */
import type { DirProbe, Found } from "../io/cache.js";
import { ABSENT_CODES, type FileSystem } from "../io/file-system.js";
import type { Diagnostic } from "../core/schema.js";
import type { UserLayer } from "../presets/preset.js";
import { decodeLossy, isBlank, trimText } from "../core/budget.js";
import { FsError } from "../core/errors.js";
import { join } from "../core/paths.js";
import { plantedMessage } from "../io/real-path.js";

/** Reports a failed read as a warning naming the path; a file deleted meanwhile is skipped silently. */
export function reportReadError(sink: DiagnosticSink, path: string, error: unknown): void {
  if (error instanceof FsError && ABSENT_CODES.has(error.code)) return; // deleted meanwhile
  const code = error instanceof FsError ? error.code : "EUNKNOWN";
  sink.add({
    level: "warning",
    code: `read-${code}`,
    message: `cannot read ${path}: ${(error as Error).message}; skipped`,
    path,
  });
}

/** Collects diagnostics once per (code, path). */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];
  readonly #seen = new Set<string>();
  add(diagnostic: Diagnostic): void {
    const key = `${diagnostic.code}\0${diagnostic.path ?? ""}\0${diagnostic.message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.items.push(diagnostic);
  }
  addAll(diagnostics: readonly Diagnostic[]): void {
    for (const diagnostic of diagnostics) this.add(diagnostic);
  }
}

/**
 * Name groups: the first group with any regular file wins and contributes every file of it present.
 * `first` = one group per name; `all` = one group of every name.
 */
export type NameGroups = ReadonlyArray<readonly string[]>;

export function groupsFor(names: readonly string[], select: "first" | "all"): NameGroups {
  return select === "first" ? names.map((name) => [name]) : [names];
}

const NONE: Found[] = Object.freeze([]) as unknown as Found[];

/** The files a probed directory contributes under a selection rule; reports what it skipped. */
export function selectFiles(probe: DirProbe, groups: NameGroups, sink: DiagnosticSink): Found[] {
  if (probe.files.length === 0 && probe.irregular.length === 0 && probe.errors.length === 0) return NONE;
  for (const found of probe.irregular) {
    if (found.planted) {
      sink.add({
        level: "warning",
        code: "planted-in-shared-dir",
        message: `${plantedMessage(found.path, found.info.uid)} (fix: move the file to a directory you own, or chown it)`,
        path: found.path,
      });
      continue;
    }
    if (found.outside !== undefined) {
      sink.add({
        level: "warning",
        code: "symlink-outside-root",
        message: `${found.path} resolves to ${found.outside}, outside the project root: skipped (files.symlinks is "inside-root")`,
        path: found.path,
      });
      continue;
    }
    sink.add({
      level: "warning",
      code: "not-a-regular-file",
      message: `${found.path} is a ${found.info.kind === "directory" ? "directory" : "special file (FIFO, socket or device)"}, not an instruction file: skipped without reading`,
      path: found.path,
    });
  }
  for (const error of probe.errors) {
    sink.add({ level: "warning", code: `probe-${error.code}`, message: `${error.message}: skipped`, ...(error.path ? { path: error.path } : {}) });
  }
  if (probe.files.length === 0) return [];
  for (const group of groups) {
    const hits = probe.files.filter((found) => group.includes(found.name));
    if (hits.length > 0) return hits;
  }
  return [];
}

/**
 * The probe error met before any file is chosen, walking the names in order (what a loader that
 * stats one candidate after another would hit), or undefined.
 */
export function blockingError(probe: DirProbe, dir: string, names: readonly string[]): FsError | undefined {
  if (probe.errors.length === 0) return undefined;
  for (const name of names) {
    if (probe.files.some((found) => found.name === name)) return undefined;
    const error = probe.errors.find((each) => each.path === join(dir, name));
    if (error) return error;
  }
  return undefined;
}

/** The identity of a file: device and inode. */
export function identityKey(info: { dev: number; ino: number }): string {
  return `${info.dev}:${info.ino}`;
}

/**
 * Keeps the first of the files that share a device + inode (hard links, case-insensitive file
 * systems), in order; each dropped one names the kept path it duplicates.
 */
export function dedupeByIdentity(found: readonly Found[]): { kept: Found[]; duplicates: Array<{ found: Found; sameAs: string }> } {
  const first = new Map<string, string>();
  const kept: Found[] = [];
  const duplicates: Array<{ found: Found; sameAs: string }> = [];
  for (const each of found) {
    const key = identityKey(each.info);
    const sameAs = first.get(key);
    if (sameAs === undefined) {
      first.set(key, each.path);
      kept.push(each);
    } else duplicates.push({ found: each, sameAs });
  }
  return { kept, duplicates };
}

/** What a directory contributes under a selection rule, and why (`explain`, `doctor`). */
export interface DirChoice {
  /** The files that load: every regular file of the first group that has one (what `selectFiles` returns). */
  selected: Found[];
  /** Regular files of a later group, hidden by the winning group's first file. */
  shadowed: Array<{ found: Found; by: Found }>;
  /** Regular files whose name is in no group: the rule never reads them. */
  ignored: Found[];
  /** Candidates that exist but are not regular files (skipped). */
  irregular: Found[];
}

/**
 * The decision `selectFiles` makes, with what it left aside.
 */
export function chooseFiles(probe: DirProbe, groups: NameGroups): DirChoice {
  const choice: DirChoice = { selected: [], shadowed: [], ignored: [], irregular: [...probe.irregular] };
  let winner = -1;
  groups.forEach((group, index) => {
    const hits = probe.files.filter((found) => group.includes(found.name));
    if (hits.length === 0) return;
    if (winner === -1) {
      winner = index;
      choice.selected = hits;
    } else for (const found of hits) choice.shadowed.push({ found, by: choice.selected[0]! });
  });
  choice.ignored = probe.files.filter((found) => !groups.some((group) => group.includes(found.name)));
  return choice;
}

/** Largest user-layer file read, so a huge home file cannot exhaust memory. */
const USER_LAYER_MAX_BYTES = 4 * 1024 * 1024;

export interface UserFile {
  path: string;
  mtimeMs: number;
  sizeBytes: number;
  content: string;
  truncated: boolean;
}

/** Reads the home-level layers in order (lowest priority first); `blank` decides what counts as empty. */
export async function loadUserLayers(
  fs: FileSystem,
  layers: readonly UserLayer[],
  sink: DiagnosticSink,
  keepBom: boolean,
  blank: (text: string) => boolean = isBlank,
): Promise<UserFile[]> {
  const out: UserFile[] = [];
  for (const layer of layers) {
    const omitted = (await layer.omit?.(fs)) ?? [];
    for (const path of layer.candidates) {
      if (omitted.includes(path)) continue;
      let file: UserFile;
      try {
        const info = await fs.stat(path);
        if (!info) continue;
        if (info.kind !== "file") {
          if (layer.firstExisting) break;
          continue;
        }
        const read = await fs.read(path, USER_LAYER_MAX_BYTES);
        let content = decodeLossy(read.bytes, keepBom);
        if (layer.trim) content = trimText(content);
        if (read.truncated)
          sink.add({
            level: "warning",
            code: "user-layer-too-large",
            message: `${path} is larger than ${USER_LAYER_MAX_BYTES} bytes: only the start is used`,
            path,
          });
        file = { path, mtimeMs: read.mtimeMs, sizeBytes: read.size, content, truncated: read.truncated };
      } catch (error) {
        reportReadError(sink, path, error);
        if (layer.firstExisting) break;
        continue;
      }
      if (blank(file.content) && !layer.keepEmpty) continue;
      out.push(file);
      if (layer.select === "first-non-empty") break;
    }
  }
  return out;
}
