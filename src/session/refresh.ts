/**
 * Refresh and compaction reads: what became of the files the model has. `refreshAdmitted`
 * compares every admitted file with the disk (turn boundaries); `compactionFiles` reads the
 * admitted files for a compaction summary. One job: re-reading what was admitted.
 */
import type { StatCache } from "../io/cache.js";
import { reportReadError, type DiagnosticSink } from "../load/discover.js";
import { readInstruction } from "../load/read.js";
import { isBlank } from "../core/budget.js";
import { parentOf } from "../core/paths.js";
import { quote } from "../core/quote.js";
import type { InlineBlock, Layer } from "../core/schema.js";
import type { AdmissionLedger, AdmitOptions } from "./ledger.js";
import type { SessionRules } from "./rules.js";
import type { CompactionFile } from "./compaction.js";

/** A changed admitted file found by `session.refresh()`. */
export interface RefreshedFile {
  path: string;
  layer: Layer;
  /** The version on disk now. */
  mtimeMs: number;
  sizeBytes: number;
  /** The version the model has. */
  previousMtimeMs: number;
}

export interface RefreshOptions extends AdmitOptions {
  /** Also read the changed files' bodies (`blocks`), for an inline update notice. @default false */
  inline?: boolean;
}

/** What `session.refresh()` found: admitted files that changed or disappeared since admission. */
export interface RefreshResult {
  changed: RefreshedFile[];
  deleted: Array<{ path: string; layer: Layer; mtimeMs: number }>;
  /** Bodies of the changed files (with `inline: true`), in the order of `changed`. */
  blocks: InlineBlock[];
}

/** What a refresh reads and records with. */
export interface RefreshParts {
  root: string;
  cache: StatCache;
  sink: DiagnosticSink;
  ledger: AdmissionLedger;
  rules: SessionRules;
  /** `lazy.maxBytes`: the most of one changed file read for an inline notice. */
  maxBytes: number;
}

/** Largest instruction file read for a compaction context. */
const COMPACTION_READ_BYTES = 1024 * 1024;

/**
 * Compares every admitted file with the disk: `changed` (mtime moved, claimed at once so no
 * concurrent refresh reports it too) and `deleted` (gone, or no longer a regular file). With
 * `admit` (default) both are settled in the ledger at once.
 */
export async function refreshAdmitted(parts: RefreshParts, options: RefreshOptions = {}): Promise<RefreshResult> {
  const { cache, sink, ledger, rules } = parts;
  const fs = cache.fs;
  const result: RefreshResult = { changed: [], deleted: [], blocks: [] };
  const entries = ledger.entries();
  const infos = await Promise.all(
    entries.map((entry) =>
      fs.stat(entry.path).catch((error: unknown) => {
        reportReadError(sink, entry.path, error);
        return undefined;
      }),
    ),
  );
  entries.forEach((entry, index) => {
    const info = infos[index];
    if (info === undefined) return; // unreadable: neither changed nor deleted
    cache.invalidate(entry.path);
    cache.invalidateDir(parentOf(entry.path));
    if (info === null || info.kind !== "file") result.deleted.push(entry);
    else if (info.mtimeMs !== entry.mtimeMs && ledger.claimed(entry.path) !== info.mtimeMs) {
      result.changed.push({ path: entry.path, layer: entry.layer, mtimeMs: info.mtimeMs, sizeBytes: info.size, previousMtimeMs: entry.mtimeMs });
    }
  });
  for (const file of result.changed) ledger.claim(file.path, file.mtimeMs);
  if (options.inline) {
    for (const file of result.changed) {
      if (rules.ruleAt(file.path)) {
        const hit = (await rules.matching([file.path])).find((each) => each.rule.path === file.path);
        if (hit && hit.rule.mtimeMs === file.mtimeMs) result.blocks.push(rules.block(hit, file.layer));
        continue;
      }
      if (await outside(parts, file)) continue;
      try {
        const text = await readInstruction(fs, file.path, parts.maxBytes, "utf8-with-note");
        if (text)
          result.blocks.push({
            path: file.path,
            layer: file.layer,
            mtimeMs: text.mtimeMs,
            sizeBytes: text.sizeBytes,
            content: text.content,
            truncated: text.truncated,
          });
      } catch (error) {
        reportReadError(sink, file.path, error);
      }
    }
  }
  if (options.admit !== false) {
    ledger.admit(result.changed);
    ledger.forget(result.deleted);
  }
  return result;
}

/**
 * True (with a warning) when a project file delivered earlier, or one the host loaded itself, now
 * leads outside what the session's probes allow (a symlink swapped in, one the host followed):
 * not read again. The user's own files and what the agent's configuration lists were settled when
 * they were named.
 */
async function outside(parts: Pick<RefreshParts, "cache" | "sink">, entry: { path: string; layer: Layer }): Promise<boolean> {
  if (entry.layer === "user" || entry.layer === "config") return false;
  const real = await parts.cache.leadsOutside(entry.path);
  if (real === undefined) return false;
  parts.sink.add({
    level: "warning",
    code: "symlink-outside-root",
    message: `${quote(entry.path)} resolves to ${quote(real)}, outside the project root: not read again (files.symlinks is "inside-root")`,
    path: entry.path,
  });
  return true;
}

/**
 * The admitted files read now for a compaction context (at most 1 MiB each; blank and unreadable
 * files left out, the latter reported).
 */
export async function compactionFiles(parts: Pick<RefreshParts, "cache" | "sink" | "ledger">): Promise<CompactionFile[]> {
  const files: CompactionFile[] = [];
  for (const entry of parts.ledger.entries()) {
    if (await outside(parts, entry)) continue;
    try {
      const read = await parts.cache.fs.read(entry.path, COMPACTION_READ_BYTES);
      const content = new TextDecoder("utf-8", { fatal: false }).decode(read.bytes);
      if (!isBlank(content)) files.push({ path: entry.path, layer: entry.layer, content });
    } catch (error) {
      reportReadError(parts.sink, entry.path, error);
    }
  }
  return files;
}

/** After a compaction: path-layer files leave the ledger (offered again). Returns the paths dropped. */
export function forgetPathLayer(ledger: AdmissionLedger): string[] {
  const dropped = ledger
    .entries()
    .filter((entry) => entry.layer === "path")
    .map((entry) => entry.path);
  ledger.forget(dropped);
  return dropped;
}
