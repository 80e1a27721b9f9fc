/**
 * Finds the scoped-rule files of every known format under a project root: a bounded walk of each
 * format's directory (depth, file count, bytes per file), symlinks confined to the root. Ruler's
 * `.ruler/` also brings its `ruler.toml` (agents, nesting) and, nested, the `.ruler/` below.
 */
import type { FileSystem } from "../../io/file-system.js";
import { FsError } from "../../core/errors.js";
import type { Diagnostic } from "../../core/schema.js";
import { decodeLossy } from "../../core/budget.js";
import { quote } from "../../core/quote.js";
import { RULE_FORMATS, RULE_FORMAT_SPECS, type RuleFormat } from "./formats.js";
import { parseFrontmatter } from "./frontmatter.js";
import { normaliseRule, type NormaliseInput, type ScopedRule } from "./rule.js";
import { parseRulerConfig, RULER_DEFAULTS, type RulerConfig } from "./ruler-config.js";

export interface FindRulesOptions {
  /** The project root (absolute, real path). */
  root: string;
  fs: FileSystem;
  /** Formats to look for. @default every format */
  formats?: readonly RuleFormat[];
  /** Most rule files taken in total. @default 500 */
  maxFiles?: number;
  /** Deepest subdirectory of a rules directory walked. @default 6 */
  maxDepth?: number;
  /** Most bytes read from one rule file. @default 256 KiB */
  maxBytes?: number;
  /** Most directories searched for nested `.ruler/` directories (Ruler's `nested = true`). @default 2000 */
  maxNestedDirs?: number;
  /** Records of an earlier scan: a file whose mtime and size did not change is taken from here (one stat, no read). */
  reuse?: ReadonlyMap<string, ScopedRule>;
}

export interface FoundRules {
  rules: ScopedRule[];
  diagnostics: Diagnostic[];
}

export const RULE_DEFAULTS = { maxFiles: 500, maxDepth: 6, maxBytes: 256 * 1024, maxNestedDirs: 2000 } as const;

/** Most bytes of a `ruler.toml` read (its agent tables and MCP servers are small). */
const MAX_RULER_TOML_BYTES = 64 * 1024;

/** Directories Ruler's nested discovery never enters (besides dot directories). */
const RULER_SKIPPED = new Set(["__fixtures__", "__generated__", "build", "coverage", "dist", "fixtures", "generated", "node_modules", "temp", "tmp"]);

/**
 * The `.ruler/` directories below `root` (not the root's own), as Ruler's nested mode finds them:
 * dot directories and build output skipped, links not followed, no descent into another git
 * repository. Bounded: at most `maxDirs` directories are listed.
 */
async function nestedRulerDirs(fs: FileSystem, root: string, maxDirs: number, cut: (path: string) => void): Promise<string[]> {
  const found: string[] = [];
  const queue: string[] = [root];
  let listed = 0;
  while (queue.length) {
    const dir = queue.shift()!;
    if (listed++ >= maxDirs) {
      cut(dir);
      break;
    }
    const entries = await fs.readdir(dir).catch(() => []);
    if (dir !== root && entries.some((entry) => entry.name === ".git")) continue; // another repository
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.kind !== "directory") continue;
      if (entry.name === ".ruler") {
        if (dir !== root) found.push(`${dir}/.ruler`);
      } else if (!entry.name.startsWith(".") && !RULER_SKIPPED.has(entry.name)) queue.push(`${dir}/${entry.name}`);
    }
  }
  return found.sort();
}

function tooManyDirs(path: string, maxDirs: number): [string, string, string, string, Diagnostic["level"]] {
  return [
    "rules-too-many",
    path,
    `more than ${maxDirs} directories searched for nested .ruler directories (nested = true); ${quote(path)} and later ones are not searched`,
    "move nested .ruler directories nearer the root, or set nested = false",
    "warning",
  ];
}

/** Ruler's order: `.ruler/AGENTS.md`, else the legacy `instructions.md`, first; then the rest by path. */
function rulerOrder(rulerDir: string, files: string[]): string[] {
  const first = [`${rulerDir}/AGENTS.md`, `${rulerDir}/instructions.md`].find((path) => files.includes(path));
  return first ? [first, ...files.filter((path) => path !== first).sort()] : [...files].sort();
}

function sameTargets(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((item, index) => item === b[index]));
}

/**
 * Reads every rule file of the given formats under `root`, sorted by format then path.
 */
