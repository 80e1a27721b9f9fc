/**
 * How a scoped rule is framed for the model: its source (file and format) and why it applies, then
 * its body. Pure. The renderer adds the usual `Instructions from: <path>` line around it.
 */
import { quote } from "../../core/quote.js";
import { RULE_FORMAT_SPECS } from "./formats.js";
import type { ScopedRule } from "./rule.js";

/** Where a rule's globs live in its format, for the framing line. */
function keyOf(rule: ScopedRule): string {
  return RULE_FORMAT_SPECS[rule.format].globKeys[0]!;
}

/**
 * The text delivered for a rule. `reason` is the glob that matched (or "" for an always-apply rule),
 * `target` the touched path (absolute) that matched.
 */
export function frameRule(rule: ScopedRule, context: { root: string; reason: string; target?: string }): string {
  const label = RULE_FORMAT_SPECS[rule.format].label;
  const source = quote(relative(rule.path, context.root));
  const matched = context.target ? `, matched by ${quote(relative(context.target, context.root))}` : "";
  // A nested `.ruler/` has no globs: it applies to its own directory.
  const why = !context.reason
    ? `${label}, always applies`
    : rule.format === "ruler"
      ? `${label}, the .ruler directory of ${quote(relative(rule.base, context.root))}${matched}`
      : `${label} ${keyOf(rule)} ${JSON.stringify(context.reason)}${matched}`;
  const cut = rule.truncated ? `\n[agentsmd: truncated at the read budget; read ${quote(rule.path)} for the rest]` : "";
  return `Scoped rule from ${source} (${why}):\n${rule.body.replace(/^\n+/, "").replace(/\s+$/, "")}${cut}\n`;
}

function relative(path: string, root: string): string {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
