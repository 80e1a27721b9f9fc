/**
 * `agentsmd explain PATH`: under a preset, every instruction file that applies to PATH in the
 * order the preset delivers it (the initial message, then touch's blocks in `scope.touchOrder`), with its layer, why it was chosen (or shadowed, ignored, skipped) and
 * what the budget did to it. Built on a real session (its initial load and a non-admitting
 * `touch`) plus the discovery layer's `chooseFiles`, so it reports what the loader does rather
 * than re-deriving it.
 */
import { AGENT_OUTSIDE_CODE } from "../core/confine.js";
import { findRules } from "../load/rules/find.js";
import { RULE_FORMAT_SPECS } from "../load/rules/formats.js";
import { needsContent } from "../load/rules/apply.js";
import { RULE_FORMATS } from "../core/schema.js";
import { nativeReaders, rulesApplying, withHostFormats, type AppliedRule } from "./rules.js";
import { StatCache, type Found } from "../io/cache.js";
import { chooseFiles, type NameGroups } from "../load/discover.js";
import { initialDirs, type InitialLoad } from "../load/initial.js";
import type { ImportRecord } from "../load/imports.js";
import { chain, isInside, join, nameOf } from "../core/paths.js";
import { presetNames } from "../presets/table.js";
import { SPEC_SCOPE } from "../presets/preset.js";
import { countOf } from "../core/words.js";
import { createSession, type AgentsSession, type SessionOptions } from "../session/session.js";
import type { Diagnostic, Layer } from "../core/schema.js";
import { knownInstructionNames } from "./survey.js";
import { quote, quoteControls } from "../core/quote.js";

/** What happened to a file. The first three reach the model. */
type ExplainStatus =
  | "loaded" // in the initial message, whole
  | "cut" // in the initial message, truncated by the budget
  | "touch" // delivered when PATH is touched (inline mode)
  | "left-out" // selected, but the initial budget left it out
  | "blank" // selected, empty after trimming: contributes nothing
  | "duplicate" // the same file (device + inode) as one already chosen
  | "shadowed" // a sibling of an earlier name group won the directory
  | "ignored" // a name the preset does not read
  | "skipped" // not a regular file
  | "not-delivered"; // selected for PATH's chain, but touch does not deliver it

interface ExplainEntry {
  path: string;
  /** 1-based position among the files the model sees; null for the others. */
  order: number | null;
  layer: Layer;
  /** The directory the file governs. */
  scope: string;
  status: ExplainStatus;
  sizeBytes: number;
  /** Bytes of the file that reach the model. */
  includedBytes: number;
  /** Bytes `@path` imports added (they count against the budget). */
  importedBytes: number;
  imports: ImportRecord[];
  /** The budget's verdict, in words. */
  fate: string;
  /** Why the file is (or is not) there, in words. */
  reason: string;
}

interface ExplainedRule extends AppliedRule {
  /** What this session does with it: `initial`, `touch` (delivered when the path is touched), or why not. */
  delivery: string;
}

export interface Explanation {
  preset: string;
  target: string;
  /** The directory PATH governs from (itself if a directory, else its parent). */
  targetDir: string;
  cwd: string;
  root: string;
  rootReason: string;
  /** The order files reach the model in, in words (the initial message's order, then touch's). */
  order: string;
  hasProject: boolean;
  /** The byte budgets in force and where they come from (the agent's own, agentsmd's default, the config). */
  budget: string;
  /** Files that apply to PATH: those the model sees first, in order, then the rest by directory. */
  files: ExplainEntry[];
  /** Initial files whose scope does not cover PATH (in context all the same). */
  alsoInContext: Array<{ path: string; layer: Layer; scope: string }>;
  /** Scoped rules (every format) that apply to the target, with the glob that matched and who gets them. */
  rules: ExplainedRule[];
  diagnostics: Diagnostic[];
}

function describeGroups(groups: NameGroups): string {
  if (groups.length === 1 && groups[0]!.length === 1) return `${groups[0]![0]} is the name read here`;
  if (groups.length === 1) return `every one of ${groups[0]!.join(", ")} present is read`;
  return `the first name group present wins: ${groups.map((group) => group.join(" + ")).join(" > ")}`;
}

