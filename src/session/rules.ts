/**
 * The session's scoped rules: which formats this host gets, the current rule files (rescanned after
 * the cache's revalidation window), the always-apply ones for the initial bundle and the ones a
 * touched path matches. Admission stays with the session's ledger: a rule is a file like a nested
 * AGENTS.md (path + mtime), so it is delivered once, again after an edit, again after compaction.
 */
import type { FileSystem } from "../io/file-system.js";
import { monotonicMs } from "../io/cache.js";
import { deadlineCheckOf } from "../io/deadline-fs.js";
import type { DiagnosticSink } from "../load/discover.js";
import type { InlineBlock, RuleFormat } from "../core/schema.js";
import { decodeLossy } from "../core/budget.js";
import { findRules, RULE_DEFAULTS } from "../load/rules/find.js";
import { RULE_FORMATS, RULE_FORMAT_SPECS, formatsForHost } from "../load/rules/formats.js";
import { isDeliverable, needsContent, rulesForPath, relativeBelow } from "../load/rules/apply.js";
import { frameRule } from "../load/rules/frame.js";
import type { ScopedRule } from "../load/rules/rule.js";
import { ruleAgentOf, ruleIsFor, type RuleAgent } from "../load/rules/targets.js";

/** A rule to deliver for a touched path, and why. */
export interface RuleHit {
  rule: ScopedRule;
  /** The glob that matched ("" for an always-apply rule). */
  reason: string;
  /** The touched path that matched. */
  target?: string;
}

/** Most bytes of a touched file read to test a Continue `regex` rule. */
const CONTENT_BYTES = 256 * 1024;

export interface SessionRulesOptions {
  /**
   * Where the rule directories are (`.cursor/rules`, ...): the project's directory, which for a
   * preset rooted at the file-system root (Claude Code, pi) is the git root above cwd, else cwd;
   * null when the session has no project (no rules then).
   */
  root: string | null;
  fs: FileSystem;
  sink: DiagnosticSink;
  /** The integration consuming the session (`claude-code`, `opencode`, ...): with `preset`, which agent a rule's `targets` name. */
  host?: string | undefined;
  /** The session's preset: which agent consumes it when `host` is not given (rulesync `targets`, Ruler's agents). */
  preset?: string | undefined;
  /** The formats the host consuming the session reads itself (its definition's `nativeRuleFormats`): never delivered. */
  native?: readonly RuleFormat[] | undefined;
  /** `rules.formats` from the config. */
  formats?: readonly RuleFormat[] | undefined;
  /** How long a scan is trusted (the cache's revalidation window). */
  revalidateMs: number;
}

export class SessionRules {
  /** Formats delivered in this session: configured (or default) minus what the host reads itself. */
  readonly formats: readonly RuleFormat[];
  readonly #options: SessionRulesOptions;
  #rules: readonly ScopedRule[] = [];
  #byPath = new Map<string, ScopedRule>();
  #scannedAt = -Infinity;
  #scanning: Promise<void> | undefined;

  /** Formats the host reads itself: scanned only so that a copy of one of their rules is not delivered again. */
  readonly #native: readonly RuleFormat[];
  /** The agent consuming the session, for rules that name their agents (undefined: only rules for every agent). */
  readonly #agent: RuleAgent | undefined;

  constructor(options: SessionRulesOptions) {
    this.#options = options;
    this.formats = options.root === null ? [] : formatsForHost(options.native ?? [], options.formats);
    this.#agent = ruleAgentOf(options.host, options.preset);
    this.#native = options.native ?? [];
  }

