/**
 * The corpus: layouts of real public repositories' instruction files (test/corpus/<name>.json,
 * recorded by scripts/corpus-record.mjs: paths, sizes and symlink targets, never a body), and a
 * materialiser that writes one into a directory with synthetic bodies of the recorded sizes, so
 * the oracle suites (e2e/codex, e2e/gemini, e2e/opencode, e2e/claude-code) can run over real
 * shapes without carrying anyone's text.
 *
 * @example
 * for (const repo of loadCorpus()) {
 *   const root = materialise(repo, path.join(dir, repo.name)); // a git repository
 *   for (const cwd of repo.cwds) runOracles(path.join(root, cwd));
 * }
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** A relative POSIX path that stays inside the tree. */
const RelativePath = z.string().refine((value) => value !== "" && !value.startsWith("/") && !value.split("/").some((part) => part === ".." || part === ""), {
  message: "a relative path inside the repository",
});

const CorpusRepoSchema = z
  .object({
    repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
    commit: z.string().regex(/^[0-9a-f]{40}$/),
    licence: z.string(),
    note: z.string(),
    /** Working directories the suites run from ("." is the root). */
    cwds: z.array(z.union([z.literal("."), RelativePath])).min(1),
    entries: z.array(
      z.union([
        z.object({ path: RelativePath, size: z.number().int().nonnegative() }).strict(),
        z.object({ path: RelativePath, symlink: z.string() }).strict(),
      ]),
    ),
  })
  .strict();

export type CorpusRepo = z.infer<typeof CorpusRepoSchema> & { name: string };

/** Every repository of the corpus, by file name. */
export function loadCorpus(dir = HERE): CorpusRepo[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({ ...CorpusRepoSchema.parse(JSON.parse(readFileSync(path.join(dir, file), "utf8"))), name: file.slice(0, -5) }));
}

/**
 * The synthetic body of a recorded file: numbered ASCII lines naming the file, cut to `size` bytes
 * (the last line may end without a newline, as a real file may).
 * @example syntheticBody("AGENTS.md", 40) // "AGENTS.md: synthetic line 0001 ........\n" (40 bytes)
 */
export function syntheticBody(relative: string, size: number): string {
  let out = "";
  for (let line = 1; out.length < size; line++) out += `${relative}: synthetic line ${String(line).padStart(4, "0")} ........\n`;
  return out.slice(0, size);
}

/**
 * Writes `repo` into `root` (created; `git init` there), every cwd created; returns `root`.
 * Bodies are synthetic; symlinks keep their recorded targets.
 */
export function materialise(repo: CorpusRepo, root: string): string {
  mkdirSync(root, { recursive: true });
  execFileSync("git", ["init", "-q", root], { stdio: "ignore" });
  for (const cwd of repo.cwds) mkdirSync(path.join(root, cwd), { recursive: true });
  for (const entry of repo.entries) {
    const file = path.join(root, ...entry.path.split("/"));
    mkdirSync(path.dirname(file), { recursive: true });
    if ("symlink" in entry) symlinkSync(entry.symlink, file);
    else writeFileSync(file, syntheticBody(entry.path, entry.size));
  }
  return root;
}
