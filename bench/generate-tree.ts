/**
 * Seeded generator of synthetic repositories for the benchmarks.
 *
 * Shape: a random recursive tree (each new directory picks a uniformly random
 * existing parent whose depth is below `maxDepth`; mean depth ~ ln(dirs)), plus
 * a guaranteed "spine" `level1/level2/.../level<maxDepth>` under the root so a
 * path of any depth up to `maxDepth` exists.
 * Instruction files (AGENTS.md) sit in the root, on the spine every
 * `spineEvery` levels, and in a random `instructionShare` of the other
 * directories. `touchCount` distinct directories receive one source file each:
 * those are the paths the touch / heap benchmarks visit.
 *
 * Trees are cached under `bench/.trees/<key>/` (gitignored) and reused when the
 * manifest for the same options exists; pass `fresh: true` to rebuild.
 *
 * Run directly: `node bench/.build/bench/generate-tree.js [--dirs N] [--seed S] [--fresh]`
 *
 * @example
 * const tree = await generateTree({ dirs: 2_000, seed: 7 });
 * tree.root;            // absolute path of the repository root (holds .git/)
 * tree.deepFile;        // a file in the depth-20 spine directory
 * tree.touchPaths;      // distinct existing file paths
 * tree.instructionFiles // every AGENTS.md written
 */
import { mkdirSync, rmSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRng, type Rng } from "./lib/rng.js";

export interface TreeOptions {
  /** Number of directories, root included. Default 100,000. */
  dirs: number;
  /** Deepest directory level (root = 0). Default 24. */
  maxDepth: number;
  /** Share of (non-spine) directories holding an instruction file. Default 0.02. */
  instructionShare: number;
  /** Instruction file size range in bytes, inclusive. Default [200, 4000]. */
  fileSize: [number, number];
  /** Instruction file name. Default "AGENTS.md". */
  instructionName: string;
  /** Spine directories at depth % spineEvery === 0 hold an instruction file. Default 5. */
  spineEvery: number;
  /** Depth of the "deep" path returned. Default 20. */
  deepDepth: number;
  /** Number of distinct source files (one per distinct directory) for touch benchmarks. Default 10,000. */
  touchCount: number;
  /** Seed of the generator. Default 1. */
  seed: number;
  /** Where trees are cached. Default `<repo>/bench/.trees`. */
  baseDir: string;
  /** Rebuild even when a cached tree with the same options exists. Default false. */
  fresh: boolean;
}

