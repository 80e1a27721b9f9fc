/**
 * Inline (lazy) reads: the bodies of instruction files newly applicable to touched paths, read
 * under the session caps `lazy.maxFiles` / `lazy.maxBytes`. One job: reading under caps. The
 * first overflow adds one diagnostic and stops further loading; a file is never half-read.
 */
import type { Found } from "../io/cache.js";
import type { FileSystem } from "../io/file-system.js";
import type { ResolvedConfig } from "../load/config.js";
import { keepsBom, type Preset } from "../presets/preset.js";
import { reportReadError, type DiagnosticSink } from "../load/discover.js";
import { importContextOf, readInstructionExpanded } from "../load/imports.js";
import { agentsScope, scopeMatches } from "../load/rules/agents-scope.js";
import { parentOf, pathInputProblem } from "../core/paths.js";
import type { InlineBlock } from "../core/schema.js";
import type { AdmissionLedger, AdmitOptions } from "./ledger.js";
import type { SessionRules } from "./rules.js";
import type { SessionScope, Walked } from "./scope.js";

/** What the session has read inline so far (a snapshot records it). */
export interface LazyTotals {
  files: number;
  bytes: number;
  capped: boolean;
}

export interface InlineReadsInit {
  root: string;
  home: string;
  /** The session's environment (Kilo's `{env:}` variables). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where imports of project files stay (load/imports.ts `importRootOf`). */
  importRoot: string;
  config: ResolvedConfig;
  preset: Preset;
  fs: FileSystem;
  sink: DiagnosticSink;
  scope: SessionScope;
  ledger: AdmissionLedger;
  rules: SessionRules;
}

/**
 * The session's inline reader.
 */
export class InlineReads {
  readonly #init: InlineReadsInit;
  #lazy: LazyTotals = { files: 0, bytes: 0, capped: false };

  constructor(init: InlineReadsInit) {
    this.#init = init;
  }

  /** Files and bytes read so far, and whether the caps stopped loading. */
  get totals(): Readonly<LazyTotals> {
    return this.#lazy;
  }

  /** Restores the totals of a snapshot. */
  restore(totals: LazyTotals): void {
    this.#lazy = { ...totals };
  }

