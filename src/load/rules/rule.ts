/**
 * One record for a scoped rule, whatever its format, and the pure normalisation from a parsed file.
 */
import { RULE_FORMAT_SPECS, type RuleFormat } from "./formats.js";
import { cleanGlob, globProblem, splitGlobList } from "./match.js";
import { regexProblem } from "../../core/linear-regex.js";
import type { Frontmatter } from "./frontmatter.js";
import { RULESYNC_TARGETS } from "./targets.js";

/**
 * How a rule reaches the model: `always` with the initial bundle, `glob` when a touched path
 * matches, `model` only when the agent asks for it by description, `manual` only when a person
 * attaches it. agentsmd delivers `always` and `glob` rules.
 */
type RuleActivation = "always" | "glob" | "model" | "manual";

export interface ScopedRule {
  format: RuleFormat;
  /** Absolute path of the rule file. */
  path: string;
  /** Absolute directory its globs are relative to (the project root for every format today). */
  base: string;
  /** Globs as written (cleaned); a `!` glob excludes. */
  globs: string[];
  /** A glob without `/` matches the file name at any depth (the format's semantics). */
  matchBase: boolean;
  activation: RuleActivation;
  description?: string;
  name?: string;
  /** Continue: the touched file's content must match one of these (JavaScript regex syntax). */
  regex?: string[];
  /** Copilot: agents this rule is not for (`code-review`, `coding-agent`). */
  excludeAgent?: string[];
  /**
   * rulesync `targets` as written, or the Ruler agents its `ruler.toml` selects: the agents the rule
   * is for, in that source's names (load/rules/targets.ts); absent: every agent.
   */
  targets?: string[];
  /** Every frontmatter key, unknown ones kept. */
  frontmatter: Record<string, unknown>;
  /** The instructions (the text after the header). */
  body: string;
  /** 1-based line of the file where the body starts. */
  bodyLine: number;
  mtimeMs: number;
  sizeBytes: number;
  /** The file was longer than the read budget; `body` is cut. */
  truncated: boolean;
}

export interface RuleProblem {
  /** 1-based line of the file. */
  line: number;
  message: string;
}

/** A list value of a header key: a YAML list, or a string (comma list when the format says so). */
function listOf(value: unknown, commaList: boolean): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value))
    return value
      .filter((item) => item !== null && item !== undefined)

      .map((item) => cleanGlob(String(item)))
      .filter(Boolean);
  if (typeof value === "string") return commaList ? splitGlobList(value) : [cleanGlob(value)].filter(Boolean);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as above
  return [cleanGlob(String(value))].filter(Boolean);
}

function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as above
  const text = String(value).trim();
  return text.length ? text : undefined;
}

/** `true`/`false` as the formats write them (YAML booleans, or the strings some editors write). */
function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const text = value.trim().toLowerCase();
    if (text === "true") return true;
    if (text === "false") return false;
  }
  return undefined;
}

export interface NormaliseInput {
  format: RuleFormat;
  path: string;
  base: string;
  frontmatter: Frontmatter;
  mtimeMs: number;
  sizeBytes: number;
  truncated: boolean;
  /** Ruler: the agents its `ruler.toml` selects. */
  targets?: string[];
  /** Ruler: a nested `.ruler/` applies to every path below `base` (its directory), not at startup. */
  belowBase?: boolean;
}

/**
 * Normalises a parsed rule file to a {@link ScopedRule}, with the problems found in its header.
 * A header that does not parse leaves the rule `manual` (never delivered) until it is fixed.
 */
