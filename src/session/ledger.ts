/**
 * The admission ledger: what the model has (path -> version and layer), what is proposed but not
 * yet handed over (claims), and the directories covered by admitted files. One job: two-phase
 * admission. No I/O.
 */
import { parentOf } from "../core/paths.js";
import type { Layer } from "../core/schema.js";

/** A version the model has. */
export interface LedgerEntry {
  path: string;
  mtimeMs: number;
  layer: Layer;
}

/**
 * Two-phase admission: `claim` (proposed, not delivered) -> `admit` (delivered) or `release`.
 */
export class AdmissionLedger {
  readonly #loaded = new Map<string, { mtimeMs: number; layer: Layer }>();
  readonly #claims = new Map<string, number>();
  readonly #covered = new Set<string>();
  #revision = 0;

  /** Changes whenever `isNew` may answer differently (a claim, an admission, a release, a forget, a restore). */
  get revision(): number {
    return this.#revision;
  }

  /** Directories holding an admitted file (docs/loading-rules.md#covered-directories). */
  get coveredDirs(): ReadonlySet<string> {
    return this.#covered;
  }

  /** The version of `path` the model has. */
  version(path: string): { mtimeMs: number; layer: Layer } | undefined {
    return this.#loaded.get(path);
  }

  /** True when neither admitted nor claimed at `mtimeMs`. */
  isNew(path: string, mtimeMs: number): boolean {
    return this.#loaded.get(path)?.mtimeMs !== mtimeMs && this.#claims.get(path) !== mtimeMs;
  }

  /** The claimed version of `path`, if any. */
  claimed(path: string): number | undefined {
    return this.#claims.get(path);
  }

  /** Proposes `path` at `mtimeMs`: no other proposal returns it until admitted or released. */
  claim(path: string, mtimeMs: number): void {
    this.#claims.set(path, mtimeMs);
    this.#revision++;
  }

  /** Drops the claim on `path` if it is at `mtimeMs`. */
  unclaim(path: string, mtimeMs: number): void {
    if (this.#claims.get(path) === mtimeMs && this.#claims.delete(path)) this.#revision++;
  }

  /** Records `path` as delivered at `mtimeMs`, keeping the layer it entered by. */
  mark(path: string, mtimeMs: number, layer: Layer): void {
    this.#loaded.set(path, { mtimeMs, layer: this.#loaded.get(path)?.layer ?? layer });
    this.#revision++;
    this.#covered.add(parentOf(path));
  }

  /** Delivered: claims end, versions recorded (layer `path` for files never seen before). */
  admit(files: ReadonlyArray<{ path: string; mtimeMs: number }>): void {
    for (const file of files) {
      this.unclaim(file.path, file.mtimeMs);
      this.mark(file.path, file.mtimeMs, "path");
    }
  }

  /** Not delivered: claims end, so the files are offered again. */
  release(files: ReadonlyArray<{ path: string; mtimeMs: number }>): void {
    for (const file of files) this.unclaim(file.path, file.mtimeMs);
  }

  /** Proposes (`admit: false`) or admits `files` at `layer`. */
  record(files: ReadonlyArray<{ path: string; mtimeMs: number }>, admit: boolean, layer: Layer): void {
    if (!admit) for (const file of files) this.claim(file.path, file.mtimeMs);
    else for (const file of files) this.mark(file.path, file.mtimeMs, layer);
  }

  /** The model lost these files (or was told they are gone): offered again if they apply later. */
  forget(files: ReadonlyArray<{ path: string } | string>): void {
    const dropped = new Set<string>();
    for (const file of files) {
      const path = typeof file === "string" ? file : file.path;
      if (this.#loaded.delete(path)) dropped.add(parentOf(path));
    }
    if (dropped.size === 0) return;
    this.#revision++;
    for (const path of this.#loaded.keys()) dropped.delete(parentOf(path));
    for (const dir of dropped) this.#covered.delete(dir);
  }

  /** Every admitted file. */
  entries(): LedgerEntry[] {
    return [...this.#loaded].map(([path, version]) => ({ path, mtimeMs: version.mtimeMs, layer: version.layer }));
  }

  /** Admitted paths. */
  paths(): IterableIterator<string> {
    return this.#loaded.keys();
  }

  /** Restores persisted entries and covered dirs (claims are never persisted). */
  restore(entries: readonly LedgerEntry[], coveredDirs: readonly string[]): void {
    for (const entry of entries) this.#loaded.set(entry.path, { mtimeMs: entry.mtimeMs, layer: entry.layer });
    for (const dir of coveredDirs) this.#covered.add(dir);
    this.#revision++;
  }
}

/** How a proposing call records what it returns. */
export interface AdmitOptions {
  /** false: propose only; the files are claimed until `admit()` or `release()`. @default true */
  admit?: boolean;
}