export interface TreeInfo {
  /** Absolute path of the repository root; holds `.git/` and an instruction file. */
  root: string;
  options: Omit<TreeOptions, "baseDir" | "fresh">;
  dirs: number;
  maxDepthReached: number;
  meanDepth: number;
  /** Every instruction file written, absolute. */
  instructionFiles: string[];
  instructionBytes: number;
  /** The spine directory at depth `deepDepth`. */
  deepDir: string;
  /** An existing file inside `deepDir`. */
  deepFile: string;
  /** Instruction files on the chain root -> deepDir, root first. */
  deepChainFiles: string[];
  /** Distinct existing files, each in a different directory. */
  touchPaths: string[];
  /** Distinct directories on the union of root -> dirname(touchPath) chains, root included. */
  touchUniqueDirs: number;
  /** Instruction files in those directories. */
  touchInstructionFiles: number;
  /** Wall time spent generating (0 when reused from cache... see `reused`). */
  generatedMs: number;
  reused: boolean;
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** bench/ in the source tree, whether running from bench/.build/bench or not. */
export const BENCH_DIR = HERE.includes(`${"/"}.build${"/"}`) ? resolve(HERE, "..", "..") : HERE;

const DEFAULT_TREE_OPTIONS: TreeOptions = {
  dirs: 100_000,
  maxDepth: 24,
  instructionShare: 0.02,
  fileSize: [200, 4000],
  instructionName: "AGENTS.md",
  spineEvery: 5,
  deepDepth: 20,
  touchCount: 10_000,
  seed: 1,
  baseDir: join(BENCH_DIR, ".trees"),
  fresh: false,
};

const WORDS = [
  "src",
  "lib",
  "pkg",
  "app",
  "core",
  "util",
  "api",
  "web",
  "cli",
  "test",
  "docs",
  "data",
  "model",
  "view",
  "store",
  "net",
  "io",
  "auth",
  "db",
  "ui",
  "cmd",
  "internal",
  "service",
  "client",
  "server",
];
const TEXT = [
  "always",
  "run",
  "the",
  "tests",
  "before",
  "committing",
  "prefer",
  "small",
  "functions",
  "use",
  "named",
  "exports",
  "keep",
  "modules",
  "pure",
  "document",
  "every",
  "option",
  "never",
  "log",
  "from",
  "library",
  "code",
  "errors",
  "name",
  "file",
  "and",
  "fix",
  "build",
  "with",
  "npm",
];

function treeKey(o: TreeOptions): string {
  return [
    `d${o.dirs}`,
    `x${o.maxDepth}`,
    `s${o.instructionShare}`,
    `f${o.fileSize[0]}-${o.fileSize[1]}`,
    `e${o.spineEvery}`,
    `p${o.deepDepth}`,
    `t${o.touchCount}`,
    `r${o.seed}`,
    o.instructionName,
  ].join("_");
}

function instructionBody(rng: Rng, title: string, size: number): string {
  // No "@" anywhere: Gemini CLI would treat it as an import and do extra work.
  const parts: string[] = [`# Instructions for ${title}\n\n`];
  let length = parts[0]!.length;
  let line = 0;
  while (length < size) {
    const word = rng.pick(TEXT);
    const sep = ++line % 12 === 0 ? ".\n" : " ";
    parts.push(word, sep);
    length += word.length + sep.length;
  }
  return parts.join("").slice(0, size);
}

/** Generate (or reuse) a synthetic repository and describe it. */
export async function generateTree(partial: Partial<TreeOptions> = {}): Promise<TreeInfo> {
  const o: TreeOptions = { ...DEFAULT_TREE_OPTIONS, ...partial };
  if (o.dirs < o.maxDepth + 1) throw new Error(`dirs (${o.dirs}) must be at least maxDepth + 1 (${o.maxDepth + 1})`);
  if (o.deepDepth > o.maxDepth) throw new Error(`deepDepth (${o.deepDepth}) must be <= maxDepth (${o.maxDepth})`);
  if (o.touchCount > o.dirs) throw new Error(`touchCount (${o.touchCount}) must be <= dirs (${o.dirs})`);
  const home = join(o.baseDir, treeKey(o));
  const manifestPath = join(home, "manifest.json");
  if (!o.fresh && existsSync(manifestPath)) {
    const info = JSON.parse(readFileSync(manifestPath, "utf8")) as TreeInfo;
    return { ...info, reused: true };
  }
  rmSync(home, { recursive: true, force: true });
  const started = performance.now();
  const root = join(home, "repo");
  const rng = createRng(o.seed);
  const n = o.dirs;
  const parent = new Int32Array(n);
  const depth = new Uint8Array(n);
  const children = new Uint32Array(n);
  const hasFile = new Uint8Array(n);
  const paths: string[] = new Array<string>(n);
  parent[0] = -1;
  paths[0] = root;
  mkdirSync(root, { recursive: true });
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");

  let depthSum = 0;
  let maxDepthReached = 0;
  // The spine (level1/level2/.../level<maxDepth>) comes last so it does not skew the random part.
  const spineStart = n - o.maxDepth;
  const isSpine = (i: number): boolean => i >= spineStart;
  for (let i = 1; i < n; i++) {
    let p: number;
    if (i === spineStart) p = 0;
    else if (isSpine(i)) p = i - 1;
    else {
      do p = Math.floor(rng.next() * i);
      while (depth[p]! >= o.maxDepth);
    }
    parent[i] = p;
    const d = depth[p]! + 1;
    depth[i] = d;
    depthSum += d;
    if (d > maxDepthReached) maxDepthReached = d;
    const name = isSpine(i) ? `level${d}` : `${rng.pick(WORDS)}${children[p]!.toString(36)}`;
    children[p]!++;
    const path = `${paths[p]}/${name}`;
    paths[i] = path;
    mkdirSync(path);
  }

  const instructionFiles: string[] = [];
  let instructionBytes = 0;
  for (let i = 0; i < n; i++) {
    const onSpine = isSpine(i);
    const wanted = i === 0 || (onSpine ? depth[i]! % o.spineEvery === 0 : rng.next() < o.instructionShare);
    if (!wanted) continue;
    const size = rng.int(o.fileSize[0], o.fileSize[1]);
    const file = `${paths[i]}/${o.instructionName}`;
    writeFileSync(file, instructionBody(rng, paths[i]!.slice(root.length) || "/", size));
    hasFile[i] = 1;
    instructionFiles.push(file);
    instructionBytes += size;
  }

  const deepIndex = spineStart - 1 + o.deepDepth;
  const deepDir = paths[deepIndex]!;
  const deepFile = `${deepDir}/deep.ts`;
  writeFileSync(deepFile, "export const deep = true;\n");
  const deepChainFiles: string[] = [];
  for (let a = deepIndex; a !== -1; a = parent[a]!) if (hasFile[a]) deepChainFiles.unshift(`${paths[a]}/${o.instructionName}`);

  // Distinct directories for touch paths: partial Fisher-Yates over all indices.
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const touchPaths: string[] = [];
  const marked = new Uint8Array(n);
  let touchUniqueDirs = 0;
  let touchInstructionFiles = 0;
  for (let k = 0; k < o.touchCount; k++) {
    const j = k + Math.floor(rng.next() * (n - k));
    const pick = order[j]!;
    order[j] = order[k]!;
    order[k] = pick;
    const file = `${paths[pick]}/file${k}.ts`;
    writeFileSync(file, `export const value${k} = ${k};\n`);
    touchPaths.push(file);
    for (let a = pick; a !== -1 && !marked[a]; a = parent[a]!) {
      marked[a] = 1;
      touchUniqueDirs++;
      if (hasFile[a]) touchInstructionFiles++;
    }
  }

  const info: TreeInfo = {
    root,
    options: {
      dirs: o.dirs,
      maxDepth: o.maxDepth,
      instructionShare: o.instructionShare,
      fileSize: o.fileSize,
      instructionName: o.instructionName,
      spineEvery: o.spineEvery,
      deepDepth: o.deepDepth,
      touchCount: o.touchCount,
      seed: o.seed,
    },
    dirs: n,
    maxDepthReached,
    meanDepth: Math.round((depthSum / Math.max(1, n - 1)) * 100) / 100,
    instructionFiles,
    instructionBytes,
    deepDir,
    deepFile,
    deepChainFiles,
    touchPaths,
    touchUniqueDirs,
    touchInstructionFiles,
    generatedMs: Math.round(performance.now() - started),
    reused: false,
  };
  writeFileSync(manifestPath, JSON.stringify(info));
  return info;
}

function parseArgs(argv: string[]): Partial<TreeOptions> {
  const out: Partial<TreeOptions> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === "--fresh") out.fresh = true;
    else if (a === "--dirs") ((out.dirs = Number(v)), i++);
    else if (a === "--depth") ((out.maxDepth = Number(v)), i++);
    else if (a === "--share") ((out.instructionShare = Number(v)), i++);
    else if (a === "--touch") ((out.touchCount = Number(v)), i++);
    else if (a === "--seed") ((out.seed = Number(v)), i++);
    else if (a === "--out") ((out.baseDir = resolve(String(v))), i++);
    else throw new Error(`unknown option ${a}; see bench/README.md`);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const info = await generateTree(parseArgs(process.argv.slice(2)));
  const { instructionFiles, touchPaths, deepChainFiles, ...summary } = info;
  console.log(JSON.stringify({ ...summary, instructionFiles: instructionFiles.length, touchPaths: touchPaths.length, deepChainFiles }, null, 2));
}