function where(dir: string, session: AgentsSession, targetDir: string): string {
  const parts: string[] = [];
  if (dir === session.root) parts.push("the project root");
  if (dir === session.cwd) parts.push("cwd");
  if (dir === targetDir && dir !== session.cwd) parts.push("the target's directory");
  if (parts.length === 0) parts.push(isInside(session.cwd, dir) ? "an ancestor of cwd" : "a directory between the root and the target");
  return `in ${quote(dir)} (${parts.join(", ")})`;
}

function bytes(count: number): string {
  return countOf(count, "byte");
}

/**
 * Explains, for the session `options` describe, which instruction files apply to `target`.
 */
export async function explainPath(options: SessionOptions, target: string): Promise<Explanation> {
  const session = await createSession(withHostFormats(options));
  try {
    return await explainSession(session, target);
  } finally {
    await session.close();
  }
}

/** Where one budget comes from, in words. */
function budgetSource(configured: number | undefined, presetBytes: number, used: number): string {
  if (configured !== undefined) return `${used} (config)`;
  if (presetBytes >= Number.MAX_SAFE_INTEGER) return `${used} (agentsmd's default: the agent sets no limit)`;
  return `${used} (the agent's own limit)`;
}

/**
 * The budgets line of `explain`: every preset has one, imports included; where the agent has no
 * limit, agentsmd's default applies and this says so.
 */
function describeBudget(session: AgentsSession): string {
  const raw = session.rawConfig;
  return [
    `initial.maxBytes ${budgetSource(raw.initial?.maxBytes, session.preset.initial.maxBytes, session.config.initial.maxBytes)}`,
    `lazy.maxBytes ${budgetSource(raw.lazy?.maxBytes, session.preset.lazy.maxBytes, session.config.lazy.maxBytes)}`,
    "imports count against them",
  ].join("; ");
}

/**
 * {@link explainPath} on a session of its own: claims made by the probing `touch` are released,
 * but a lazy cap it reaches stays, so never pass a session that is in use.
 */
