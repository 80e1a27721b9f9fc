/**
 * `agentsmd doctor [DIR]`: scans a tree of instruction files and reports what will go wrong in the
 * agents that read them, each finding with a severity and a fix:
 *
 * | code | severity | what |
 * |---|---|---|
 * | `truncated` / `left-out` | warning | an agent's budget cuts or drops the file (Codex 32 KiB...), or a per-file limit skips it (Claude Code 4 MiB) |
 * | `empty-override` | error | an empty file wins its directory and hides a sibling with text (Codex: empty `AGENTS.override.md`) |
 * | `claude-ignores-agents` | warning | a CLAUDE file turns Claude Code's own AGENTS.md loading off beside and below it |
 * | `agents-disagree` | warning | files some presets read and others never will (a name they do not read) |
 * | `excluded-dir` | warning | an instruction file under an excluded directory: inline loading never delivers it |
 * | `symlink-outside-root` / `symlink-broken` | error / warning | a symlinked instruction file leaving the tree, or dangling |
 * | `import-*` | error (missing, cycle) / warning | `@path` imports that cannot be expanded |
 * | `invalid-utf8` | error | bytes that are not UTF-8 (agents see U+FFFD) |
 * | `identical-copies` | warning | the same text in several files |
 * | `unreadable` | warning | a file that cannot be read |
 * | `hook-misread` | warning | an `agentsmd hook <host>` entry in a file another host reads and runs with its own events (hook-entries.ts) |
 * | `claude-hooks-project-only` | warning | agentsmd's Claude Code hooks only in the project's settings: a session started in a subdirectory gets nothing |
 * | `copilot-runs-claude-hooks` | info | Copilot CLI runs the project's Claude Code hooks too (they stay silent there) |
 * | `rule-frontmatter` / `rule-invalid` | error / warning | a scoped rule whose header does not parse (file:line), or holds a value its format does not accept |
 * | `rule-matches-nothing` | warning | a scoped rule whose globs match no file in the tree |
 * | `rule-unseen` | warning | a scoped rule no host agentsmd serves will ever see (manual, agent-requested, or its format left out of `rules.formats`) |
 * | `rule-duplicate` | warning | the same rule kept in two files (two formats): copies drift, a host getting both sees it twice |
 *
 * Budgets come from real sessions (one per preset and directory whose chain could exceed it), so
 * each preset's own rules decide; name rules come from each preset's resolved config.
 */
import { homedir } from "node:os";
import { createHash } from "node:crypto";
import type { FileSystem, FileInfo } from "../io/file-system.js";
import { nodeFileSystem } from "../io/file-system.js";
import { resolveConfig, type ResolvedConfig } from "../load/config.js";
import { DEFAULT_EXCLUDES } from "../presets/preset.js";
import { getPreset, presetNames } from "../presets/table.js";
import { chooseFiles, groupsFor, identityKey, type NameGroups } from "../load/discover.js";
import type { Found } from "../io/cache.js";
import { expandImports, findImports, resolveImportPath } from "../load/imports.js";
import { isBlank } from "../core/budget.js";
import { ancestors, isInside, join, nameOf, parentOf } from "../core/paths.js";
import { scanTree, type ScannedFile } from "./scan.js";
import { knownInstructionNames, memoFileSystem, startupLoads } from "./survey.js";
import type { SessionOptions } from "../session/session.js";
import { FsError } from "../core/errors.js";
import { CLAUDE_AGENTS_NAMES, CLAUDE_MD_NAMES } from "../presets/claude.js";
import { quote, quoteControls } from "../core/quote.js";
import { checkHookEntries } from "./hook-entries.js";
import { findRules } from "../load/rules/find.js";
import { relativeBelow } from "../load/rules/apply.js";
import { RULE_FORMATS, type AgentsConfig } from "../core/schema.js";
import { globCoverage, ruleFindings } from "./rules.js";

export type Severity = "error" | "warning" | "info";

export interface Finding {
  code: string;
  severity: Severity;
  /** The file the finding is about. */
  path: string;
  /** Every file concerned (the path first), when several are. */
  paths?: string[];
  /** The presets (agents) concerned. */
  agents?: string[];
  message: string;
  fix: string;
}