export async function findRules(options: FindRulesOptions): Promise<FoundRules> {
  const { root, fs } = options;
  const maxFiles = options.maxFiles ?? RULE_DEFAULTS.maxFiles;
  const maxDepth = options.maxDepth ?? RULE_DEFAULTS.maxDepth;
  const maxBytes = options.maxBytes ?? RULE_DEFAULTS.maxBytes;
  const maxNestedDirs = options.maxNestedDirs ?? RULE_DEFAULTS.maxNestedDirs;
  const diagnostics: Diagnostic[] = [];
  const rules: ScopedRule[] = [];
  let budget = maxFiles;
  let realRoot: string | undefined; // asked for only when a rules directory exists

  const inside = async (path: string): Promise<boolean> => {
    try {
      realRoot ??= await fs.realpath(root).catch(() => root);
      const real = await fs.realpath(path);
      return real === realRoot || real.startsWith(realRoot.endsWith("/") ? realRoot : `${realRoot}/`);
    } catch {
      return false;
    }
  };

  // Every problem carries its own fix: doctor's JSON findings hand it on as they are.
  const problem = (code: string, path: string, message: string, fix: string, level: Diagnostic["level"] = "warning") =>
    diagnostics.push({ level, code, message, path, fix });

  /** The rule files below `dir` (sorted; `skip` names top-level subdirectories left out). */
  const listFiles = async (dir: string, suffixes: readonly string[], skip: readonly string[] = []): Promise<string[]> => {
    const files: string[] = [];
    const walk = async (path: string, depth: number): Promise<void> => {
      let entries: Awaited<ReturnType<FileSystem["readdir"]>>;
      try {
        entries = await fs.readdir(path);
      } catch (error) {
        problem(
          "rules-unreadable",
          path,
          `cannot list ${quote(path)}: ${(error as Error).message}; its rules are skipped`,
          "check the directory's permissions",
        );
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const child = `${path}/${entry.name}`;
        let kind = entry.kind;
        if (depth === 0 && skip.includes(entry.name)) continue;
        if (kind === "symlink") {
          // A linked rule file is common (one rule shared by two formats); it must stay inside the root.
          const target = await fs.stat(child).catch(() => null);
          if (!target) continue;
          if (!(await inside(child))) {
            if (suffixes.some((suffix) => entry.name.endsWith(suffix)) || target.kind === "directory")
              problem(
                "rules-outside",
                child,
                `${quote(child)} links outside the project ${quote(root)}; not read`,
                "copy the rule into the project instead of linking to it",
              );
            continue;
          }
          kind = target.kind === "directory" ? "directory" : target.kind;
          if (kind === "directory") continue; // linked directories are not walked: no loops
        }
        if (kind === "directory") {
          if (depth < maxDepth) await walk(child, depth + 1);
          else
            problem(
              "rules-too-deep",
              child,
              `${quote(child)} is deeper than ${maxDepth} levels below ${quote(dir)}; not read`,
              `move its rule files to at most ${maxDepth} levels below ${quote(dir)}`,
              "info",
            );
        } else if (kind === "file" && suffixes.some((suffix) => entry.name.endsWith(suffix))) files.push(child);
      }
    };
    await walk(dir, 0);
    return files;
  };

  /** A directory of rules inside the root (a missing one costs one stat). */
  const rulesDir = async (dir: string): Promise<boolean> => {
    const info = await fs.stat(dir).catch((error: unknown) => {
      problem("rules-unreadable", dir, `cannot read ${quote(dir)}: ${(error as Error).message}; its rules are skipped`, "check the directory's permissions");
      return null;
    });
    return info !== null && info.kind === "directory" && (await inside(dir));
  };

  /** Reads and normalises one rule file; false once the file budget is spent. */
  const take = async (format: RuleFormat, path: string, base: string, extra: Pick<NormaliseInput, "targets" | "belowBase"> = {}): Promise<boolean> => {
    const spec = RULE_FORMAT_SPECS[format];
    if (budget <= 0) {
      problem(
        "rules-too-many",
        path,
        `more than ${maxFiles} rule files under ${quote(root)}; ${quote(path)} and later ones are not read`,
        `merge rule files until at most ${maxFiles} remain`,
      );
      return false;
    }
    budget--;
    const earlier = options.reuse?.get(path);
    if (earlier) {
      const now = await fs.stat(path).catch(() => null);
      if (now && now.kind === "file" && now.mtimeMs === earlier.mtimeMs && now.size === earlier.sizeBytes) {
        // A Ruler rule's agents come from ruler.toml, which may have changed while the file did not.
        rules.push(sameTargets(earlier.targets, extra.targets) ? earlier : { ...earlier, ...(extra.targets ? { targets: extra.targets } : {}) });
        return true;
      }
    }
    let read;
    try {
      read = await fs.read(path, maxBytes);
    } catch (error) {
      if (!(error instanceof FsError && (error.code === "ENOENT" || error.code === "ENOTDIR"))) {
        problem("rules-unreadable", path, `cannot read ${quote(path)}: ${(error as Error).message}; skipped`, "check the file's permissions");
      }
      return true;
    }
    if (read.truncated)
      problem(
        "rule-truncated",
        path,
        `${quote(path)} is ${read.size} bytes; only the first ${maxBytes} are delivered`,
        `shorten it to at most ${maxBytes} bytes or split it`,
      );
    const text = decodeLossy(read.bytes, false);
    // Ruler reads no header: a file is delivered whole, as Ruler concatenates it.
    const frontmatter = format === "ruler" ? { present: false, data: {}, body: text, bodyLine: 1 } : parseFrontmatter(text, spec.globKeys);
    const { rule, problems } = normaliseRule({
      format,
      path,
      base,
      frontmatter,
      mtimeMs: read.mtimeMs,
      sizeBytes: read.size,
      truncated: read.truncated,
      ...extra,
    });
    for (const item of problems) {
      problem(
        frontmatter.error ? "rule-frontmatter" : "rule-invalid",
        path,
        `${quote(path)}:${item.line}: ${item.message}${frontmatter.error ? "; the rule is not delivered until the header is fixed" : ""}`,
        frontmatter.error ? "fix the YAML header at that line" : `correct the header field at line ${item.line}`,
      );
    }
    rules.push(rule);
    return true;
  };

  /** Reads a `ruler.toml` (bounded, confined to the root); its problems name the file. */
  const rulerConfig = async (rulerDir: string): Promise<RulerConfig> => {
    const file = `${rulerDir}/ruler.toml`;
    const info = await fs.lstat(file).catch(() => null);
    if (!info) return RULER_DEFAULTS;
    if (!(await inside(file))) {
      problem(
        "rules-outside",
        file,
        `${quote(file)} links outside the project ${quote(root)}; not read, every agent gets these rules`,
        "keep ruler.toml inside the project",
      );
      return RULER_DEFAULTS;
    }
    let read;
    try {
      read = await fs.read(file, MAX_RULER_TOML_BYTES);
    } catch (error) {
      problem(
        "rules-unreadable",
        file,
        `cannot read ${quote(file)}: ${(error as Error).message}; every agent gets these rules`,
        "check the file's permissions",
      );
      return RULER_DEFAULTS;
    }
    if (read.truncated) {
      problem(
        "rule-invalid",
        file,
        `${quote(file)} is ${read.size} bytes, more than the ${MAX_RULER_TOML_BYTES} read; not read, every agent gets these rules`,
        `shorten it to at most ${MAX_RULER_TOML_BYTES} bytes`,
      );
      return RULER_DEFAULTS;
    }
    const config = parseRulerConfig(decodeLossy(read.bytes, false));
    for (const why of config.problems) problem("rule-invalid", file, `${quote(file)}: ${why}`, "correct it as Ruler's README describes ruler.toml");
    return config;
  };

  /**
   * Ruler: the root's `.ruler/` for every path, and with `nested = true` each `.ruler/` below the
   * root for its own directory, each with its own ruler.toml; false once the file budget is spent.
   */
  const takeRuler = async (main: string): Promise<boolean> => {
    const config = await rulerConfig(main);
    const dirs = config.nested ? [main, ...(await nestedRulerDirs(fs, root, maxNestedDirs, (path) => problem(...tooManyDirs(path, maxNestedDirs))))] : [main];
    for (const rulerDir of dirs) {
      const own = rulerDir === main ? config : (await rulesDir(rulerDir)) ? await rulerConfig(rulerDir) : null;
      if (own === null) continue;
      const skip = own.includeAgents ? ["skills"] : ["skills", "agents"];
      const base = rulerDir.slice(0, -"/.ruler".length);
      for (const path of rulerOrder(rulerDir, await listFiles(rulerDir, [".md"], skip))) {
        if (!(await take("ruler", path, base, { targets: own.agents, belowBase: base !== root }))) return false;
      }
    }
    return true;
  };

  for (const format of options.formats ?? RULE_FORMATS) {
    const spec = RULE_FORMAT_SPECS[format];
    const dir = `${root}/${spec.dir}`;
    if (!(await rulesDir(dir))) continue;
    if (format === "ruler") {
      if (!(await takeRuler(dir))) return { rules, diagnostics };
      continue;
    }
    for (const path of await listFiles(dir, spec.fileSuffixes)) if (!(await take(format, path, root))) return { rules, diagnostics };
  }
  return { rules, diagnostics };
}
