/** Scoped rules: every known format found under a project root, normalised to one record. */
export { RULE_FORMATS, RULE_FORMAT_SPECS, defaultFormatsFor, formatsForHost, type RuleFormat, type RuleFormatSpec } from "./formats.js";
export { parseFrontmatter, type Frontmatter, type FrontmatterError } from "./frontmatter.js";
export { compileGlobs, splitGlobList, cleanGlob, isValidGlob, type GlobMatcher } from "./match.js";
export { normaliseRule, type ScopedRule, type RuleActivation, type RuleProblem } from "./rule.js";
export { rulesForPath, globMatch, isDeliverable, needsContent, contentMatches, relativeBelow, type RuleMatch } from "./apply.js";
export { findRules, RULE_DEFAULTS, type FindRulesOptions, type FoundRules } from "./find.js";
export { frameRule } from "./frame.js";
