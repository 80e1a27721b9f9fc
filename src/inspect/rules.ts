/**
 * Scoped rules for `doctor`, `explain` and `tree`: which hosts each rule reaches (natively or
 * through agentsmd), which rules apply to a path and why, and what is wrong with them.
 */
import { createHash } from "node:crypto";
import type { RuleFormat } from "../core/schema.js";
import { quote } from "../core/quote.js";
import { RULE_FORMAT_SPECS, formatsForHost } from "../load/rules/formats.js";
import { isDeliverable, rulesForPath, relativeBelow } from "../load/rules/apply.js";
import { compileGlobs, globProblem } from "../load/rules/match.js";
import type { ScopedRule } from "../load/rules/rule.js";
import { ruleAgentOf, ruleIsFor } from "../load/rules/targets.js";
import type { SessionOptions } from "../session/options.js";
import { hostById, hostDefinitions } from "../integrations/registry.js";

/** Hosts agentsmd delivers to (the registry); a rule none of them sees is reported. */
function agentsmdHosts(): string[] {
  return hostDefinitions().map((host) => host.id);
}

/**
 * Who reads `format` itself: the registered hosts whose definition lists it, else the format's own
 * tool (Cursor, Continue, Windsurf: named by the format's id).
 */
export function nativeReaders(format: RuleFormat): string[] {
  const hosts = hostDefinitions()
    .filter((host) => host.nativeRuleFormats.includes(format))
    .map((host) => host.id);
  return hosts.length > 0 ? hosts : [format];
}

/**
 * Session options with the formats their `host` reads itself filled in from the registry (a
 * caller's own `nativeRuleFormats` wins): what explain and tree open sessions with.
 */
export function withHostFormats<T extends SessionOptions>(options: T): T {
  if (options.nativeRuleFormats !== undefined || options.host === undefined) return options;
  const native = hostById(options.host)?.nativeRuleFormats;
  return native === undefined ? options : { ...options, nativeRuleFormats: native };
}

export interface RuleReach {
  /** Hosts that read the rule's format themselves (agentsmd hosts and others, such as Cursor). */
  native: string[];
  /** agentsmd hosts that get it from agentsmd. */
  agentsmd: string[];
}

/**
 * Who sees a rule: the hosts reading its format, and the agentsmd hosts it is delivered to under
 * `formats` (`rules.formats`; default per host). Manual and agent-requested rules reach only their
 * own host; agentsmd never delivers them.
 */
export function ruleReach(rule: ScopedRule, formats?: readonly RuleFormat[]): RuleReach {
  const native = nativeReaders(rule.format);
  const agentsmd = isDeliverable(rule)
    ? hostDefinitions()
        .filter((host) => formatsForHost(host.nativeRuleFormats, formats).includes(rule.format) && ruleIsFor(rule, ruleAgentOf(host.id)))
        .map((host) => host.id)
    : [];
  return { native, agentsmd };
}

/** A rule that applies to a path, and why. */
export interface AppliedRule {
  path: string;
  format: RuleFormat;
  activation: ScopedRule["activation"];
  globs: string[];
  /** The glob that matched, `always` for an always-apply rule. */
  matched: string;
  reach: RuleReach;
}

/**
 * The rules that apply to `target` (absolute): glob matches (content-checked for `regex` rules when
 * `content` is given) and always-apply rules, in rule order.
 */
export function rulesApplying(rules: readonly ScopedRule[], target: string, content?: string, formats?: readonly RuleFormat[]): AppliedRule[] {
  const matched = new Map(rulesForPath(rules, target, content).map((match) => [match.rule, match.reason]));
  const out: AppliedRule[] = [];
  for (const rule of rules) {
    const reason =
      matched.get(rule) ?? (rule.activation === "always" && isDeliverable(rule) && relativeBelow(target, rule.base) !== null ? "always" : undefined);
    if (reason === undefined) continue;
    out.push({ path: rule.path, format: rule.format, activation: rule.activation, globs: rule.globs, matched: reason, reach: ruleReach(rule, formats) });
  }
  return out;
}

export interface RuleFinding {
  code: "rule-matches-nothing" | "rule-unseen" | "rule-duplicate" | "rule-bad-glob";
  severity: "error" | "warning" | "info";
  path: string;
  paths?: string[];
  message: string;
  fix: string;
}

/**
 * Tracks which glob rules match some file of a tree, fed one directory listing at a time.
 */