export interface DoctorReport {
  root: string;
  presets: string[];
  scanned: { dirs: number; files: number; ignoredDirs: number; excludedDirs: number; sessions: number; ms: number };
  findings: Finding[];
  counts: Record<Severity, number>;
}

export interface DoctorOptions {
  /** Directory to scan. */
  root: string;
  /** Session options for the presets (home, env, config, configFile); cwd and preset are set per check. */
  session?: Omit<SessionOptions, "cwd" | "preset">;
  fs?: FileSystem;
  /** Presets to check. @default every registered preset */
  presets?: readonly string[];
  /** Honour .gitignore. @default true */
  gitignore?: boolean;
  /** readdir calls in flight. @default 64 */
  concurrency?: number;
}

/**
 * Per-file limits of agents that no preset models as a budget (peers §2.1): each preset's `fileLimit`.
 * @example AGENT_FILE_LIMITS.find((limit) => limit.preset === "claude")?.bytes // 4194304
 */
export const AGENT_FILE_LIMITS: ReadonlyArray<{ preset: string; agent: string; bytes: number; effect: string }> = presetNames().flatMap((name) => {
  const limit = getPreset(name)?.fileLimit;
  return limit ? [{ preset: name, ...limit }] : [];
});

const MAX_READ = 16 * 1024 * 1024;
const UNLIMITED = Number.MAX_SAFE_INTEGER;

