/**
 * The initial load (docs/loading-rules.md#the-initial-load): user layers, then the root -> cwd chain under the preset's budget.
 */
import type { StatCache } from "../io/cache.js";
import type { ResolvedConfig } from "./config.js";
import { keepsBom, type Preset, type UserLayer } from "../presets/preset.js";
import { AGENT_OUTSIDE_CODE } from "../core/confine.js";
import { quote } from "../core/quote.js";
import type { Diagnostic, InitialFile } from "../core/schema.js";
import type { RenderBlock } from "../core/render.js";
import { chain, isInside, nameOf } from "../core/paths.js";
import { claimOrder, trimText } from "../core/budget.js";
import {
  reportReadError,
  blockingError,
  dedupeByIdentity,
  groupsFor,
  identityKey,
  loadUserLayers,
  selectFiles,
  type DiagnosticSink,
  type UserFile,
} from "./discover.js";
import type { InstructionText } from "./read.js";
import { expandInMemory, importContextOf, readInstructionExpanded, type ImportRecord } from "./imports.js";

interface CandidateFile {
  path: string;
  mtimeMs: number;
  sizeBytes: number;
}

type LeftOutReason = "max-files" | "max-bytes" | "disabled";

export interface InitialLoad {
  /** Included files, in render order (user layers first, then root -> cwd). */
  files: InitialFile[];
  blocks: RenderBlock[];
  /** Files the budget left out: not loaded, so the resolver offers them later. */
  leftOut: Array<CandidateFile & { reason: LeftOutReason }>;
  /** Files that were selected but hold only whitespace (they hide their siblings, contribute nothing). */
  blank: CandidateFile[];
  /** Every candidate of the chain, root first (for `explain`). */
  candidates: CandidateFile[];
  /** The `@path` imports expanded into each loaded file that had some (for `explain`). */
  imports: Map<string, ImportRecord[]>;
  /** Files skipped as the same file (device + inode) as an earlier candidate (`dedupe: "identity"`). */
  duplicates: Array<CandidateFile & { sameAs: string }>;
}

export interface InitialContext {
  cache: StatCache;
  /** Name groups decided by the preset for this session (`Preset.prepare`). */
  groups?: import("./discover.js").NameGroups | undefined;
  /** Files the agent's settings exclude (`Preset.excludes`): user-layer candidates too. */
  exclude?: ((path: string) => boolean) | undefined;
  /** Files the agent's configuration lists (`Preset.listed`), loaded after the chain, layer `config`. */
  listed?: readonly string[] | undefined;
  /** File names only a repository's agent settings gave: the home layer never looks for them (core/confine.ts). */
  projectNames?: { names: readonly string[]; file: string; product: string } | undefined;
  config: ResolvedConfig;
  preset: Preset;
  /** null: no project (a preset with `scope.noMarker: "none"` found no marker). */
  root: string | null;
  /** Where imports of project files stay (`importRootOf`). @default the root, else cwd */
  importRoot?: string;
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  sink: DiagnosticSink;
}

/**
 * The directories of the initial load: root -> cwd (or the root alone when cwd lies outside it, or
 * when the preset loads the root only; cwd alone when the preset loads cwd only, as Continue CLI);
 * none without a project.
 */
export function initialDirs(root: string | null, cwd: string, scope: "chain" | "root" | "cwd" = "chain"): string[] {
  if (root === null) return [];
  if (scope === "cwd") return [isInside(cwd, root) ? cwd : root];
  return scope === "chain" && isInside(cwd, root) ? chain(root, cwd) : [root];
}

/**
 * Loads the initial bundle.
 */
