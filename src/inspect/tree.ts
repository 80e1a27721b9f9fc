/**
 * `agentsmd tree [DIR]`: the scope map of a repository, the directory tree pruned to instruction
 * files, each with its size, an estimated token count and the presets that load it at startup
 * (for a session started in the directory it governs, as computed by real sessions).
 */
import type { FileSystem } from "../io/file-system.js";
import { nodeFileSystem } from "../io/file-system.js";
import { presetNames } from "../presets/table.js";
import { chainTotals, memoFileSystem, presetConfigs, scanInstructionTree, startupLoads, SURVEY_CHAIN_LIMIT } from "./survey.js";
import { countOf } from "../core/words.js";
import type { SessionOptions } from "../session/session.js";
import { nameOf, parentOf, segmentsBelow } from "../core/paths.js";
import { tokensForBytes } from "../session/compaction.js";
import { quote } from "../core/quote.js";
import { findRules } from "../load/rules/find.js";
import { RULE_FORMAT_SPECS } from "../load/rules/formats.js";
import { RULE_FORMATS, type RuleFormat } from "../core/schema.js";
import { ruleReach, type RuleReach } from "./rules.js";

/**
 * Rough token estimate of a file size: four bytes a token, the rule of compaction's `estimateTokens`.
 */
export function estimateTokens(bytes: number): number {
  return tokensForBytes(bytes);
}

interface ScopeFile {
  path: string;
  /** The directory it governs. */
  scope: string;
  name: string;
  sizeBytes: number;
  tokens: number;
  /** Presets that load it at startup in a session started in `scope`. */
  startup: string[];
  /** Set when no session ran for `scope`: its chain holds more instruction files than the survey's limit. */
  startupSkipped?: { chainFiles: number; limit: number };
  /** The excluded directory it lies under, if any. */
  excludedBy?: string;
  gitignored?: boolean;
}

/** A scoped rule of the tree (`.github/instructions`, `.cursor/rules`, ...). */
interface TreeRule {
  path: string;
  format: RuleFormat;
  activation: string;
  globs: string[];
  tokens: number;
  reach: RuleReach;
}

export interface ScopeTree {
  root: string;
  presets: string[];
  files: ScopeFile[];
  dirs: number;
  /** Scoped rules found under the root (every format). */
  rules?: TreeRule[];
}

export interface ScopeTreeOptions {
  root: string;
  session?: Omit<SessionOptions, "cwd" | "preset">;
  fs?: FileSystem;
  presets?: readonly string[];
  gitignore?: boolean;
}

/**
 * Scans `root` and asks every preset what it loads at startup in each scope.
 */
export async function buildScopeTree(options: ScopeTreeOptions): Promise<ScopeTree> {
  const fs = memoFileSystem(options.fs ?? nodeFileSystem);
  const presets = [...(options.presets ?? presetNames())];
  // The scan doctor runs too: the same files and the same count of directories.
  const { configs } = await presetConfigs({ root: options.root, fs, session: options.session ?? {}, presets });
  const scan = await scanInstructionTree({
    fs,
    root: options.root,
    configs: configs.values(),
    ...(options.gitignore !== undefined ? { gitignore: options.gitignore } : {}),
  });
  const perScope = new Map<string, { bytes: number; files: number }>();
  for (const file of scan.files) perScope.set(file.scope, { bytes: 0, files: (perScope.get(file.scope)?.files ?? 0) + 1 });
  const chains = chainTotals(perScope);
  const surveyed = [...perScope.keys()].filter((scope) => chains.get(scope)!.files <= SURVEY_CHAIN_LIMIT);
  const loads = await startupLoads({ ...(options.session ?? {}), fs }, presets, surveyed, { keep: (load) => new Set(load.files.map((loaded) => loaded.path)) });
  const files: ScopeFile[] = [];
  for (const file of scan.files) {
    const info = await fs.stat(file.path).catch(() => null);
    const size = info?.size ?? 0;
    const chainFiles = chains.get(file.scope)!.files;
    files.push({
      path: file.path,
      scope: file.scope,
      name: file.name,
      sizeBytes: size,
      tokens: estimateTokens(size),
      startup: presets.filter((preset) => loads.get(preset)!.get(file.scope)?.has(file.path) === true),
      ...(chainFiles > SURVEY_CHAIN_LIMIT ? { startupSkipped: { chainFiles, limit: SURVEY_CHAIN_LIMIT } } : {}),
      ...(file.excludedBy ? { excludedBy: file.excludedBy } : {}),
      ...(file.gitignored ? { gitignored: true } : {}),
    });
  }
  const found = await findRules({ root: options.root, fs, formats: RULE_FORMATS });
  const rules = found.rules.map((rule) => ({
    path: rule.path,
    format: rule.format,
    activation: rule.activation,
    globs: rule.globs,
    tokens: estimateTokens(Buffer.byteLength(rule.body)),
    reach: ruleReach(rule, options.session?.config?.rules?.formats),
  }));
  return { root: options.root, presets, files, dirs: scan.dirs, rules };
}

interface Node {
  label: string;
  files: ScopeFile[];
  children: Map<string, Node>;
}