interface FileData {
  scanned: ScannedFile;
  info: FileInfo | null;
  bytes: Uint8Array | null;
  text: string;
  blank: boolean;
  identity: string;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8 = new TextDecoder("utf-8");

function kib(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * Scans `options.root` and reports findings.
 * @example const report = await doctor({ root: "/repo", session: { home: os.homedir() } });
 */
export async function doctor(options: DoctorOptions): Promise<DoctorReport> {
  const started = performance.now();
  const fs = memoFileSystem(options.fs ?? nodeFileSystem);
  const presets = [...(options.presets ?? presetNames())];
  const sessionBase: SessionOptions = { ...(options.session ?? {}), fs };
  const env = sessionBase.env ?? {};
  // Each preset's resolved config (names, budget, excludes) under the user's settings.
  const configs = new Map<string, ResolvedConfig>();
  let raw: AgentsConfig | undefined;
  for (const name of presets) {
    const resolved = await resolveConfig({
      cwd: options.root,
      env,
      fs,
      home: sessionBase.home ?? (env.HOME || homedir()),
      preset: name,
      ...(sessionBase.config ? { config: sessionBase.config } : {}),
      ...(sessionBase.configFile ? { configFile: sessionBase.configFile } : {}),
    });
    configs.set(name, resolved.config);
    raw ??= resolved.raw;
  }
  const rules = await findRules({ root: options.root, fs, formats: RULE_FORMATS });
  const coverage = globCoverage(rules.rules);
  const allNames = knownInstructionNames([...configs.values()].flatMap((config) => config.files.names));
  const excludes = [...new Set([...DEFAULT_EXCLUDES, ...[...configs.values()].flatMap((config) => config.lazy.exclude)])];
  const scan = await scanTree({
    fs,
    root: options.root,
    names: allNames,
    exclude: excludes,
    ...(options.gitignore !== undefined ? { gitignore: options.gitignore } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    onEntries: (dir, entries) => {
      for (const entry of entries) {
        if (entry.kind === "directory") continue;
        const relative = relativeBelow(join(dir, entry.name), options.root);
        if (relative !== null) coverage.add(relative);
      }
    },
  });
  const findings: Finding[] = [];
  const add = (finding: Finding) => findings.push(finding);
  for (const diagnostic of rules.diagnostics) {
    const header = diagnostic.code === "rule-frontmatter";
    add({
      code: diagnostic.code,
      severity: header ? "error" : "warning",
      path: diagnostic.path ?? options.root,
      message: diagnostic.message,
      fix: header ? "fix the YAML at that line (quote globs that start with * or hold a comma-list)" : (diagnostic.fix ?? "see the message"),
    });
  }
  for (const finding of ruleFindings(rules.rules, coverage.unmatched(), raw?.rules?.formats)) add(finding);
  for (const diagnostic of scan.diagnostics)
    add({
      code: "unreadable",
      severity: "warning",
      path: diagnostic.path ?? options.root,
      message: diagnostic.message,
      fix: "check the directory's permissions",
    });

  const rootReal = await fs.realpath(options.root).catch(() => options.root);
  const home = sessionBase.home ?? env.HOME ?? "/";
  const data = await readAll(fs, scan.files, rootReal, add);
  const byScope = new Map<string, FileData[]>();
  for (const file of data) {
    if (!byScope.has(file.scanned.scope)) byScope.set(file.scanned.scope, []);
    byScope.get(file.scanned.scope)!.push(file);
  }

  checkEmptyOverrides(byScope, presets, configs, allNames, add);
  checkClaude(data, byScope, presets, home, add);
  checkNames(data, presets, configs, add);
  checkExcluded(data, presets, configs, add);
  await checkImports(
    fs,
    data,
    rootReal,
    presets.filter((name) => configs.get(name)!.imports.enabled),
    home,
    add,
  );
  checkCopies(data, add);
  checkFileLimits(data, presets, add);
  const sessions = await checkBudgets(byScope, presets, configs, sessionBase, options.root, add);
  await checkHookEntries(fs, options.root, home, env, add);

  findings.sort(
    (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.code < b.code ? -1 : 1),
  );
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity]++;
  return {
    root: options.root,
    presets,
    scanned: {
      dirs: scan.dirs,
      files: scan.files.length,
      ignoredDirs: scan.ignoredDirs,
      excludedDirs: scan.excludedDirs.length,
      sessions,
      ms: Math.round(performance.now() - started),
    },
    findings,
    counts,
  };
}

/** Reads every scanned file once; symlinks, UTF-8 and read errors are checked here. */
async function readAll(fs: FileSystem, files: readonly ScannedFile[], rootReal: string, add: (finding: Finding) => void): Promise<FileData[]> {
  const out: FileData[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const scanned = files[next++]!;
      const data: FileData = { scanned, info: null, bytes: null, text: "", blank: true, identity: scanned.path };
      if (scanned.kind === "symlink") {
        const real = await fs.realpath(scanned.path).catch(() => null);
        if (real === null) {
          add({
            code: "symlink-broken",
            severity: "warning",
            path: scanned.path,
            message: `${scanned.path} is a symlink to nothing: every agent skips it`,
            fix: "point it at an existing file or remove it",
          });
          continue;
        }
        if (!isInside(real, rootReal)) {
          add({
            code: "symlink-outside-root",
            severity: "error",
            path: scanned.path,
            message: `${scanned.path} is a symlink to ${real}, outside ${rootReal}: agents load text that is not in the repository (other clones lack it, and it may change without review)`,
            fix: `copy the text into the repository or import it explicitly; sessions skip it with files.symlinks: "inside-root"`,
          });
        }
      }
      try {
        data.info = await fs.stat(scanned.path);
        if (!data.info || data.info.kind !== "file") {
          if (data.info)
            add({
              code: "not-a-file",
              severity: "warning",
              path: scanned.path,
              message: `${scanned.path} is not a regular file: agents skip it`,
              fix: "replace it with a regular file or remove it",
            });
          continue;
        }
        const read = await fs.read(scanned.path, MAX_READ);
        data.bytes = read.bytes;
        data.identity = identityKey(data.info);
      } catch (error) {
        add({
          code: "unreadable",
          severity: "warning",
          path: scanned.path,
          message: `cannot read ${scanned.path}: ${(error as Error).message}`,
          fix: error instanceof FsError && error.fix ? error.fix : "check the file's permissions",
        });
        continue;
      }
      try {
        data.text = strictUtf8.decode(data.bytes);
      } catch {
        data.text = lossyUtf8.decode(data.bytes);
        const offset = firstInvalidUtf8(data.bytes);
        add({
          code: "invalid-utf8",
          severity: "error",
          path: scanned.path,
          message: `${scanned.path} is not valid UTF-8 (first bad byte at offset ${offset}): agents see U+FFFD in its place`,
          fix: "re-save the file as UTF-8",
        });
      }
      data.blank = isBlank(data.text);
      out.push(data);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  out.sort((a, b) => (a.scanned.path < b.scanned.path ? -1 : 1));
  return out;
}

/** Byte offset of the first invalid UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const byte = bytes[index]!;
    const width = byte < 0x80 ? 1 : byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0;
    if (width === 0 || index + width > bytes.length) return index;
    try {
      strictUtf8.decode(bytes.subarray(index, index + width));
    } catch {
      return index;
    }
    index += width;
  }
  return -1;
}

/** Name groups a preset selects by (its resolved names, and its touch groups). */
function presetGroups(name: string, config: ResolvedConfig): NameGroups[] {
  const preset = getPreset(name)!;
  const groups = [groupsFor(config.files.names, config.files.select)];
  if (preset.lazy.groups) groups.push(preset.lazy.groups);
  return groups;
}

function asProbe(files: readonly FileData[], order: readonly string[]) {
  const found: Found[] = files
    .filter((file) => file.info?.kind === "file")
    .map((file) => ({ name: file.scanned.name, path: file.scanned.path, info: file.info! }))
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  return { files: found, irregular: [], errors: [] };
}

function checkEmptyOverrides(
  byScope: ReadonlyMap<string, FileData[]>,
  presets: readonly string[],
  configs: ReadonlyMap<string, ResolvedConfig>,
  order: readonly string[],
  add: (finding: Finding) => void,
): void {
  for (const [, files] of byScope) {
    if (!files.some((file) => file.blank) || files.length < 2) continue;
    const probe = asProbe(files, order);
    const hidden = new Map<string, { winner: string; hidden: string; agents: Set<string> }>();
    for (const name of presets) {
      for (const groups of presetGroups(name, configs.get(name)!)) {
        const choice = chooseFiles(probe, groups);
        const blankWinner = choice.selected.length > 0 && choice.selected.every((found) => files.find((file) => file.scanned.path === found.path)!.blank);
        if (!blankWinner) continue;
        for (const { found } of choice.shadowed) {
          if (files.find((file) => file.scanned.path === found.path)!.blank) continue;
          const key = `${choice.selected[0]!.path}\0${found.path}`;
          if (!hidden.has(key)) hidden.set(key, { winner: choice.selected[0]!.path, hidden: found.path, agents: new Set() });
          hidden.get(key)!.agents.add(name);
        }
      }
    }
    for (const entry of hidden.values()) {
      const agents = [...entry.agents];
      add({
        code: "empty-override",
        severity: "error",
        path: entry.winner,
        paths: [entry.winner, entry.hidden],
        agents,
        message: `${entry.winner} is empty, yet ${agents.join(", ")} pick${agents.length === 1 ? "s" : ""} it over ${nameOf(entry.hidden)} in this directory: ${entry.hidden} never loads there`,
        fix: `delete the empty ${nameOf(entry.winner)} (or give it the text it should have)`,
      });
    }
  }
}

function checkClaude(
  data: readonly FileData[],
  byScope: ReadonlyMap<string, FileData[]>,
  presets: readonly string[],
  home: string,
  add: (finding: Finding) => void,
): void {
  if (!presets.includes("claude")) return;
  const agents = data.filter((file) => CLAUDE_AGENTS_NAMES.includes(file.scanned.name));
  for (const [scope, files] of byScope) {
    const claude = files.filter((file) => CLAUDE_MD_NAMES.includes(file.scanned.name));
    if (claude.length === 0) continue;
    // A CLAUDE file that imports AGENTS.md or is the same file keeps it.
    const kept = new Set<string>();
    for (const file of claude) {
      for (const each of agents) {
        if (file.identity === each.identity) kept.add(each.scanned.path);
        if (importsFile(file, each.scanned.path, home)) kept.add(each.scanned.path);
      }
    }
    const hidden = agents.filter((each) => isInside(each.scanned.scope, scope) && !kept.has(each.scanned.path) && !each.blank);
    if (hidden.length === 0) continue;
    const first = claude[0]!.scanned.path;
    const beside = hidden.filter((each) => each.scanned.scope === scope);
    add({
      code: "claude-ignores-agents",
      severity: "warning",
      path: first,
      paths: [first, ...hidden.map((each) => each.scanned.path)],
      agents: ["claude"],
      message:
        `${first} turns Claude Code's built-in AGENTS.md support off for sessions started in ${scope} or below: ` +
        `${beside.length > 0 ? "the AGENTS.md beside it" : "the AGENTS.md files below it"}${hidden.length > beside.length && beside.length > 0 ? ` and ${hidden.length - beside.length} more below` : ""} never ${hidden.length === 1 ? "loads" : "load"} there (${hidden.map((each) => each.scanned.path).join(", ")})`,
      fix: `add a line "@AGENTS.md" to ${nameOf(first)} so it imports AGENTS.md, or move its text into AGENTS.md and delete it`,
    });
  }
}

/** True when `file` has an `@path` import naming `target`. */
function importsFile(file: FileData, target: string, home: string): boolean {
  return findImports(file.text).some((token) => resolveImportPath(token.path, file.scanned.path, home) === target);
}

/** Agents whose own instruction files appear in the tree (the repository is set up for them). */
function usedAgents(data: readonly FileData[]): Set<string> {
  const used = new Set<string>();
  for (const file of data) {
    const name = file.scanned.name;
    if (name === "GEMINI.md") used.add("gemini");
    if (name === "CLAUDE.md" || name === "CLAUDE.local.md") used.add("claude");
    if (name === "AGENTS.override.md") used.add("codex");
    if (name === "copilot-instructions.md") used.add("copilot");
  }
  return used;
}

/** How to make an agent read AGENTS.md: its own setting first, agentsmd's per-preset section second. */
function readAgentsMdFix(agent: string): string {
  const agentsmd = `presets.${agent}.files.names in agentsmd's config for agentsmd alone`;
  if (agent === "gemini")
    return `Gemini CLI: set context.fileName to ["GEMINI.md", "AGENTS.md"] in ~/.gemini/settings.json (or the project's .gemini/settings.json); ${agentsmd}`;
  if (agent === "codex") return `Codex: project_doc_fallback_filenames in ~/.codex/config.toml; ${agentsmd}`;
  return `${agent}: ${agentsmd}`;
}

function checkNames(
  data: readonly FileData[],
  presets: readonly string[],
  configs: ReadonlyMap<string, ResolvedConfig>,
  add: (finding: Finding) => void,
): void {
  const reads = new Map<string, Set<string>>();
  for (const name of presets) {
    const names = new Set(presetGroups(name, configs.get(name)!).flatMap((groups) => groups.flat()));
    reads.set(name, names);
  }
  const groups = new Map<string, { name: string; readers: string[]; never: string[]; paths: string[] }>();
  for (const file of data) {
    if (file.blank) continue;
    const readers = presets.filter((preset) => reads.get(preset)!.has(file.scanned.name));
    const never = presets.filter((preset) => !readers.includes(preset));
    if (never.length === 0 || readers.length === 0) continue;
    const key = `${file.scanned.name}\0${never.join(",")}`;
    if (!groups.has(key)) groups.set(key, { name: file.scanned.name, readers, never, paths: [] });
    groups.get(key)!.paths.push(file.scanned.path);
  }
  // Advice about an agent the repository shows no sign of using is only information.
  const used = usedAgents(data);
  for (const group of groups.values()) {
    const count = group.paths.length;
    add({
      code: "agents-disagree",
      severity: group.never.some((agent) => used.has(agent)) ? "warning" : "info",
      path: group.paths[0]!,
      paths: group.paths,
      agents: group.never,
      message: `${count === 1 ? group.paths[0] : `${count} ${group.name} files`} ${count === 1 ? "is" : "are"} read by ${group.readers.join(", ")} but never by ${group.never.join(", ")} (${group.name} is not a name ${group.never.length === 1 ? "it reads" : "they read"})`,
      fix:
        group.name === "AGENTS.md"
          ? group.never.map(readAgentsMdFix).join("; ")
          : group.name.includes("CLAUDE") || group.name.includes("GEMINI")
            ? `keep shared guidance in AGENTS.md; make ${group.name} a one-line "@AGENTS.md" import or a symlink to it`
            : `if ${group.name} is meant for every agent, put its text in AGENTS.md`,
    });
  }
}

function checkExcluded(
  data: readonly FileData[],
  presets: readonly string[],
  configs: ReadonlyMap<string, ResolvedConfig>,
  add: (finding: Finding) => void,
): void {
  for (const file of data) {
    const excludedBy = file.scanned.excludedBy;
    if (!excludedBy) continue;
    const agents = presets.filter((name) => configs.get(name)!.lazy.exclude.includes(excludedBy));
    if (agents.length === 0) continue;
    add({
      code: "excluded-dir",
      severity: "warning",
      path: file.scanned.path,
      agents,
      message: `${file.scanned.path} lies under ${excludedBy}/, an excluded directory: ${agents.join(", ")} never deliver it when a file there is touched (lazy.exclude)`,
      fix: `move it out of ${excludedBy}/, or drop "${excludedBy}" from lazy.exclude`,
    });
  }
}

async function checkImports(
  fs: FileSystem,
  data: readonly FileData[],
  rootReal: string,
  agents: readonly string[],
  home: string,
  add: (finding: Finding) => void,
): Promise<void> {
  if (agents.length === 0) return;
  for (const file of data) {
    if (!file.text.includes("@")) continue;
    const result = await expandImports(file.text, file.scanned.path, { fs, home, allowedRoots: [rootReal] });
    for (const diagnostic of result.diagnostics) {
      const code = diagnostic.code;
      const severity: Severity = code === "import-missing" || code === "import-cycle" ? "error" : "warning";
      add({
        code,
        severity,
        path: diagnostic.path ?? file.scanned.path,
        agents: [...agents],
        message: diagnostic.message,
        fix: diagnostic.fix ?? "fix the import",
      });
    }
  }
}

function checkCopies(data: readonly FileData[], add: (finding: Finding) => void): void {
  const byHash = new Map<string, FileData[]>();
  const identities = new Set<string>();
  for (const file of data) {
    if (file.blank || !file.bytes || identities.has(file.identity)) continue;
    identities.add(file.identity);
    const hash = createHash("sha1").update(file.bytes).digest("hex");
    if (!byHash.has(hash)) byHash.set(hash, []);
    byHash.get(hash)!.push(file);
  }
  for (const files of byHash.values()) {
    if (files.length < 2) continue;
    const paths = files.map((file) => file.scanned.path);
    add({
      code: "identical-copies",
      severity: "warning",
      path: paths[0]!,
      paths,
      message: `${paths.length} files hold the same text (${paths.join(", ")}): an edit to one leaves the others stale, and an agent reading two of them gets it twice`,
      fix: `keep ${paths[0]} and replace the others with a symlink or a one-line "@${nameOf(paths[0]!)}" import`,
    });
  }
}

function checkFileLimits(data: readonly FileData[], presets: readonly string[], add: (finding: Finding) => void): void {
  for (const limit of AGENT_FILE_LIMITS) {
    if (!presets.includes(limit.preset)) continue;
    for (const file of data) {
      const size = file.info?.size ?? 0;
      if (size <= limit.bytes) continue;
      add({
        code: "truncated",
        severity: "warning",
        path: file.scanned.path,
        agents: [limit.preset],
        message: `${file.scanned.path} is ${size} bytes: ${limit.agent} ${limit.effect} over ${kib(limit.bytes)}`,
        fix: "split it into smaller files",
      });
    }
  }
}

/**
 * Runs startup sessions where a preset's budget could be exceeded (the chain's total size above
 * the budget) and reports what it cut or left out, once per (preset, file), for the shallowest
 * directory it happens in.
 */
async function checkBudgets(
  byScope: ReadonlyMap<string, FileData[]>,
  presets: readonly string[],
  configs: ReadonlyMap<string, ResolvedConfig>,
  base: SessionOptions,
  root: string,
  add: (finding: Finding) => void,
): Promise<number> {
  const budgeted = presets.filter((name) => {
    const config = configs.get(name)!;
    return config.initial.maxBytes < UNLIMITED || config.initial.maxFiles < UNLIMITED;
  });
  if (budgeted.length === 0 || byScope.size === 0) return 0;
  // What each preset loads above the scanned directory counts against its budget too.
  const above = await startupLoads(base, budgeted, [root]);
  const scopeBytes = new Map<string, { bytes: number; files: number }>();
  for (const [scope, files] of byScope) {
    scopeBytes.set(scope, { bytes: files.reduce((sum, file) => sum + (file.info?.size ?? 0), 0), files: files.length });
  }
  const chainTotal = (dir: string) => {
    let bytes = 0;
    let files = 0;
    for (const each of ancestors(dir)) {
      if (!isInside(each, root)) break;
      const own = scopeBytes.get(each);
      if (own) {
        bytes += own.bytes;
        files += own.files;
      }
    }
    return { bytes, files };
  };
  let sessions = 1;
  const reported = new Set<string>();
  const scopes = [...byScope.keys()].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  for (const name of budgeted) {
    const config = configs.get(name)!;
    const outer = above.get(name)!.get(root)!;
    const outerBytes = outer.files.filter((file) => file.layer === "project" && !isInside(file.path, root)).reduce((sum, file) => sum + file.sizeBytes, 0);
    const outerFiles = outer.files.filter((file) => file.layer === "project" && !isInside(file.path, root)).length;
    const dirs = scopes.filter((scope) => {
      const total = chainTotal(scope);
      return total.bytes + outerBytes > config.initial.maxBytes || total.files + outerFiles > config.initial.maxFiles;
    });
    if (dirs.length === 0) continue;
    const loads = await startupLoads(base, [name], dirs);
    sessions += dirs.length;
    for (const dir of dirs) {
      const load = loads.get(name)!.get(dir)!;
      for (const file of load.files) {
        if (!file.truncated || file.layer !== "project" || !isInside(file.path, root)) continue;
        const key = `${name}\0${file.path}`;
        if (reported.has(key)) continue;
        reported.add(key);
        add({
          code: "truncated",
          severity: "warning",
          path: file.path,
          agents: [name],
          message: `${name} cuts ${file.path} to ${file.includedBytes} of ${file.sizeBytes} bytes (its budget: ${kib(config.initial.maxBytes)} for the whole chain, ${getPreset(name)!.startup.keep}) in sessions started in ${dir}${dir === parentOf(file.path) ? "" : " or below"}`,
          fix: "shorten the files on this chain, or move detail into files deeper in the tree",
        });
      }
      for (const file of load.load?.leftOut ?? []) {
        if (!isInside(file.path, root) || file.reason === "disabled") continue;
        const key = `${name}\0${file.path}`;
        if (reported.has(key)) continue;
        reported.add(key);
        add({
          code: "left-out",
          severity: "warning",
          path: file.path,
          agents: [name],
          message: `${name} leaves ${file.path} out entirely in sessions started in ${dir}: its budget (${file.reason === "max-files" ? `${config.initial.maxFiles} files` : kib(config.initial.maxBytes)}) is spent on ${getPreset(name)!.startup.keep === "root-first" ? "files nearer the root" : "files nearer cwd"}`,
          fix: "shorten the files on this chain",
        });
      }
    }
  }
  return sessions;
}

/** The text report. */
export function formatReport(report: DoctorReport): string {
  const lines: string[] = [];
  for (const finding of report.findings) {
    lines.push(
      `${finding.severity.padEnd(7)}  ${finding.code}  ${quote(finding.path)}`,
      `         ${quoteControls(finding.message)}`,
      `         fix: ${quoteControls(finding.fix)}`,
    );
  }
  const { error, warning, info } = report.counts;
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  if (report.findings.length > 0) lines.push("");
  lines.push(
    `${plural(error, "error")}, ${plural(warning, "warning")}, ${info} info in ${plural(report.scanned.files, "instruction file")} ` +
      `(${plural(report.scanned.dirs, "directory").replace("directorys", "directories")} scanned, presets: ${report.presets.join(", ")})`,
  );
  return lines.join("\n");
}