  /**
   * The rule files of the delivered formats, rescanned when the last scan is older than the window.
   */
  async list(): Promise<readonly ScopedRule[]> {
    if (this.formats.length === 0) return this.#rules;
    if (monotonicMs() - this.#scannedAt > this.#options.revalidateMs) await (this.#scanning ??= this.#scan().finally(() => (this.#scanning = undefined)));
    return this.#rules;
  }

  /**
   * Where a rule file of a delivered format would be (`<root>/.cursor/rules`, ...): while none of
   * them exists, no rule can apply (a quiet certificate's premise); empty without a project or
   * formats.
   */
  quietPaths(): { root: string; dirs: string[] } | null {
    const { root } = this.#options;
    if (root === null || this.formats.length === 0) return null;
    return { root, dirs: this.formats.map((format) => `${root}/${RULE_FORMAT_SPECS[format].dir}`) };
  }

  /** The rule at `path` as last scanned (no I/O). */
  ruleAt(path: string): ScopedRule | undefined {
    return this.#byPath.get(path);
  }

  /** Always-apply rules, for the initial bundle. */
  async always(): Promise<RuleHit[]> {
    return (await this.list()).filter((rule) => isDeliverable(rule) && rule.activation === "always").map((rule) => ({ rule, reason: "" }));
  }

  /**
   * Rules matching any of `paths` (first matching target wins), in rule order. Always-apply rules
   * match every path below the root: a host that could not show the initial bundle (or lost it)
   * gets them with the first touch; the ledger keeps them from coming twice. A target that is
   * itself a delivered rule file brings that rule back (how a host restores rules after compaction).
   */
  async matching(paths: readonly string[]): Promise<RuleHit[]> {
    const rules = await this.list();
    if (rules.length === 0) return [];
    const hits = new Map<ScopedRule, RuleHit>();
    const check = deadlineCheckOf(this.#options.fs);
    for (const target of paths) {
      check();
      const own = this.#byPath.get(target);
      if (own && isDeliverable(own) && !hits.has(own)) hits.set(own, { rule: own, reason: own.globs.join(", ") });
      const content = rules.some((rule) => needsContent(rule) && !hits.has(rule) && relativeBelow(target, rule.base) !== null)
        ? await this.#content(target)
        : undefined;
      for (const match of rulesForPath(rules, target, content, check))
        if (!hits.has(match.rule)) hits.set(match.rule, { rule: match.rule, reason: match.reason, target });
      for (const rule of rules) {
        if (rule.activation === "always" && isDeliverable(rule) && !hits.has(rule) && relativeBelow(target, rule.base) !== null)
          hits.set(rule, { rule, reason: "" });
      }
    }
    return rules.filter((rule) => hits.has(rule)).map((rule) => hits.get(rule)!);
  }

  /**
   * The block delivered for a hit: framed with its source file and the glob that matched (relative to the rules' root).
   */
  block(hit: RuleHit, layer: InlineBlock["layer"]): InlineBlock {
    const root = this.#options.root ?? "/";
    return {
      path: hit.rule.path,
      layer,
      mtimeMs: hit.rule.mtimeMs,
      sizeBytes: hit.rule.sizeBytes,
      content: frameRule(hit.rule, { root, reason: hit.reason, ...(hit.target !== undefined ? { target: hit.target } : {}) }),
      truncated: hit.rule.truncated,
      rule: { format: hit.rule.format, glob: hit.reason },
    };
  }

  async #scan(): Promise<void> {
    const { root, fs, sink } = this.#options;
    const formats = RULE_FORMATS.filter((format) => this.formats.includes(format) || this.#native.includes(format));
    const found = await findRules({ root: root!, fs, formats, reuse: this.#byPath, maxBytes: RULE_DEFAULTS.maxBytes });
    // A nested `.ruler/` lies anywhere below the root.
    const ours = (path: string) =>
      this.formats.some((format) => path.startsWith(`${root}/${RULE_FORMAT_SPECS[format].dir}/`) || (format === "ruler" && path.includes("/.ruler/")));
    sink.addAll(found.diagnostics.filter((diagnostic) => diagnostic.path !== undefined && ours(diagnostic.path)));
    const native = found.rules.filter((rule) => this.#native.includes(rule.format));
    const delivered = found.rules.filter((rule) => this.formats.includes(rule.format) && ruleIsFor(rule, this.#agent));
    this.#rules = withoutCopies(native, delivered);
    this.#byPath = new Map(this.#rules.map((rule) => [rule.path, rule]));
    this.#scannedAt = monotonicMs();
  }

  async #content(path: string): Promise<string | undefined> {
    try {
      const read = await this.#options.fs.read(path, CONTENT_BYTES);
      return decodeLossy(read.bytes, false);
    } catch {
      return undefined; // a directory, a deleted file, a FIFO: no content to match
    }
  }
}

/**
 * The same rule kept in two formats (same text, same globs, same activation) is delivered once: the
 * first in format order stands for both (`doctor` reports the copy).
 */
function withoutCopies(native: readonly ScopedRule[], rules: readonly ScopedRule[]): ScopedRule[] {
  const key = (rule: ScopedRule) => `${rule.activation}\0${[...rule.globs].sort().join("\0")}\0${rule.body.replace(/\s+/g, " ").trim()}`;
  // A copy of a rule the host reads itself is the host's already.
  const seen = new Set<string>(native.map(key));
  return rules.filter((rule) => {
    const each = key(rule);
    if (seen.has(each)) return false;
    seen.add(each);
    return true;
  });
}