async function explainSession(session: AgentsSession, target: string): Promise<Explanation> {
  const path = session.absolute(target);
  const targetDir = await session.targetDir(path);
  const load = session.initialLoad;
  const { initial: groups, lazy: lazyGroups, reason: groupsReason } = session.nameGroups;
  const explanation: Explanation = {
    preset: session.preset.name,
    target: path,
    targetDir,
    cwd: session.cwd,
    root: session.root,
    rootReason: session.rootReason,
    order: deliveryOrder(session),
    hasProject: session.hasProject,
    budget: describeBudget(session),
    files: [],
    alsoInContext: [],
    rules: [],
    diagnostics: [],
  };
  // Probe every known name, session names first (the order a probe lists files in).
  const names = knownInstructionNames([...session.config.files.names, ...groups.flat(), ...lazyGroups.flat()]);
  const ordered = [...new Set([...groups.flat(), ...session.config.files.names, ...lazyGroups.flat(), ...names])];
  // Files the agent's own settings exclude (claudeMdExcludes) are absent for the loader: here too.
  const cache = new StatCache(session.cache.fs, ordered, { revalidateMs: Number.POSITIVE_INFINITY, exclude: session.excludes });
  const excluded = async (dir: string, layer: Layer) => {
    if (!session.excludes) return;
    for (const name of ordered) {
      const path = join(dir, name);
      if (!session.excludes(path)) continue;
      const info = await session.cache.fs.stat(path).catch(() => null);
      if (info?.kind === "file")
        aside.push(entry({ name, path, info }, dir, layer, "ignored", "never loaded", "excluded by the agent's own settings (see the setting: lines)"));
    }
  };

  const seen: ExplainEntry[] = [];
  const aside: ExplainEntry[] = [];
  const entry = (
    found: Found,
    scope: string,
    layer: Layer,
    status: ExplainStatus,
    fate: string,
    reason: string,
    extra: Partial<ExplainEntry> = {},
  ): ExplainEntry => ({
    path: found.path,
    order: null,
    layer,
    scope,
    status,
    sizeBytes: found.info.size,
    includedBytes: 0,
    importedBytes: 0,
    imports: [],
    fate,
    reason,
    ...extra,
  });

  // 1. Home-level files: in context for every path.
  for (const file of session.initialFiles) {
    if (file.layer !== "user") continue;
    const imports = load?.imports.get(file.path) ?? [];
    seen.push({
      path: file.path,
      order: null,
      layer: "user",
      scope: "(everywhere)",
      status: file.truncated ? "cut" : "loaded",
      sizeBytes: file.sizeBytes,
      includedBytes: file.includedBytes,
      importedBytes: Math.max(0, file.includedBytes - file.sizeBytes),
      imports,
      fate: file.truncated ? `cut at ${bytes(file.includedBytes)} of ${file.sizeBytes}` : `whole (${bytes(file.sizeBytes)}), outside the budget`,
      reason: `a home-level file of preset ${session.preset.name}, loaded at startup for every project`,
    });
  }

  // 2. The startup chain.
  const startDirs = session.hasProject ? initialDirs(session.root, session.cwd, session.preset.startup.dirs) : [];
  const initialByPath = new Map(session.initialFiles.map((file) => [file.path, file]));
  const startEntries: ExplainEntry[] = [];
  for (const dir of startDirs) {
    const choice = chooseFiles(await cache.probeDir(dir), groups);
    const applies = isInside(targetDir, dir);
    for (const found of choice.selected) {
      const made = startupEntry(found, dir, session, load, initialByPath, groups, targetDir, entry);
      const inContext = made.status === "loaded" || made.status === "cut";
      if (applies) (inContext ? startEntries : aside).push(made);
      else if (inContext) explanation.alsoInContext.push({ path: made.path, layer: made.layer, scope: dir });
    }
    if (!applies) continue;
    addAside(aside, choice, dir, session, groups, groupsReason, load, entry);
    await excluded(dir, "project");
  }
  // Render order of the initial message (a preset may sort, e.g. gemini).
  const position = new Map(session.initialFiles.map((file, index) => [file.path, index]));
  startEntries.sort((a, b) => position.get(a.path)! - position.get(b.path)!);
  seen.push(...startEntries);

  // 2b. Files the agent's own configuration lists (OpenCode's instructions): in context for every path.
  for (const file of session.initialFiles) {
    if (file.layer !== "config") continue;
    seen.push({
      path: file.path,
      order: null,
      layer: "config",
      scope: "(everywhere)",
      status: file.truncated ? "cut" : "loaded",
      sizeBytes: file.sizeBytes,
      includedBytes: file.includedBytes,
      importedBytes: 0,
      imports: [],
      fate: file.truncated ? `cut at ${bytes(file.includedBytes)} of ${file.sizeBytes}` : `whole (${bytes(file.sizeBytes)})`,
      reason: `${session.listed.get(file.path) ?? "listed by the agent's configuration"}; loaded at startup after the chain`,
    });
  }

  // 3. Directories below the startup chain, on the way to PATH: delivered by touch.
  if (session.hasProject && isInside(targetDir, session.root)) {
    const pathDirs = chain(session.root, targetDir).filter((dir) => !startDirs.includes(dir));
    const blocks = await session.touch([path], { admit: false });
    session.release(blocks);
    const delivered = new Map(blocks.map((block) => [block.path, block]));
    const touched: ExplainEntry[] = [];
    for (const dir of pathDirs) {
      const choice = chooseFiles(await cache.probeDir(dir), lazyGroups);
      for (const found of choice.selected) {
        const block = delivered.get(found.path);
        const why = `${where(dir, session, targetDir)}; ${describeGroups(lazyGroups)}`;
        if (block) {
          const imported = Math.max(0, Buffer.byteLength(block.content) - block.sizeBytes);
          touched.push(
            entry(found, dir, "path", "touch", `on touch: whole (${bytes(block.sizeBytes)}${imported > 0 ? ` + ${bytes(imported)} imported` : ""})`, why, {
              includedBytes: block.sizeBytes,
              importedBytes: imported,
            }),
          );
        } else {
          aside.push(entry(found, dir, "path", "not-delivered", "not delivered on touch", `${why}; but ${notDeliveredReason(session, found, dir)}`));
        }
      }
      addAside(aside, choice, dir, session, lazyGroups, groupsReason, undefined, entry);
      await excluded(dir, "path");
    }
    // The order touch delivered them in.
    const rank = new Map(blocks.map((block, index) => [block.path, index]));
    touched.sort((a, b) => rank.get(a.path)! - rank.get(b.path)!);
    seen.push(...touched);
  }
  seen.forEach((each, index) => (each.order = index + 1));
  explanation.files = [...seen, ...aside];
  explanation.rules = await explainRules(session, path);
  explanation.diagnostics = [...session.diagnostics];
  return explanation;
}