export function globCoverage(rules: readonly ScopedRule[]): { add(relativePath: string): void; unmatched(): ScopedRule[] } {
  let open = rules
    .filter((rule) => rule.activation === "glob" && rule.globs.length > 0)
    .map((rule) => ({ rule, test: compileGlobs(rule.globs, { matchBase: rule.matchBase }) }));
  return {
    add(relativePath) {
      if (open.length === 0) return;
      open = open.filter((entry) => entry.test(relativePath) === null);
    },
    unmatched: () => open.map((entry) => entry.rule),
  };
}

function normalisedBody(rule: ScopedRule): string {
  return createHash("sha256").update(rule.body.replace(/\s+/g, " ").trim()).digest("hex");
}

/**
 * Findings over a project's rules: globs that match no file (`unmatched`, from {@link globCoverage}),
 * rules no agentsmd host will ever see, the same rule kept in two files, globs the matcher refuses.
 */
export function ruleFindings(rules: readonly ScopedRule[], unmatched: readonly ScopedRule[], formats?: readonly RuleFormat[]): RuleFinding[] {
  const findings: RuleFinding[] = [];
  for (const rule of unmatched) {
    findings.push({
      code: "rule-matches-nothing",
      severity: "warning",
      path: rule.path,
      message: `${quote(rule.path)}: its globs (${rule.globs.map((glob) => JSON.stringify(glob)).join(", ")}) match no file in the tree: no agent ever applies it`,
      fix: `correct the globs in ${RULE_FORMAT_SPECS[rule.format].globKeys[0] ?? "the rule"} (they are relative to the project root) or remove the rule`,
    });
  }
  for (const rule of rules) {
    for (const glob of rule.globs) {
      const problem = globProblem(glob);
      if (problem !== null) {
        findings.push({
          code: "rule-bad-glob",
          severity: "error",
          path: rule.path,
          message: `${quote(rule.path)}: ${JSON.stringify(glob)} is not a glob agentsmd takes (${problem}): it matches nothing`,
          fix: "write it with *, **, ?, [...], {a,b} or (a|b) (picomatch syntax without the *(...), +(...) and !(...) extglobs)",
        });
      }
    }
    const reach = ruleReach(rule, formats);
    const hosts = agentsmdHosts();
    const served = [...reach.native.filter((host) => hosts.includes(host)), ...reach.agentsmd];
    if (served.length === 0) {
      const why =
        rule.activation === "manual"
          ? "it applies only when a person attaches it"
          : rule.activation === "model"
            ? "it applies only when the agent asks for it by its description"
            : rule.excludeAgent?.includes("coding-agent")
              ? "excludeAgent keeps it from coding agents"
              : rule.targets !== undefined && !hosts.some((host) => ruleIsFor(rule, ruleAgentOf(host)))
                ? `it is only for ${rule.targets.length ? rule.targets.join(", ") : "no agent"}`
                : "its format is left out of rules.formats";
      const others = reach.native.filter((host) => !hosts.includes(host));
      findings.push({
        code: "rule-unseen",
        severity: "warning",
        path: rule.path,
        message: `${quote(rule.path)}: no host agentsmd serves will ever see it (${why})${others.length ? `; only ${others.join(", ")} reads it` : ""}`,
        fix:
          rule.activation === "manual" || rule.activation === "model"
            ? `give it globs (${RULE_FORMAT_SPECS[rule.format].globKeys[0]}) or make it always apply, so agentsmd can deliver it`
            : rule.targets !== undefined
              ? `name an agent agentsmd serves in its ${rule.format === "ruler" ? "ruler.toml" : "targets"} (docs/rules.md lists the names), or remove the rule`
              : "add its format to rules.formats, or remove the rule",
      });
    }
  }
  const byBody = new Map<string, ScopedRule[]>();
  for (const rule of rules) {
    if (rule.body.trim() === "") continue;
    const key = normalisedBody(rule);
    byBody.set(key, [...(byBody.get(key) ?? []), rule]);
  }
  for (const same of byBody.values()) {
    if (same.length < 2) continue;
    const formats = [...new Set(same.map((rule) => RULE_FORMAT_SPECS[rule.format].label))];
    findings.push({
      code: "rule-duplicate",
      severity: "warning",
      path: same[0]!.path,
      paths: same.map((rule) => rule.path),
      message: `the same rule is kept in ${same.length} files (${same.map((rule) => quote(rule.path)).join(", ")}; ${formats.join(", ")}): copies drift apart, and a host that gets two of these formats sees it twice`,
      fix: "keep one copy: agentsmd delivers it to every host that does not read its format",
    });
  }
  return findings;
}
