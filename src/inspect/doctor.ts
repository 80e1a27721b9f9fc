/**
 * `agentsmd doctor [DIR]`: scans a tree of instruction files and reports what will go wrong in the
 * agents that read them, each finding with a severity and a fix:
 *
 * | code | severity | what |
 * |---|---|---|
 * | `truncated` / `left-out` | warning | an agent's budget cuts or drops the file (Codex 32 KiB...), or a per-file limit skips it (Claude Code 4 MiB) |
 * | `empty-override` | error | an empty file wins its directory and hides a sibling with text (Codex: empty `AGENTS.override.md`) |
 * | `override-hides-bigger-file` | warning | an `AGENTS.override.md` replaces a bigger `AGENTS.md` beside it (Codex reads one file per directory) |
 * | `claude-ignores-agents` | warning | a CLAUDE file turns Claude Code's own AGENTS.md loading off beside and below it, and no file Claude Code loads carries that text |
 * | `agents-disagree` | warning / info | files some presets deliver and others never can (a name they do not read, under no other name) |
 * | `excluded-dir` | warning / info | an instruction file below an excluded directory: inline loading never delivers it |
 * | `symlink-outside-root` / `symlink-broken` | error / warning | a symlinked instruction file leaving the tree, or dangling |
 * | `import-*` | error (missing, cycle) / warning | `@path` imports that cannot be expanded |
 * | `agent-config-outside-project` | error | a repository's agent config names a file outside the project that the agent itself loads (OpenCode's `instructions`, Gemini CLI's `context.fileName` in the home): agentsmd never reads it; the finding names it |
 * | `invalid-utf8` | error | bytes that are not UTF-8 (agents see U+FFFD) |
 * | `identical-copies` | warning | the same text in several files |
 * | `unreadable` | warning | a file that cannot be read |
 * | `hook-misread` | warning | an `agentsmd hook <host>` entry in a file another host reads and runs with its own events (hook-entries.ts) |
 * | `claude-hooks-project-only` | warning | agentsmd's Claude Code hooks only in the project's settings: a session started in a subdirectory gets nothing |
 * | `copilot-runs-claude-hooks` | info | Copilot CLI runs the project's Claude Code hooks too (they stay silent there) |
 * | `hook-command-missing` / `hook-not-answering` | error / warning | an installed agentsmd hook names a program that is not there, or (user scope, run as its agent would) does not answer: added by the CLI (integrations/setup/health.ts) |
 * | `rule-frontmatter` / `rule-invalid` | error / warning | a scoped rule whose header does not parse (file:line), or holds a value its format does not accept |
 * | `rule-matches-nothing` | warning | a scoped rule whose globs match no file in the tree |
 * | `rule-unseen` | warning | a scoped rule no host agentsmd serves will ever see (manual, agent-requested, or its format left out of `rules.formats`) |
 * | `rule-duplicate` | warning | the same rule kept in two files (two formats): copies drift, a host getting both sees it twice |
 *
 * Advisory findings (`ADVISORY_CODES`) are info when the repository shows no sign of using any of
 * the agents they name. What a preset reads comes from real sessions, the ones `explain` runs (a
 * session at the root: startup, and a touch of every scanned directory; sessions in a directory
 * where a claim depends on it), so no finding says what `explain` contradicts
 * (test/property/doctor-explain.property.test.ts); budgets likewise (one session per preset and
 * directory whose chain could exceed it).
 */
import { createHash } from "node:crypto";
import type { FileSystem, FileInfo } from "../io/file-system.js";
import { nodeFileSystem } from "../io/file-system.js";
import type { ResolvedConfig } from "../load/config.js";
import { getPreset, presetNames } from "../presets/table.js";
import { chooseFiles, groupsFor, identityKey, type NameGroups } from "../load/discover.js";
import type { Found } from "../io/cache.js";
import { expandImports, findImports, resolveImportPath } from "../load/imports.js";
import { isBlank } from "../core/budget.js";
import { chain, isInside, join, nameOf, parentOf } from "../core/paths.js";
import type { ScannedFile } from "./scan.js";
import { chainTotals, memoFileSystem, presetConfigs, presetReach, scanInstructionTree, startupLoads, SURVEY_CHAIN_LIMIT, type PresetReach } from "./survey.js";
import { countOf } from "../core/words.js";
import type { SessionOptions } from "../session/session.js";
import { FsError } from "../core/errors.js";
import { CLAUDE_AGENTS_NAMES, CLAUDE_MD_NAMES } from "../presets/claude.js";
import { quote, quoteControls } from "../core/quote.js";
import { checkHookEntries } from "./hook-entries.js";
import { findRules } from "../load/rules/find.js";
import { relativeBelow } from "../load/rules/apply.js";
import { RULE_FORMATS, type Diagnostic } from "../core/schema.js";
import { AGENT_OUTSIDE_CODE } from "../core/confine.js";
import { globCoverage, ruleFindings } from "./rules.js";
import { hostDefinitions } from "../integrations/registry.js";