function startupEntry(
  found: Found,
  dir: string,
  session: AgentsSession,
  load: InitialLoad | undefined,
  initialByPath: ReadonlyMap<string, { includedBytes: number; sizeBytes: number; truncated: boolean }>,
  groups: NameGroups,
  targetDir: string,
  entry: (found: Found, scope: string, layer: Layer, status: ExplainStatus, fate: string, reason: string, extra?: Partial<ExplainEntry>) => ExplainEntry,
): ExplainEntry {
  const why = `${where(dir, session, targetDir)}; ${describeGroups(groups)}`;
  const config = session.config;
  const file = initialByPath.get(found.path);
  if (file) {
    const imports = load?.imports.get(found.path) ?? [];
    const importedBytes = imports.reduce((sum, record) => sum + record.bytes, 0);
    const budget = `initial.maxBytes ${config.initial.maxBytes}, ${session.preset.startup.keep}`;
    const fate = file.truncated
      ? `cut at ${bytes(file.includedBytes)} of ${file.sizeBytes}${importedBytes > 0 ? " (imports included)" : ""} (${budget})`
      : `whole (${bytes(file.sizeBytes)}${importedBytes > 0 ? ` + ${bytes(importedBytes)} imported` : ""})`;
    return entry(found, dir, "project", file.truncated ? "cut" : "loaded", fate, `${why}; loaded at startup`, {
      includedBytes: file.includedBytes,
      importedBytes,
      imports,
    });
  }
  const leftOut = load?.leftOut.find((each) => each.path === found.path);
  if (leftOut) {
    const fate =
      leftOut.reason === "max-files"
        ? `left out: initial.maxFiles (${config.initial.maxFiles}) reached`
        : leftOut.reason === "max-bytes"
          ? `left out: the ${bytes(config.initial.maxBytes)} budget was spent on files ${session.preset.startup.keep === "root-first" ? "nearer the root" : "nearer cwd"}`
          : "left out: project files are disabled (enabled: false or initial.maxBytes 0)";
    return entry(found, dir, "project", "left-out", fate, `${why}; offered later by resolve/touch`);
  }
  const duplicate = load?.duplicates.find((each) => each.path === found.path);
  if (duplicate) return entry(found, dir, "project", "duplicate", `not loaded: the same file as ${duplicate.sameAs} (device + inode)`, why);
  if (load?.blank.some((each) => each.path === found.path)) {
    return entry(found, dir, "project", "blank", "empty after trimming: adds nothing", `${why}; it still wins its directory`);
  }
  return entry(found, dir, "project", "left-out", "not loaded", `${why}; the preset did not load it (see diagnostics)`);
}

function addAside(
  aside: ExplainEntry[],
  choice: ReturnType<typeof chooseFiles>,
  dir: string,
  session: AgentsSession,
  groups: NameGroups,
  groupsReason: string | undefined,
  load: InitialLoad | undefined,
  entry: (found: Found, scope: string, layer: Layer, status: ExplainStatus, fate: string, reason: string) => ExplainEntry,
): void {
  const layer: Layer = load ? "project" : "path";
  for (const { found, by } of choice.shadowed) {
    const blankWinner = load?.blank.some((each) => each.path === by.path) ?? false;
    aside.push(
      entry(
        found,
        dir,
        layer,
        "shadowed",
        "never loaded here",
        `hidden by ${quote(by.path)}${blankWinner ? ", which is empty: this directory contributes nothing" : ""} (${describeGroups(groups)})`,
      ),
    );
  }
  const read = [...new Set(groups.flat())];
  for (const found of choice.ignored) {
    aside.push(
      entry(
        found,
        dir,
        layer,
        "ignored",
        "never loaded",
        `${nameOf(found.path)} is not a name preset ${session.preset.name} reads here (${read.join(", ")})${groupsReason ? `; ${groupsReason}` : ""}`,
      ),
    );
  }
  for (const found of choice.irregular) {
    aside.push(entry(found, dir, layer, "skipped", "never loaded", `not a regular file (${found.info.kind}): skipped without reading`));
  }
}