export function normaliseRule(input: NormaliseInput): { rule: ScopedRule; problems: RuleProblem[] } {
  const spec = RULE_FORMAT_SPECS[input.format];
  const { data, body, bodyLine, error } = input.frontmatter;
  const problems: RuleProblem[] = error ? [error] : [];
  const rawGlobs = spec.globKeys.map((key) => data[key]).find((value) => value !== undefined);
  const globs = listOf(rawGlobs, spec.commaList) ?? [];
  const description = textOf(data.description);
  const alwaysApply = booleanOf(data.alwaysApply);
  if (data.alwaysApply !== undefined && alwaysApply === undefined) {
    problems.push({ line: 2, message: `alwaysApply is ${JSON.stringify(data.alwaysApply)}: write true or false` });
  }
  let activation: RuleActivation;
  let regex: string[] | undefined;
  let targets = input.targets;
  switch (input.format) {
    case "copilot":
    case "claude":
    case "qwen":
      // Copilot applies a file without applyTo only when attached; Claude and Qwen load one without paths at start.
      activation = globs.length ? "glob" : input.format === "copilot" ? "manual" : "always";
      break;
    case "cursor":
      activation = alwaysApply ? "always" : globs.length ? "glob" : description ? "model" : "manual";
      break;
    case "continue":
      regex = listOf(data.regex, false);
      if (alwaysApply) activation = "always";
      else if (globs.length || regex?.length) activation = "glob";
      else activation = alwaysApply === false ? (description ? "model" : "manual") : "always";
      break;
    case "windsurf": {
      const trigger = textOf(data.trigger);
      activation =
        trigger === "always_on"
          ? "always"
          : trigger === "glob"
            ? "glob"
            : trigger === "model_decision"
              ? "model"
              : trigger === "manual"
                ? "manual"
                : globs.length
                  ? "glob"
                  : "manual";
      if (trigger !== undefined && !["always_on", "glob", "model_decision", "manual"].includes(trigger)) {
        problems.push({ line: 2, message: `trigger is ${JSON.stringify(trigger)}: write always_on, glob, model_decision or manual` });
      }
      break;
    }
    case "rulesync": {
      // rulesync: `root` (and `localRoot`) files are the overview every tool loads; others carry `globs`, none meaning always.
      const root = booleanOf(data.root) === true || booleanOf(data.localRoot) === true;
      activation = root || globs.length === 0 ? "always" : "glob";
      const written = data.targets;
      if (written === undefined || written === null) targets = ["*"];
      else if (Array.isArray(written) && written.every((item) => typeof item === "string")) {
        targets = written;
        const unknown = written.filter((item) => !RULESYNC_TARGETS.has(item));
        if (unknown.length)
          problems.push({
            line: 2,
            message: `targets ${unknown.map((item) => JSON.stringify(item)).join(", ")} name no rulesync tool: no agent gets the rule through them`,
          });
      } else {
        targets = [];
        activation = "manual";
        problems.push({
          line: 2,
          message: `targets is ${JSON.stringify(written)}: write a YAML list such as ["*"] or ["claudecode", "codexcli"]; the rule is not delivered until then`,
        });
      }
      break;
    }
    case "ruler":
      // Ruler concatenates every file whole into what each agent loads; a nested `.ruler/` into its directory's file.
      activation = input.belowBase ? "glob" : "always";
      if (input.belowBase) globs.splice(0, globs.length, "**");
      break;
  }
  if (activation === "glob" && globs.length === 0 && !regex?.length) {
    problems.push({ line: 2, message: `no globs in ${spec.globKeys.join("/")}: the rule can never apply` });
  }
  for (const pattern of regex ?? []) {
    const why = regexProblem(pattern);
    if (why !== null) {
      problems.push({
        line: 2,
        message: `regex ${JSON.stringify(pattern)} never matches (${why}): rewrite it without backreferences or lookaround (rule patterns run in linear time, as a DFA would)`,
      });
    }
  }
  for (const glob of globs) {
    const why = globProblem(glob);
    if (why !== null) problems.push({ line: 2, message: `glob ${JSON.stringify(glob)} matches nothing (${why})` });
  }
  if (error) activation = "manual";
  const excludeAgent = listOf(data.excludeAgent, true);
  const rule: ScopedRule = {
    format: input.format,
    path: input.path,
    base: input.base,
    globs,
    matchBase: spec.matchBase,
    activation,
    ...(description !== undefined ? { description } : {}),
    ...(textOf(data.name) !== undefined ? { name: textOf(data.name)! } : {}),
    ...(regex?.length ? { regex } : {}),
    ...(input.format === "copilot" && excludeAgent?.length ? { excludeAgent } : {}),
    ...(targets !== undefined ? { targets } : {}),
    frontmatter: data,
    body,
    bodyLine,
    mtimeMs: input.mtimeMs,
    sizeBytes: input.sizeBytes,
    truncated: input.truncated,
  };
  return { rule, problems };
}