export async function loadInitial(context: InitialContext): Promise<InitialLoad> {
  const { cache, config, preset, sink } = context;
  const fs = cache.fs;
  const keepBom = keepsBom(preset);
  const blank = preset.text.blank;
  const identity = preset.dedupe === "identity";
  const layers = await homeLayers(context);
  const exclude = context.exclude;
  const allowed = exclude ? layers.map((layer) => ({ ...layer, candidates: layer.candidates.filter((path) => !exclude(path)) })) : layers;
  let user = await loadUserLayers(fs, allowed, sink, keepBom, blank);
  // device:inode -> path of the user files kept (identity dedupe: a hard link loads once).
  const userIdentities = new Map<string, string>();
  if (identity) ({ user } = await dedupeUserFiles(fs, user, userIdentities));
  const imports = importContextOf(config, preset, context.importRoot ?? context.root ?? context.cwd, context.home, context.env);
  const report = (diagnostic: Diagnostic) => sink.add(diagnostic);
  const expanded = new Map<string, ImportRecord[]>();
  // Home-level files may import from anywhere (Claude Code asks no approval for them).
  if (imports.enabled) {
    for (const file of user) {
      const result = await expandInMemory(fs, file.content, file.path, imports, report, false);
      file.content = result.content;
      if (result.imports.length > 0) expanded.set(file.path, result.imports);
    }
  }
  const readText = async (path: string, budget: number): Promise<InstructionText | null> => {
    const text = await readInstructionExpanded(fs, path, budget, preset.text.cut, imports, report);
    if (text && text.imports.length > 0) expanded.set(path, text.imports);
    return text;
  };
  const files: InitialFile[] = user.map((file) => ({
    path: file.path,
    layer: "user",
    mtimeMs: file.mtimeMs,
    sizeBytes: file.sizeBytes,
    includedBytes: Buffer.byteLength(file.content),
    truncated: file.truncated,
  }));
  const blocks: RenderBlock[] = user.map((file) => ({ path: file.path, layer: "user", content: file.content }));

  const dirs = initialDirs(context.root, context.cwd, preset.startup.dirs);
  const groups = context.groups ?? groupsFor(config.files.names, config.files.select);
  const reals = cache.realPaths();
  reals?.expect(dirs);
  const probes = await Promise.all(dirs.map((dir) => cache.probeDir(dir, reals)));
  let perDir = probes.map((probe) => selectFiles(probe, groups, sink));
  if (preset.startup.probeErrors === "drop-project") {
    const index = probes.findIndex((probe, at) => blockingError(probe, dirs[at]!, config.files.names));
    if (index >= 0) {
      const error = blockingError(probes[index]!, dirs[index]!, config.files.names)!;
      sink.add({
        level: "error",
        code: "project-dropped",
        message: `${error.message}: as ${preset.name} does, no project instruction files load (fix or remove ${error.path})`,
        ...(error.path ? { path: error.path } : {}),
      });
      perDir = [];
    }
  }
  let chosen = perDir.flat();
  let duplicates: ReturnType<typeof dedupeByIdentity>["duplicates"] = [];
  if (identity) {
    ({ kept: chosen, duplicates } = dedupeByIdentity(chosen));
    // Gemini CLI dedupes the user and project files together, user files first: a project file
    // that is a user file under another name is not loaded again.
    if (userIdentities.size > 0) {
      const own: typeof chosen = [];
      for (const found of chosen) {
        const sameAs = userIdentities.get(identityKey(found.info));
        if (sameAs === undefined) own.push(found);
        else duplicates.push({ found, sameAs });
      }
      chosen = own;
    }
  }
  const candidates: CandidateFile[] = chosen.map((found) => ({ path: found.path, mtimeMs: found.info.mtimeMs, sizeBytes: found.info.size }));

  const result: InitialLoad = {
    files,
    blocks,
    leftOut: [],
    blank: [],
    candidates,
    imports: expanded,
    duplicates: duplicates.map(({ found, sameAs }) => ({ path: found.path, mtimeMs: found.info.mtimeMs, sizeBytes: found.info.size, sameAs })),
  };
  if (!config.enabled || config.initial.maxBytes === 0) {
    result.leftOut = candidates.map((file) => ({ ...file, reason: "disabled" }));
    return result;
  }

  const kept = new Map<number, { file: InitialFile; content: string }>();
  let remaining = config.initial.maxBytes;
  let count = 0;
  const prefetched = prefetch(context, candidates, readText);
  for (const index of claimOrder(candidates.length, preset.startup.keep)) {
    const candidate = candidates[index]!;
    if (candidate.sizeBytes === 0 && preset.text.skipBlank) {
      result.blank.push(candidate);
      continue;
    }
    if (count >= config.initial.maxFiles) {
      result.leftOut.push({ ...candidate, reason: "max-files" });
      continue;
    }
    let text;
    try {
      const early = await prefetched?.[index];
      if (early instanceof Error) throw early;
      // A prefetched text is the same as a read now unless the file outgrew what is left.
      text = early && !early.truncated && early.chargedBytes <= remaining ? early : await readText(candidate.path, remaining);
    } catch (error) {
      reportReadError(sink, candidate.path, error);
      continue;
    }
    if (!text) {
      result.leftOut.push({ ...candidate, reason: "max-bytes" });
      continue;
    }
    const current = { ...candidate, mtimeMs: text.mtimeMs, sizeBytes: text.sizeBytes };
    if (preset.text.trim) text.content = trimText(text.content);
    if (preset.text.skipBlank && blank(text.content)) {
      result.blank.push(current);
      continue;
    }
    remaining -= text.chargedBytes;
    count++;
    kept.set(index, {
      file: { ...current, layer: "project", includedBytes: text.includedBytes, truncated: text.truncated },
      content: text.content,
    });
    if (text.truncated) {
      sink.add({
        level: "warning",
        code: "truncated",
        message: `${candidate.path} was cut to ${text.includedBytes} of ${text.sizeBytes} bytes by initial.maxBytes (${config.initial.maxBytes})`,
        path: candidate.path,
      });
    }
  }
  // Render root-first whatever order the budget was claimed in.
  const byPath = (a: number, b: number) => (candidates[a]!.path < candidates[b]!.path ? -1 : candidates[a]!.path > candidates[b]!.path ? 1 : 0);
  for (const index of [...kept.keys()].sort(preset.startup.order === "path" ? byPath : (a, b) => a - b)) {
    const { file, content } = kept.get(index)!;
    files.push(file);
    blocks.push({ path: file.path, layer: "project", content });
  }
  await loadListed(context, result, readText, remaining);
  const position = new Map(candidates.map((candidate, index) => [candidate.path, index]));
  result.leftOut.sort((a, b) => position.get(a.path)! - position.get(b.path)!);
  return result;
}

