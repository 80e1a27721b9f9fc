/**
 * The scoped-rule formats agentsmd reads, as plain data: where each lives, which frontmatter keys
 * carry its globs, how those globs are written and matched. Which hosts read a format themselves is
 * each host's definition (`nativeRuleFormats`); callers pass those formats in.
 * Facts come from each host's documentation and code (see README "Scoped rules").
 */

import { RULE_FORMATS } from "../../core/config-schema.js";
import type { RuleFormat } from "../../core/schema.js";

export { RULE_FORMATS, type RuleFormat };

export interface RuleFormatSpec {
  id: RuleFormat;
  /** Human name for messages. */
  label: string;
  /** The rules directory, relative to the project root (POSIX separators). */
  dir: string;
  /** File names taken from `dir` and its subdirectories. */
  fileSuffixes: readonly string[];
  /** Frontmatter keys holding globs, first present wins. */
  globKeys: readonly string[];
  /** A glob string holds several globs separated by commas (outside braces). */
  commaList: boolean;
  /** A glob without `/` matches the file name at any depth (gitignore style). */
  matchBase: boolean;
}

export const RULE_FORMAT_SPECS: Readonly<Record<RuleFormat, RuleFormatSpec>> = {
  // GitHub docs: `applyTo` globs relative to the repository root, comma-separated; `*.py` is the root only.
  copilot: {
    id: "copilot",
    label: "GitHub Copilot",
    dir: ".github/instructions",
    fileSuffixes: [".instructions.md"],
    globKeys: ["applyTo"],
    commaList: true,
    matchBase: false,
  },
  // Claude Code docs: `paths` (YAML list or comma string) anchored at the project root.
  claude: {
    id: "claude",
    label: "Claude Code",
    dir: ".claude/rules",
    fileSuffixes: [".md"],
    globKeys: ["paths"],
    commaList: true,
    matchBase: false,
  },
  // Cursor: `.mdc` (and `.md`) with `globs` (comma string, written unquoted), `alwaysApply`, `description`.
  cursor: {
    id: "cursor",
    label: "Cursor",
    dir: ".cursor/rules",
    fileSuffixes: [".mdc", ".md"],
    globKeys: ["globs"],
    commaList: true,
    matchBase: false,
  },
  // Continue: `globs` (string or list, `!` excludes), `regex` on the file's content, `alwaysApply`, `name`.
  continue: {
    id: "continue",
    label: "Continue",
    dir: ".continue/rules",
    fileSuffixes: [".md"],
    globKeys: ["globs"],
    commaList: false,
    matchBase: false,
  },
  // Qwen Code (rulesDiscovery.ts): `paths` (list or one string), picomatch {dot:true} on root-relative paths.
  qwen: {
    id: "qwen",
    label: "Qwen Code",
    dir: ".qwen/rules",
    fileSuffixes: [".md"],
    globKeys: ["paths"],
    commaList: false,
    matchBase: false,
  },
  // Windsurf: `trigger: always_on | glob | model_decision | manual`, `globs` (comma string; `*.js` is every .js file).
  windsurf: {
    id: "windsurf",
    label: "Windsurf",
    dir: ".windsurf/rules",
    fileSuffixes: [".md"],
    globKeys: ["globs"],
    commaList: true,
    matchBase: true,
  },
  // rulesync sources (its file-formats reference): `root`, `targets` (["*"] or tool names), `globs` (a YAML list).
  rulesync: {
    id: "rulesync",
    label: "rulesync",
    dir: ".rulesync/rules",
    fileSuffixes: [".md"],
    globKeys: ["globs"],
    commaList: false,
    matchBase: false,
  },
  // Ruler: every `.ruler/**/*.md` concatenated, always on; `ruler.toml` picks the agents; nested `.ruler/` dirs scope to their directory.
  ruler: {
    id: "ruler",
    label: "Ruler",
    dir: ".ruler",
    fileSuffixes: [".md"],
    globKeys: [],
    commaList: false,
    matchBase: false,
  },
};

/**
 * The formats a host gets from agentsmd by default: every format it does not read itself (`native`).
 */
export function defaultFormatsFor(native: readonly RuleFormat[]): RuleFormat[] {
  return RULE_FORMATS.filter((format) => !native.includes(format));
}

/**
 * The formats agentsmd delivers to a host reading `native` itself: the configured list (or the
 * default), minus those, so nothing reaches the model twice.
 */
export function formatsForHost(native: readonly RuleFormat[], configured?: readonly RuleFormat[]): RuleFormat[] {
  const wanted = configured ?? defaultFormatsFor(native);
  return RULE_FORMATS.filter((format) => wanted.includes(format) && !native.includes(format));
}
