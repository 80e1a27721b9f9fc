/**
 * Correctness check of the benchmark adapters on a small generated tree: every loader must
 * return exactly the instruction files expected, before any timing is trusted.
 *
 * Run: `node bench/.build/bench/verify.js` (exit 1 on a mismatch). `npm run bench` runs it first.
 */
import { dirname, sep } from "node:path";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { generateTree, type TreeInfo } from "./generate-tree.js";
import { createNaiveLoader, countingNaiveFs } from "./naive-loader.js";
import { createGeminiLoader, geminiAvailability } from "./gemini-jit.js";
import { patchFsPromises, zeroCounts, type FsCounts } from "./lib/fs-count.js";
import type { Loader } from "./lib/loader.js";

/** Instruction files applying to `dir`, root first. */
function expectedFor(tree: TreeInfo, dir: string): string[] {
  return tree.instructionFiles
    .filter((f) => {
      const scope = dirname(f);
      return dir === scope || dir.startsWith(scope + sep);
    })
    .sort((a, b) => a.length - b.length);
}

// Order is not compared: agentsmd touch delivers deepest first, the others root first.
function same(label: string, got: string[], want: string[], problems: string[]): void {
  const g = JSON.stringify([...got].sort());
  const w = JSON.stringify([...want].sort());
  if (g !== w) problems.push(`${label}:\n  got  ${g}\n  want ${w}`);
}

async function checkLoader(loader: Loader, tree: TreeInfo, stateful: boolean, problems: string[]): Promise<void> {
  const n = loader.name;
  same(
    `${n} initial(deepDir)`,
    (await loader.initial(tree.root, tree.deepDir)).map((f) => f.path),
    tree.deepChainFiles,
    problems,
  );
  // Fresh session at the root, then the deep file: a stateful loader returns only what is new.
  const rootFiles = (await loader.initial(tree.root, tree.root)).map((f) => f.path);
  same(`${n} initial(root)`, rootFiles, expectedFor(tree, tree.root), problems);
  const deepWant = stateful ? tree.deepChainFiles.filter((f) => !rootFiles.includes(f)) : tree.deepChainFiles;
  same(
    `${n} resolve(deepFile)`,
    (await loader.resolve(tree.root, tree.deepFile)).map((f) => f.path),
    deepWant,
    problems,
  );
  same(
    `${n} resolve(deepFile) again`,
    (await loader.resolve(tree.root, tree.deepFile)).map((f) => f.path),
    stateful ? [] : tree.deepChainFiles,
    problems,
  );
  // Touch paths in a fresh session: union of everything delivered == union of what applies.
  loader.reset();
  await loader.initial(tree.root, tree.root);
  const delivered = new Set(rootFiles);
  const wantAll = new Set(rootFiles);
  for (const path of tree.touchPaths) {
    const got = (await loader.resolve(tree.root, path)).map((f) => f.path);
    const want = expectedFor(tree, dirname(path));
    for (const f of want) wantAll.add(f);
    if (stateful) {
      same(
        `${n} resolve(${path})`,
        got,
        want.filter((f) => !delivered.has(f)),
        problems,
      );
      for (const f of got) delivered.add(f);
    } else same(`${n} resolve(${path})`, got, want, problems);
  }
}

export async function verify(log: (line: string) => void = console.log): Promise<string[]> {
  const tree = await generateTree({
    dirs: 400,
    maxDepth: 24,
    instructionShare: 0.1,
    fileSize: [50, 300],
    touchCount: 60,
    seed: 3,
    baseDir: join(tmpdir(), "agentsmd-bench-verify"),
  });
  const problems: string[] = [];
  await checkLoader(createNaiveLoader(), tree, false, problems);
  try {
    const agentsmd = (await import(new URL("./agentsmd.js", import.meta.url).href)) as {
      implementations(): Promise<import("./lib/loader.js").Implementation[]>;
    };
    for (const impl of await agentsmd.implementations()) {
      const loader = await impl.create();
      await checkLoader(loader, tree, true, problems);
      await loader.close();
    }
  } catch (error) {
    if (!(error instanceof Error && /Cannot find module/.test(error.message))) throw error;
    log("agentsmd skipped: adapter not built");
  }
  const gemini = geminiAvailability();
  if (gemini.ok) {
    const loader = await createGeminiLoader();
    await checkLoader(loader, tree, true, problems);
    // Counting by patching node:fs/promises sees Gemini's calls.
    const counts: FsCounts = zeroCounts();
    const restore = patchFsPromises(counts);
    try {
      await loader.initial(tree.root, tree.root);
      await loader.resolve(tree.root, tree.deepFile);
    } finally {
      restore();
    }
    if (counts.probes === 0 || counts.opens === 0) problems.push(`gemini fs counting saw nothing: ${JSON.stringify(counts)}`);
    log(`gemini ${gemini.version}: initial(root)+resolve(deepFile) fs calls ${JSON.stringify(counts)}`);
  } else log(`gemini skipped: ${gemini.reason}`);
  const counts = zeroCounts();
  const naive = createNaiveLoader({ fs: countingNaiveFs(counts) });
  await naive.resolve(tree.root, tree.deepFile);
  log(`naive: resolve(deepFile) fs calls ${JSON.stringify(counts)} (21 dirs x 3 names = 63 probes, ${tree.deepChainFiles.length} reads)`);
  if (counts.probes !== 63 || counts.opens !== tree.deepChainFiles.length) problems.push(`naive counts unexpected: ${JSON.stringify(counts)}`);
  return problems;
}

if (process.argv[1] && resolvePath(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const keepAlive = setInterval(() => undefined, 1 << 30); // see run.ts
  const problems = await verify();
  clearInterval(keepAlive);
  if (problems.length) {
    console.error(problems.join("\n"));
    process.exitCode = 1;
  } else console.log("verify: all loaders return the expected files");
}