/**
 * Files the agent's configuration lists, after the chain and in the agent's order; one already
 * loaded (a home file, a chain file) keeps its place. Under the same budget as the chain.
 */
async function loadListed(
  context: InitialContext,
  result: InitialLoad,
  readText: (path: string, budget: number) => Promise<InstructionText | null>,
  budget: number,
): Promise<void> {
  let remaining = budget;
  const loaded = new Set([...result.files.map((file) => file.path), ...result.candidates.map((file) => file.path)]);
  for (const path of context.listed ?? []) {
    if (loaded.has(path)) continue;
    loaded.add(path);
    let text: InstructionText | null;
    try {
      text = await readText(path, remaining);
    } catch (error) {
      reportReadError(context.sink, path, error);
      continue;
    }
    const info = { path, mtimeMs: text?.mtimeMs ?? 0, sizeBytes: text?.sizeBytes ?? 0 };
    if (!text) {
      result.leftOut.push({ ...info, reason: "max-bytes" });
      continue;
    }
    remaining -= text.chargedBytes;
    result.files.push({ ...info, layer: "config", includedBytes: text.includedBytes, truncated: text.truncated });
    result.blocks.push({ path, layer: "config", content: text.content });
  }
}

/** Keeps the first of user files that are one file (device + inode), recording the kept identities. */
async function dedupeUserFiles(fs: InitialContext["cache"]["fs"], user: UserFile[], identities: Map<string, string>): Promise<{ user: UserFile[] }> {
  const kept: UserFile[] = [];
  for (const file of user) {
    const info = await fs.stat(file.path).catch(() => null);
    const key = info ? identityKey(info) : undefined;
    if (key !== undefined && identities.has(key)) continue;
    if (key !== undefined) identities.set(key, file.path);
    kept.push(file);
  }
  return { user: kept };
}

/**
 * When every candidate fits the budget (the usual case), read them all at once instead of one
 * after another; the greedy loop then only checks the results.
 */
function prefetch(
  context: InitialContext,
  candidates: readonly CandidateFile[],
  readText: (path: string, budget: number) => Promise<InstructionText | null>,
): Array<Promise<InstructionText | Error | null>> | undefined {
  const { config, preset } = context;
  let total = 0;
  let count = 0;
  for (const candidate of candidates) {
    total += candidate.sizeBytes;
    if (candidate.sizeBytes > 0) count++;
  }
  if (candidates.length < 2 || total > config.initial.maxBytes || count > config.initial.maxFiles) return undefined;
  return candidates.map((candidate) =>
    candidate.sizeBytes === 0 && preset.text.skipBlank
      ? Promise.resolve(null)
      : // Read what stat saw (imports may add more): a file that grew since comes back truncated and
        // is read again within what is left, so files growing meanwhile cannot multiply the reads.
        readText(candidate.path, config.imports.enabled ? config.initial.maxBytes : Math.max(1, candidate.sizeBytes)).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        ),
  );
}

/**
 * The preset's home layers, named by the user's own configuration only: a name only a
 * repository's agent settings gave is not looked for there. Where the agent itself does (Gemini
 * CLI applies the workspace's `context.fileName` to `~/.gemini` too), a file it would find there
 * is a finding naming it, never its text.
 */
async function homeLayers(context: InitialContext): Promise<UserLayer[]> {
  const { preset, config } = context;
  const where = { home: context.home, env: context.env };
  const projectOnly = context.projectNames;
  if (projectOnly === undefined) return preset.userLayers({ ...where, names: config.files.names });
  const layers = preset.userLayers({ ...where, names: config.files.names.filter((name) => !projectOnly.names.includes(name)) });
  const kept = new Set(layers.flatMap((layer) => layer.candidates));
  for (const path of preset.userLayers({ ...where, names: config.files.names }).flatMap((layer) => layer.candidates)) {
    if (kept.has(path) || !(await context.cache.fs.stat(path).catch(() => null))) continue;
    context.sink.add({
      level: "warning",
      code: AGENT_OUTSIDE_CODE,
      message: `${projectOnly.product} itself will put ${quote(path)} into its prompt: context.fileName of ${quote(projectOnly.file)}, a repository's settings, names it in your home; agentsmd does not read it`,
      path,
      fix: `remove ${quote(nameOf(path))} from context.fileName in ${quote(projectOnly.file)}`,
    });
  }
  return layers;
}