function notDeliveredReason(session: AgentsSession, found: Found, dir: string): string {
  if (session.loadedVersion(found.path)) return "it is already in context";
  const excluded = chain(session.root, dir).find((each) => each !== session.root && session.config.lazy.exclude.includes(nameOf(each)));
  if (excluded) return `it lies under ${excluded}, an excluded directory (lazy.exclude)`;
  if (session.preset.scope.nested === "below-cwd" && !isInside(dir, session.cwd)) return `preset ${session.preset.name} loads nested files only below cwd`;
  if (!session.config.enabled) return "agentsmd is disabled (enabled: false)";
  return "the session's inline caps (lazy.maxFiles / lazy.maxBytes) stop it";
}

/**
 * The order the preset delivers files in: the initial message as rendered, then what touch adds,
 * root side first (spec 000 §6) or nearest first where the agent does so.
 */
function deliveryOrder(session: AgentsSession): string {
  const startup = session.preset.startup.order === "path" ? "sorted by path, as the agent sorts them" : "in the initial message's order";
  const touch =
    session.preset.scope.touchOrder === SPEC_SCOPE.touchOrder
      ? "root side first (docs/loading-rules.md#progressive-resolution)"
      : `nearest directory first (the agent's own order, kept by preset ${session.preset.name})`;
  return `startup files ${startup}, then the files touch delivers, ${touch}`;
}

/** The root line's reason, in words. */
function rootWords(explanation: Explanation): string {
  if (explanation.rootReason === "preset")
    return explanation.root === "/"
      ? `preset ${explanation.preset}: the agent has no project root, every directory from / to cwd counts`
      : `set by preset ${explanation.preset}`;
  if (explanation.rootReason === "override") return "root.projectRootOverride or --root";
  return explanation.rootReason;
}

/** Every registered preset's explanation of one path. */
export interface PresetMatrix {
  target: string;
  presets: string[];
  explanations: Explanation[];
}

/**
 * {@link explainPath} under every registered preset (`--all-presets`).
 */
export async function explainAllPresets(options: SessionOptions, target: string): Promise<PresetMatrix> {
  const presets = presetNames();
  const explanations: Explanation[] = [];
  for (const preset of presets) explanations.push(await explainPath({ ...options, preset }, target));
  return { target: explanations[0]?.target ?? target, presets, explanations };
}

const STATUS_WORDS: Record<ExplainStatus, string> = {
  loaded: "whole",
  cut: "cut",
  touch: "touch",
  "left-out": "left out",
  blank: "empty",
  duplicate: "dup",
  shadowed: "shadowed",
  ignored: "-",
  skipped: "skipped",
  "not-delivered": "no touch",
};

/** A matrix cell: `#order status` for what the model sees, a word otherwise. */
function matrixCell(entry: ExplainEntry | undefined): string {
  if (!entry) return "-";
  const word = entry.status === "cut" ? `cut@${entry.includedBytes}` : STATUS_WORDS[entry.status];
  return entry.order === null ? word : `${entry.order} ${word}`;
}

/** The `--all-presets` text: one row per file (absolute path last), one column per preset. */
export function formatMatrix(matrix: PresetMatrix): string {
  const paths: string[] = [];
  for (const explanation of matrix.explanations) for (const each of explanation.files) if (!paths.includes(each.path)) paths.push(each.path);
  paths.sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : a > b ? 1 : 0));
  const header = [...matrix.presets, "file"];
  const rows = paths.map((path) => [
    ...matrix.explanations.map((explanation) => matrixCell(explanation.files.find((each) => each.path === path))),
    quote(path),
  ]);
  const widths = matrix.presets.map((_, column) => Math.max(header[column]!.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]!) : cell)).join("  ");
  const lines = [
    `${quote(matrix.target)}: what each preset loads (N = position in what the preset delivers: the initial message, then touch's files in the preset's order)`,
    line(header),
    ...rows.map(line),
  ];
  if (rows.length === 0) lines.push("(no instruction file applies under any preset)");
  return lines.join("\n");
}

