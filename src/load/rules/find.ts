/**
 * Finds the scoped-rule files of every known format under a project root: a bounded walk of each
 * format's directory (depth, file count, bytes per file), symlinks confined to the root.
 */
import type { FileSystem } from "../../io/file-system.js";
import { FsError } from "../../core/errors.js";
import type { Diagnostic } from "../../core/schema.js";
import { decodeLossy } from "../../core/budget.js";
import { quote } from "../../core/quote.js";
import { RULE_FORMATS, RULE_FORMAT_SPECS, type RuleFormat } from "./formats.js";
import { parseFrontmatter } from "./frontmatter.js";
import { normaliseRule, type ScopedRule } from "./rule.js";

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
  /** Records of an earlier scan: a file whose mtime and size did not change is taken from here (one stat, no read). */
  reuse?: ReadonlyMap<string, ScopedRule>;
}

export interface FoundRules {
  rules: ScopedRule[];
  diagnostics: Diagnostic[];
}

export const RULE_DEFAULTS = { maxFiles: 500, maxDepth: 6, maxBytes: 256 * 1024 } as const;

/**
 * Reads every rule file of the given formats under `root`, sorted by format then path.
 */
export async function findRules(options: FindRulesOptions): Promise<FoundRules> {
  const { root, fs } = options;
  const maxFiles = options.maxFiles ?? RULE_DEFAULTS.maxFiles;
  const maxDepth = options.maxDepth ?? RULE_DEFAULTS.maxDepth;
  const maxBytes = options.maxBytes ?? RULE_DEFAULTS.maxBytes;
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

  for (const format of options.formats ?? RULE_FORMATS) {
    const spec = RULE_FORMAT_SPECS[format];
    const dir = `${root}/${spec.dir}`;
    const info = await fs.stat(dir).catch((error: unknown) => {
      problem("rules-unreadable", dir, `cannot read ${quote(dir)}: ${(error as Error).message}; its rules are skipped`, "check the directory's permissions");
      return null;
    });
    if (!info || info.kind !== "directory" || !(await inside(dir))) continue;
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
        if (kind === "symlink") {
          // A linked rule file is common (one rule shared by two formats); it must stay inside the root.
          const target = await fs.stat(child).catch(() => null);
          if (!target || !(await inside(child))) continue;
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
        } else if (kind === "file" && spec.fileSuffixes.some((suffix) => entry.name.endsWith(suffix))) files.push(child);
      }
    };
    await walk(dir, 0);
    for (const path of files) {
      if (budget <= 0) {
        problem(
          "rules-too-many",
          path,
          `more than ${maxFiles} rule files under ${quote(root)}; ${quote(path)} and later ones are not read`,
          `merge rule files until at most ${maxFiles} remain`,
        );
        return { rules, diagnostics };
      }
      budget--;
      const earlier = options.reuse?.get(path);
      if (earlier) {
        const now = await fs.stat(path).catch(() => null);
        if (now && now.kind === "file" && now.mtimeMs === earlier.mtimeMs && now.size === earlier.sizeBytes) {
          rules.push(earlier);
          continue;
        }
      }
      let read;
      try {
        read = await fs.read(path, maxBytes);
      } catch (error) {
        if (!(error instanceof FsError && (error.code === "ENOENT" || error.code === "ENOTDIR"))) {
          problem("rules-unreadable", path, `cannot read ${quote(path)}: ${(error as Error).message}; skipped`, "check the file's permissions");
        }
        continue;
      }
      if (read.truncated)
        problem(
          "rule-truncated",
          path,
          `${quote(path)} is ${read.size} bytes; only the first ${maxBytes} are delivered`,
          `shorten it to at most ${maxBytes} bytes or split it`,
        );
      const text = decodeLossy(read.bytes, false);
      const frontmatter = parseFrontmatter(text, spec.globKeys);
      const { rule, problems } = normaliseRule({
        format,
        path,
        base: root,
        frontmatter,
        mtimeMs: read.mtimeMs,
        sizeBytes: read.size,
        truncated: read.truncated,
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
    }
  }
  return { rules, diagnostics };
}