/** Directories of the pruned tree, with chains of file-less single-child directories merged. */
function buildNodes(tree: ScopeTree): Node {
  const top: Node = { label: tree.root, files: [], children: new Map() };
  for (const file of tree.files) {
    let node = top;
    for (const segment of segmentsBelow(parentOf(file.path), tree.root)) {
      if (!node.children.has(segment)) node.children.set(segment, { label: segment, files: [], children: new Map() });
      node = node.children.get(segment)!;
    }
    node.files.push(file);
  }
  const merge = (node: Node): Node => {
    for (const [key, child] of node.children) node.children.set(key, merge(child));
    if (node !== top && node.files.length === 0 && node.children.size === 1) {
      const [only] = node.children.values();
      return { ...only!, label: `${node.label}/${only!.label}` };
    }
    return node;
  };
  return merge(top);
}

const STYLES = { dir: "\u001b[1;34m", dim: "\u001b[2m", preset: "\u001b[32m", none: "\u001b[33m", reset: "\u001b[0m" } as const;

/**
 * The tree as text; `color` adds ANSI colours (the CLI turns them on for a terminal only).
 */
export function renderScopeTree(tree: ScopeTree, options: { color: boolean }): string {
  const paint = (style: keyof typeof STYLES, text: string) => (options.color ? `${STYLES[style]}${text}${STYLES.reset}` : text);
  const rows: Array<{ left: string; leftWidth: number; file?: ScopeFile }> = [];
  const walk = (node: Node, prefix: string) => {
    const entries: Array<{ file?: ScopeFile; child?: Node }> = [
      ...[...node.files].sort((a, b) => (nameOf(a.path) < nameOf(b.path) ? -1 : 1)).map((file) => ({ file })),
      ...[...node.children.values()].sort((a, b) => (a.label < b.label ? -1 : 1)).map((child) => ({ child })),
    ];
    entries.forEach((entry, index) => {
      const last = index === entries.length - 1;
      const branch = `${prefix}${last ? "└── " : "├── "}`;
      if (entry.file) {
        const label = quote(entry.file.path.slice(parentOf(entry.file.path).length + 1));
        rows.push({ left: `${branch}${label}`, leftWidth: branch.length + label.length, file: entry.file });
      } else {
        const label = `${quote(entry.child!.label)}/`;
        rows.push({ left: `${branch}${paint("dir", label)}`, leftWidth: branch.length + label.length });
        walk(entry.child!, `${prefix}${last ? "    " : "│   "}`);
      }
    });
  };
  const top = buildNodes(tree);
  walk(top, "");
  const width = Math.max(0, ...rows.filter((row) => row.file).map((row) => row.leftWidth));
  const sizeWidth = Math.max(0, ...tree.files.map((file) => String(file.sizeBytes).length));
  const tokenWidth = Math.max(0, ...tree.files.map((file) => String(file.tokens).length));
  const lines = [paint("dir", quote(tree.root))];
  for (const row of rows) {
    if (!row.file) {
      lines.push(row.left);
      continue;
    }
    const file = row.file;
    const size = paint("dim", `${String(file.sizeBytes).padStart(sizeWidth)} B  ${`~${file.tokens}`.padStart(tokenWidth + 1)} tok`);
    const notes = [file.excludedBy ? `under excluded ${quote(file.excludedBy)}/` : "", file.gitignored ? "gitignored" : ""].filter(Boolean);
    const who = file.startupSkipped
      ? paint("none", `startup not computed (${file.startupSkipped.chainFiles} instruction files on its chain, over ${file.startupSkipped.limit})`)
      : file.startup.length > 0
        ? paint("preset", file.startup.join(" "))
        : paint("none", "no preset at startup");
    lines.push(`${row.left}${" ".repeat(width - row.leftWidth)}  ${size}  ${who}${notes.length > 0 ? paint("dim", `  (${notes.join(", ")})`) : ""}`);
  }
  if (tree.rules && tree.rules.length > 0) {
    lines.push("", "Scoped rules (agentsmd delivers each to the hosts that do not read its format):");
    for (const rule of tree.rules) {
      const spec = RULE_FORMAT_SPECS[rule.format];
      const when =
        rule.activation === "glob"
          ? `${spec.globKeys[0]} ${rule.globs.map((glob) => JSON.stringify(glob)).join(", ")}`
          : rule.activation === "always"
            ? "always"
            : `${rule.activation} only`;
      const who = [
        rule.reach.native.length ? `reads it: ${rule.reach.native.join(" ")}` : "",
        rule.reach.agentsmd.length ? `via agentsmd: ${rule.reach.agentsmd.join(" ")}` : paint("none", "agentsmd never delivers it"),
      ]
        .filter(Boolean)
        .join("; ");
      lines.push(`  ${quote(rule.path.slice(tree.root.length + 1))}  ${paint("dim", `${spec.label}, ${when}, ~${rule.tokens} tok`)}  ${who}`);
    }
  }
  const total = tree.files.reduce((sum, file) => sum + file.sizeBytes, 0);
  const skipped = tree.files.filter((file) => file.startupSkipped).length;
  if (skipped > 0) {
    lines.push(
      "",
      `startup not computed for ${countOf(skipped, "file")}: a chain of over ${SURVEY_CHAIN_LIMIT} instruction files (run \`agentsmd explain\` on one to see its session)`,
    );
  }
  lines.push(
    "",
    `${countOf(tree.files.length, "instruction file")}, ${countOf(total, "byte")} (~${countOf(estimateTokens(total), "token")}), ${countOf(tree.dirs, "directory")} scanned; ` +
      `presets listed load the file at startup in a session started in its directory`,
  );
  return lines.join("\n");
}