type Severity = "error" | "warning" | "info";

export interface Finding {
  code: string;
  severity: Severity;
  /** The file the finding is about. */
  path: string;
  /** Every file concerned (the path first), when several are. */
  paths?: string[];
  /** The presets (agents) concerned. */
  agents?: string[];
  /** The presets that do deliver the file (agents-disagree: the others are `agents`). */
  readBy?: string[];
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
 * Per-file limits of agents that no preset models as a budget (docs/loading-rules.md#claude-code): each preset's `fileLimit`.
 */
const AGENT_FILE_LIMITS: ReadonlyArray<{ preset: string; agent: string; bytes: number; effect: string }> = presetNames().flatMap((name) => {
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
  if (bytes > 0 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  return bytes > 0 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : countOf(bytes, "byte");
}

/**
 * Scans `options.root` and reports findings.
 */
export async function doctor(options: DoctorOptions): Promise<DoctorReport> {
  const started = performance.now();
  const fs = memoFileSystem(options.fs ?? nodeFileSystem);
  const presets = [...(options.presets ?? presetNames())];
  const sessionBase: SessionOptions = { ...(options.session ?? {}), fs };
  const env = sessionBase.env ?? {};
  // Each preset's resolved config (names, budget, excludes) under the user's settings.
  const { configs, raw } = await presetConfigs({ root: options.root, fs, session: options.session ?? {}, presets });
  const rules = await findRules({ root: options.root, fs, formats: RULE_FORMATS });
  const coverage = globCoverage(rules.rules);
  const rootEntries = new Set<string>();
  const scan = await scanInstructionTree({
    fs,
    root: options.root,
    configs: configs.values(),
    ...(options.gitignore !== undefined ? { gitignore: options.gitignore } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    onEntries: (dir, entries) => {
      for (const entry of entries) {
        if (dir === options.root) rootEntries.add(entry.name);
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
      fix: header
        ? "fix the YAML at that line (quote globs that start with * or hold a comma-list)"
        : (diagnostic.fix ?? `correct ${quote(diagnostic.path ?? options.root)}`),
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
  // What each preset really delivers, from the sessions explain runs (startup at the root, touch below).
  const tree = { bytes: data.reduce((sum, file) => sum + (file.info?.size ?? 0), 0), files: data.length };
  const reach = data.length > 0 ? await presetReach(sessionBase, presets, options.root, [...byScope.keys()], tree) : new Map<string, PresetReach>();
  const reads = new Map(presets.map((name) => [name, new Set(presetGroups(name, configs.get(name)!).flatMap((groups) => groups.flat()))]));

  checkAgentOutside(reach, add);
  const identities = new Map(data.map((file) => [file.scanned.path, file.identity]));
  const identityOf = (path: string) => identities.get(path) ?? path;
  const shadowSessions = await checkShadowing(byScope, presets, configs, reach, sessionBase, identityOf, add);
  await checkClaude(data, byScope, presets, sessionBase, tree, home, add);
  checkNames(data, presets, reads, reach, add);
  checkExcluded(data, presets, configs, reads, reach, options.root, add);
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
  const sessions = (await checkBudgets(byScope, presets, configs, sessionBase, options.root, add)) + reach.size + shadowSessions;
  await checkHookEntries(fs, options.root, home, env, add);

  // Advice about agents the repository shows no sign of using is information, not a warning.
  const used = usedAgents(data, rootEntries);
  for (const finding of findings) finding.severity = severityFor(finding, used);
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

/**
 * A directory's winner hides a sibling with text: an empty winner (`empty-override`, the
 * directory contributes nothing), or `AGENTS.override.md` hiding a bigger `AGENTS.md`
 * (`override-hides-bigger-file`: the override replaces it, it does not add to it). The hidden
 * file must be one the preset's sessions never deliver.
 */
async function checkShadowing(
  byScope: ReadonlyMap<string, FileData[]>,
  presets: readonly string[],
  configs: ReadonlyMap<string, ResolvedConfig>,
  reach: ReadonlyMap<string, PresetReach>,
  base: SessionOptions,
  identityOf: (path: string) => string,
  add: (finding: Finding) => void,
): Promise<number> {
  let sessions = 0;
  for (const [scope, files] of byScope) {
    if (files.length < 2) continue;
    const file = (path: string) => files.find((each) => each.scanned.path === path)!;
    const hidden = new Map<string, { winner: FileData; hidden: FileData; agents: Set<string> }>();
    for (const name of presets) {
      const config = configs.get(name)!;
      for (const groups of presetGroups(name, config)) {
        const choice = chooseFiles(asProbe(files, groups.flat()), groups);
        if (choice.selected.length === 0) continue;
        const winners = choice.selected.map((found) => file(found.path));
        const blankWinner = winners.every((each) => each.blank);
        const override = winners.length === 1 && winners[0]!.scanned.name === "AGENTS.override.md" ? winners[0]! : undefined;
        if (!blankWinner && !override) continue;
        for (const { found } of choice.shadowed) {
          const shadowed = file(found.path);
          if (shadowed.blank) continue;
          if (!blankWinner && (shadowed.info?.size ?? 0) <= (override!.info?.size ?? 0)) continue;
          const key = `${winners[0]!.scanned.path}\0${shadowed.scanned.path}`;
          if (!hidden.has(key)) hidden.set(key, { winner: winners[0]!, hidden: shadowed, agents: new Set() });
          hidden.get(key)!.agents.add(name);
        }
      }
    }
    // A session started in this directory must hide it too (hygge makes it the root and loads every
    // root name), and its text must not reach the agent through another name (a symlink).
    const candidates = [...new Set([...hidden.values()].flatMap((entry) => [...entry.agents]))];
    if (candidates.length > 0) {
      const loads = await startupLoads(base, candidates, [scope]);
      sessions += candidates.length;
      for (const entry of hidden.values()) {
        for (const agent of entry.agents) {
          const delivered = [
            ...(reach.get(agent)?.delivered ?? []),
            ...loads
              .get(agent)!
              .get(scope)!
              .files.map((loaded) => loaded.path),
          ];
          if (delivered.some((path) => identityOf(path) === entry.hidden.identity)) entry.agents.delete(agent);
        }
      }
    }
    for (const entry of hidden.values()) {
      const agents = [...entry.agents];
      if (agents.length === 0) continue;
      const winner = entry.winner.scanned.path;
      const lost = entry.hidden.scanned.path;
      const picks = `${agents.join(", ")} pick${agents.length === 1 ? "s" : ""} it over ${nameOf(lost)} in this directory`;
      if (entry.winner.blank) {
        add({
          code: "empty-override",
          severity: "error",
          path: winner,
          paths: [winner, lost],
          agents,
          message: `${winner} is empty, yet ${picks}: ${lost} never loads there`,
          fix: `delete the empty ${nameOf(winner)} (or give it the text it should have)`,
        });
        continue;
      }
      const size = (data: FileData) => countOf(data.info?.size ?? 0, "byte");
      add({
        code: "override-hides-bigger-file",
        severity: "warning",
        path: winner,
        paths: [winner, lost],
        agents,
        message: `${winner} (${size(entry.winner)}) replaces ${lost} (${size(entry.hidden)}): ${picks}, so the bigger file never loads there (an override replaces, it does not add)`,
        fix: `if ${nameOf(winner)} is meant to add to ${nameOf(lost)}, move its text into ${nameOf(lost)} and delete it; if it is meant to replace it, delete or shorten ${nameOf(lost)} so the two cannot drift`,
      });
    }
  }
  return sessions;
}

/**
 * A CLAUDE file turns Claude Code's own AGENTS.md loading off at and below its directory: an
 * AGENTS.md there whose text no file Claude Code loads carries (the same file through a symlink,
 * or an `@AGENTS.md` import) is reported against the nearest CLAUDE file above it, as found by a
 * claude session started in that CLAUDE file's directory (startup, then a touch of each such
 * AGENTS.md's directory).
 */
async function checkClaude(
  data: readonly FileData[],
  byScope: ReadonlyMap<string, FileData[]>,
  presets: readonly string[],
  base: SessionOptions,
  tree: { bytes: number; files: number },
  home: string,
  add: (finding: Finding) => void,
): Promise<void> {
  if (!presets.includes("claude")) return;
  const claudeScopes = [...byScope]
    .filter(([, files]) => files.some((file) => CLAUDE_MD_NAMES.includes(file.scanned.name)))
    .map(([scope]) => scope)
    .sort((a, b) => b.length - a.length);
  if (claudeScopes.length === 0) return;
  const byPath = new Map(data.map((file) => [file.scanned.path, file]));
  const under = new Map<string, FileData[]>();
  for (const file of data) {
    if (!CLAUDE_AGENTS_NAMES.includes(file.scanned.name) || file.blank) continue;
    const scope = claudeScopes.find((each) => isInside(file.scanned.scope, each));
    if (!scope) continue;
    if (!under.has(scope)) under.set(scope, []);
    under.get(scope)!.push(file);
  }
  for (const [scope, agents] of under) {
    const reach = (await presetReach(base, ["claude"], scope, [...new Set(agents.map((file) => file.scanned.scope))], tree)).get("claude")!;
    const delivered = [...reach.delivered].map((path) => byPath.get(path)).filter((file) => file !== undefined);
    const identities = new Set(delivered.map((file) => file.identity));
    const hidden = agents.filter((each) => !identities.has(each.identity) && !delivered.some((file) => importsFile(file, each.scanned.path, home)));
    if (hidden.length === 0) continue;
    const claude = byScope.get(scope)!.filter((file) => CLAUDE_MD_NAMES.includes(file.scanned.name));
    const first = claude[0]!.scanned.path;
    const beside = hidden.filter((each) => each.scanned.scope === scope);
    const below = hidden.filter((each) => each.scanned.scope !== scope);
    const fixes: string[] = [];
    if (beside.length > 0) fixes.push(`add a line "@AGENTS.md" to ${nameOf(first)} so it imports the AGENTS.md beside it`);
    if (below.length > 0)
      fixes.push(
        `give ${below.length === 1 ? parentOf(below[0]!.scanned.path) : "each of those directories"} a CLAUDE.md holding "@AGENTS.md" (or a symlink to its AGENTS.md): Claude Code loads it on a Read there`,
      );
    fixes.push(
      `or have Claude Code read AGENTS.md beside CLAUDE.md everywhere: pluginConfigs["agents-md@builtin"].options.instructionFiles "claude-md-and-agents-md" in ~/.claude/settings.json`,
    );
    add({
      code: "claude-ignores-agents",
      severity: "warning",
      path: first,
      paths: [first, ...hidden.map((each) => each.scanned.path)],
      agents: ["claude"],
      message:
        `${first} turns Claude Code's built-in AGENTS.md support off for sessions started in ${scope} or below: ` +
        `${beside.length > 0 ? "the AGENTS.md beside it" : `${countOf(below.length, "AGENTS.md file")} below it`}${beside.length > 0 && below.length > 0 ? ` and ${below.length} more below` : ""} never ${hidden.length === 1 ? "loads" : "load"} there, and no file Claude Code loads carries ${hidden.length === 1 ? "its" : "their"} text (${hidden.map((each) => each.scanned.path).join(", ")})`,
      fix: fixes.join("; "),
    });
  }
}

/** True when `file` has an `@path` import naming `target`. */
function importsFile(file: FileData, target: string, home: string): boolean {
  return file.text.includes("@") && findImports(file.text).some((token) => resolveImportPath(token.path, file.scanned.path, home) === target);
}

/**
 * Files, and top-level entries of the root, that show the repository is set up for an agent: each
 * registered host's `doctor` signs (marking its preset and the ones it names), and preset hygge's.
 */
function agentSigns(): Array<{ agents: readonly string[]; names: readonly string[]; rootEntries?: readonly string[] }> {
  const hosts = hostDefinitions().flatMap((host) =>
    host.doctor && (host.doctor.names?.length || host.doctor.rootEntries?.length)
      ? [
          {
            agents: [...(host.preset !== undefined ? [host.preset] : []), ...(host.doctor.presets ?? [])],
            names: host.doctor.names ?? [],
            ...(host.doctor.rootEntries ? { rootEntries: host.doctor.rootEntries } : {}),
          },
        ]
      : [],
  );
  return [...hosts, { agents: ["hygge"], names: [".agents/AGENTS.md", "AGENTS.local.md"], rootEntries: [".hygge"] }];
}

/**
 * Agents whose own instruction files or settings appear in the tree (the repository is set up
 * for them). AGENTS.md alone is every agent's file, so it marks none.
 */
function usedAgents(data: readonly FileData[], rootEntries: ReadonlySet<string>): Set<string> {
  const used = new Set<string>();
  const names = new Set(data.map((file) => file.scanned.name));
  for (const sign of agentSigns()) {
    if (sign.names.some((name) => names.has(name)) || sign.rootEntries?.some((entry) => rootEntries.has(entry)))
      for (const agent of sign.agents) used.add(agent);
  }
  return used;
}

/** Findings that only advise about the agents they name: info when the repository uses none of them. */
export const ADVISORY_CODES: ReadonlySet<string> = new Set(["agents-disagree", "excluded-dir"]);

/** The one rule for advisory severity (see {@link ADVISORY_CODES}). */
function severityFor(finding: Finding, used: ReadonlySet<string>): Severity {
  if (!ADVISORY_CODES.has(finding.code) || !finding.agents) return finding.severity;
  return finding.agents.some((agent) => used.has(agent)) ? "warning" : "info";
}

/** How to make an agent read AGENTS.md: its own setting first (its host's `doctor.readAgentsMd`), agentsmd's per-preset section second. */
function readAgentsMdFix(agent: string): string {
  const agentsmd = `presets.${agent}.files.names in agentsmd's config for agentsmd alone`;
  const own = hostDefinitions().find((host) => host.preset === agent)?.doctor?.readAgentsMd;
  return own !== undefined ? `${own}; ${agentsmd}` : `${agent}: ${agentsmd}`;
}

/**
 * Files some presets deliver and others never can: their name is not one those read, and no file
 * of the same identity (a symlink) has a name they read. Readers are the presets whose root
 * session delivers the file (startup or touch), as `explain` shows.
 */
function checkNames(
  data: readonly FileData[],
  presets: readonly string[],
  reads: ReadonlyMap<string, ReadonlySet<string>>,
  reach: ReadonlyMap<string, PresetReach>,
  add: (finding: Finding) => void,
): void {
  const byIdentity = new Map<string, FileData[]>();
  for (const file of data) {
    if (!byIdentity.has(file.identity)) byIdentity.set(file.identity, []);
    byIdentity.get(file.identity)!.push(file);
  }
  // Grouped by name and the presets that never read it; readBy holds for every file of a group.
  const groups = new Map<string, { name: string; readers: string[]; any: Set<string>; never: string[]; paths: string[] }>();
  for (const same of byIdentity.values()) {
    // One file however many names it has: the symlinks' target (or the first) stands for them.
    const file = same.find((each) => each.scanned.kind !== "symlink") ?? same[0]!;
    if (file.blank) continue;
    const readers = presets.filter((preset) => reach.get(preset)?.delivered.has(file.scanned.path));
    const never = presets.filter((preset) => !same.some((each) => reads.get(preset)!.has(each.scanned.name)));
    if (never.length === 0 || readers.length === 0) continue;
    const key = `${file.scanned.name}\0${never.join(",")}`;
    const group = groups.get(key);
    if (!group) groups.set(key, { name: file.scanned.name, readers, any: new Set(readers), never, paths: [file.scanned.path] });
    else {
      group.readers = group.readers.filter((preset) => readers.includes(preset));
      for (const preset of readers) group.any.add(preset);
      group.paths.push(file.scanned.path);
    }
  }
  for (const group of groups.values()) {
    const count = group.paths.length;
    add({
      code: "agents-disagree",
      severity: "warning",
      path: group.paths[0]!,
      paths: group.paths,
      agents: group.never,
      readBy: group.readers,
      message: `${count === 1 ? group.paths[0] : `${count} ${group.name} files`} ${count === 1 ? "is" : "are"} read by ${readersText(group.readers, [...group.any])} but never by ${group.never.join(", ")} (${group.name} is not a name ${group.never.length === 1 ? "it reads" : "they read"})`,
      fix:
        group.name === "AGENTS.md"
          ? group.never.map(readAgentsMdFix).join("; ")
          : group.name.includes("CLAUDE") || group.name.includes("GEMINI")
            ? `keep shared guidance in AGENTS.md; make ${group.name} a one-line "@AGENTS.md" import or a symlink to it`
            : `if ${group.name} is meant for every agent, put its text in AGENTS.md`,
    });
  }
}

/** "A, B" when every file of a group has those readers; "A (and B for some)" when only some have B. */
function readersText(all: readonly string[], any: readonly string[]): string {
  const some = any.filter((preset) => !all.includes(preset));
  if (all.length === 0) return `some of ${any.join(", ")}`;
  return some.length === 0 ? all.join(", ") : `${all.join(", ")} (${some.join(", ")} some of them)`;
}

/**
 * A file in a directory below an excluded one (`node_modules/x/`, `dist/`): presets that read its
 * name but exclude that directory never deliver it on touch.
 */
function checkExcluded(
  data: readonly FileData[],
  presets: readonly string[],
  configs: ReadonlyMap<string, ResolvedConfig>,
  reads: ReadonlyMap<string, ReadonlySet<string>>,
  reach: ReadonlyMap<string, PresetReach>,
  root: string,
  add: (finding: Finding) => void,
): void {
  for (const file of data) {
    if (!file.scanned.excludedBy) continue;
    // The excluded directory must lie between the root and the directory the file governs
    // (`.agents/AGENTS.md` governs the root: hygge loads it at startup).
    const between = chain(root, file.scanned.scope)
      .filter((dir) => dir !== root)
      .map(nameOf);
    const agents = presets.filter((name) => {
      const excluded = between.find((each) => configs.get(name)!.lazy.exclude.includes(each));
      return excluded !== undefined && reads.get(name)!.has(file.scanned.name) && !reach.get(name)?.delivered.has(file.scanned.path);
    });
    if (agents.length === 0) continue;
    const excludedBy = file.scanned.excludedBy;
    add({
      code: "excluded-dir",
      severity: "warning",
      path: file.scanned.path,
      agents,
      message: `${file.scanned.path} lies under ${excludedBy}/, an excluded directory: ${agents.join(", ")} never deliver${agents.length === 1 ? "s" : ""} it when a file there is touched (lazy.exclude)`,
      fix: `move it out of ${excludedBy}/, or drop "${excludedBy}" from lazy.exclude`,
    });
  }
}

/** Files outside the project a repository's config names and an agent loads itself (core/confine.ts): one finding per file, every agent concerned. */
function checkAgentOutside(reach: ReadonlyMap<string, PresetReach>, add: (finding: Finding) => void): void {
  const byPath = new Map<string, { diagnostic: Diagnostic; agents: string[] }>();
  for (const [preset, each] of reach) {
    for (const diagnostic of each.outside) {
      const key = diagnostic.path ?? diagnostic.message;
      const seen = byPath.get(key);
      if (seen) seen.agents.push(preset);
      else byPath.set(key, { diagnostic, agents: [preset] });
    }
  }
  for (const { diagnostic, agents } of byPath.values())
    add({
      code: AGENT_OUTSIDE_CODE,
      severity: "error",
      path: diagnostic.path ?? "",
      agents,
      message: diagnostic.message,
      fix: diagnostic.fix ?? "remove the entry from the repository's config",
    });
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
  const chains = chainTotals(scopeBytes);
  const chainTotal = (dir: string) => chains.get(dir)!;
  const deep = [...chains].filter(([, total]) => total.files > SURVEY_CHAIN_LIMIT).map(([scope]) => scope);
  if (deep.length > 0) {
    const shallowest = deep.reduce((a, b) => (a.length <= b.length ? a : b));
    add({
      code: "budget-unchecked",
      severity: "info",
      path: shallowest,
      message: `budgets not checked in ${countOf(deep.length, "directory")} whose chain holds over ${SURVEY_CHAIN_LIMIT} instruction files (from ${shallowest} down): a startup session there costs too much to run for each`,
      fix: "run `agentsmd explain` on one of them to see what each agent loads there, or merge the nested files",
    });
  }
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
      if (total.files > SURVEY_CHAIN_LIMIT) return false;
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
          message: `${name} leaves ${file.path} out entirely in sessions started in ${dir}: its budget (${file.reason === "max-files" ? countOf(config.initial.maxFiles, "file") : kib(config.initial.maxBytes)}) is spent on ${getPreset(name)!.startup.keep === "root-first" ? "files nearer the root" : "files nearer cwd"}`,
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
  if (report.findings.length > 0) lines.push("");
  lines.push(
    `${countOf(error, "error")}, ${countOf(warning, "warning")}, ${info} info in ${countOf(report.scanned.files, "instruction file")} ` +
      `(${countOf(report.scanned.dirs, "directory")} scanned, presets: ${report.presets.join(", ")})`,
  );
  return lines.join("\n");
}