  /** The bodies of instruction files (and scoped rules) newly applicable to `paths`, in the preset's `scope.touchOrder`. */
  async touch(paths: readonly string[], options: AdmitOptions = {}): Promise<InlineBlock[]> {
    const { config, preset, scope, ledger, rules, sink } = this.#init;
    if (!config.enabled || this.#lazy.capped) return [];
    const picked: Found[] = [];
    const pickedPaths = new Set<string>();
    // Several targets: each directory's candidates are offered once (a file there was picked for an
    // earlier target or was not new): touching every directory of a d-deep chain walks d directories, not d².
    const walked: Walked | undefined = paths.length > 1 ? { dirs: new Map(), identities: new Map(), reals: scope.realPaths() } : undefined;
    for (const target of paths) {
      const candidates = await scope.applicable(target, walked ? { lazy: true, walked } : { lazy: true });
      for (const found of preset.scope.touchOrder === "root-first" ? candidates : deepestFirst(candidates)) {
        if (pickedPaths.has(found.path) || !ledger.isNew(found.path, found.info.mtimeMs)) continue;
        pickedPaths.add(found.path);
        picked.push(found);
        // Claim at once (the next target is awaited) so a concurrent touch cannot pick it too.
        ledger.claim(found.path, found.info.mtimeMs);
      }
    }
    // Asked only by scoped rules and scoped AGENTS.md files (a check of every target's length).
    let absolute: string[] | undefined;
    const absoluteTargets = () => (absolute ??= paths.filter((target) => pathInputProblem(target) === null).map((target) => scope.absolute(target)));
    const ruleHits = rules.formats.length > 0 ? await rules.matching(absoluteTargets()) : [];
    const ruleBlocks: InlineBlock[] = [];
    for (const hit of ruleHits) {
      if (pickedPaths.has(hit.rule.path) || !ledger.isNew(hit.rule.path, hit.rule.mtimeMs)) continue;
      pickedPaths.add(hit.rule.path);
      ruleBlocks.push(rules.block(hit, ledger.version(hit.rule.path)?.layer ?? "path"));
      ledger.claim(hit.rule.path, hit.rule.mtimeMs);
    }
    const blocks: InlineBlock[] = [];
    try {
      for (const found of picked) {
        if (this.#lazy.capped) break;
        const room = config.lazy.maxBytes - this.#lazy.bytes;
        if (this.#lazy.files + 1 > config.lazy.maxFiles || found.info.size > room) {
          this.#cap(found.path);
          break;
        }
        let text;
        try {
          text = await readInstructionExpanded(this.#init.fs, found.path, room, "byte", this.#imports(), (diagnostic) => sink.add(diagnostic));
        } catch (error) {
          reportReadError(sink, found.path, error);
          continue;
        }
        if (!text) continue;
        if (text.truncated) {
          // It grew past the cap while we looked: never deliver half a file.
          this.#cap(found.path);
          break;
        }
        // An AGENTS.md with `applyTo`/`globs` frontmatter applies only to matching paths: left
        // unclaimed otherwise, so a later matching touch delivers it.
        const fileScope = agentsScope(text.content);
        if (fileScope && !absoluteTargets().some((target) => scopeMatches(fileScope, parentOf(found.path), target))) continue;
        const blank = preset.text.blank(text.content);
        this.#lazy.files += blank ? 0 : 1;
        this.#lazy.bytes += blank ? 0 : text.chargedBytes;
        const block: InlineBlock = {
          path: found.path,
          layer: ledger.version(found.path)?.layer ?? "path",
          mtimeMs: text.mtimeMs,
          sizeBytes: text.sizeBytes,
          // Read with the byte cut (a file is never half-delivered), but a leading BOM is dropped
          // as the preset's initial load drops it.
          content: keepsBom(preset) ? text.content : text.content.replace(/^\uFEFF/, ""),
          truncated: false,
        };
        if (blank) {
          ledger.record([block], options.admit !== false, block.layer);
          continue;
        }
        blocks.push(block);
      }
      // Scoped rules count against the same session caps; their text is already in memory.
      for (const block of ruleBlocks) {
        if (this.#lazy.capped) break;
        const bytes = Buffer.byteLength(block.content);
        if (this.#lazy.files + 1 > config.lazy.maxFiles || bytes > config.lazy.maxBytes - this.#lazy.bytes) {
          this.#cap(block.path);
          break;
        }
        this.#lazy.files += 1;
        this.#lazy.bytes += bytes;
        blocks.push(block);
      }
    } finally {
      for (const found of picked) ledger.unclaim(found.path, found.info.mtimeMs);
      for (const block of ruleBlocks) ledger.unclaim(block.path, block.mtimeMs);
    }
    ledger.record(blocks, options.admit !== false, "path");
    return blocks;
  }

  /** Import settings for inline reads (imports count against the lazy budget). */
  #imports() {
    const { config, preset, importRoot, home, env } = this.#init;
    return importContextOf(config, preset, importRoot, home, env);
  }

  #cap(path: string): void {
    const { lazy } = this.#init.config;
    this.#lazy.capped = true;
    this.#init.sink.add({
      level: "warning",
      code: "lazy-cap",
      message: `inline loading stopped at ${path}: the session caps (lazy.maxFiles ${lazy.maxFiles}, lazy.maxBytes ${lazy.maxBytes}) are reached; no further files are loaded this session`,
      path,
    });
  }
}

/** Root-first candidates reordered deepest directory first, keeping name order within a directory. */
function deepestFirst(candidates: readonly Found[]): Found[] {
  const byDir = new Map<string, Found[]>();
  for (const found of candidates) {
    const dir = parentOf(found.path);
    const list = byDir.get(dir);
    if (list) list.push(found);
    else byDir.set(dir, [found]);
  }
  return [...byDir.values()].reverse().flat();
}