/** Scoped rules of every format that apply to `path`, and what this session does with each. */
async function explainRules(session: AgentsSession, path: string): Promise<ExplainedRule[]> {
  if (!session.hasProject) return [];
  const fs = session.cache.fs;
  const { rules } = await findRules({ root: session.root, fs, formats: RULE_FORMATS });
  let content: string | undefined;
  if (rules.some(needsContent))
    content = await fs
      .read(path, 256 * 1024)
      .then((read) => new TextDecoder().decode(read.bytes))
      .catch(() => undefined);
  const initial = new Set(session.initialFiles.map((file) => file.path));
  return rulesApplying(rules, path, content, session.rawConfig.rules?.formats).map((applied) => ({
    ...applied,
    delivery: !session.rules.formats.includes(applied.format)
      ? `not delivered by agentsmd in this session (${readersText(nativeReaders(applied.format))}rules.formats)`
      : initial.has(applied.path)
        ? "initial bundle"
        : "on touch",
  }));
}

/** The text of `agentsmd explain PATH`. */
export function formatExplanation(explanation: Explanation): string {
  const lines = [
    quote(explanation.target),
    `budget ${explanation.budget}`,
    `preset ${explanation.preset}; cwd ${quote(explanation.cwd)}; root ${explanation.hasProject ? `${quote(explanation.root)} (${rootWords(explanation)})` : "none (no project)"}`,
    `order: ${explanation.order}`,
  ];
  // Settings the agent's own configuration decided (Codex config.toml, Gemini settings.json, OpenCode instructions, Claude Code claudeMdExcludes).
  for (const diagnostic of explanation.diagnostics) if (diagnostic.code === "agent-config") lines.push(`setting: ${quoteControls(diagnostic.message)}`);
  // What the agent itself loads from outside the project because a repository's config names it (core/confine.ts).
  for (const diagnostic of explanation.diagnostics)
    if (diagnostic.code === AGENT_OUTSIDE_CODE)
      lines.push(`finding ${AGENT_OUTSIDE_CODE}: ${quoteControls(diagnostic.message)}${diagnostic.fix ? `; fix: ${quoteControls(diagnostic.fix)}` : ""}`);
  const shown = explanation.files.filter((each) => each.order !== null);
  const other = explanation.files.filter((each) => each.order === null);
  if (shown.length === 0) lines.push("", "No instruction file reaches the model for this path.");
  for (const each of shown) {
    lines.push("", `${each.order}. ${quote(each.path)}`, `   ${each.layer}: ${quoteControls(each.fate)}`, `   why: ${quoteControls(each.reason)}`);
    for (const record of each.imports) lines.push(`   imports ${quote(record.path)} (${bytes(record.bytes)}, level ${record.depth})`);
  }
  if (other.length > 0) {
    lines.push("", "Not loaded:");
    for (const each of other)
      lines.push(`-  ${quote(each.path)}`, quoteControls(`   ${each.status}: ${each.fate.startsWith("never") ? "" : `${each.fate}; `}${each.reason}`));
  }
  if (explanation.rules.length > 0) {
    lines.push("", "Scoped rules:");
    for (const rule of explanation.rules) {
      const spec = RULE_FORMAT_SPECS[rule.format];
      lines.push(
        `-  ${quote(rule.path)}`,
        `   ${spec.label}: ${rule.matched === "always" ? "always applies" : `${spec.globKeys[0]} matched ${JSON.stringify(rule.matched)}`}; ${rule.delivery}`,
      );
    }
  }
  if (explanation.alsoInContext.length > 0) {
    lines.push("", "Also in context (their scope does not cover this path):");
    for (const each of explanation.alsoInContext) lines.push(`   ${quote(each.path)}`);
  }
  return lines.join("\n");
}

/** "a, b read it natively; " (the readers of a format the session does not deliver). */
function readersText(readers: readonly string[]): string {
  return readers.length > 0 ? `${readers.join(", ")} read${readers.length === 1 ? "s" : ""} it natively; ` : "";
}
