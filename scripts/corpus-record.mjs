/**
 * Records the instruction-file layout of a real repository into test/corpus/<name>.json: paths,
 * sizes and symlink targets only, never a file's text (the bodies are synthetic when the corpus is
 * materialised: test/corpus/materialise.ts). Reads a local git clone or mirror, no network.
 *
 * Usage: node scripts/corpus-record.mjs <git dir> <owner/name> <licence> <out name> [cwd...]
 *   e.g. node scripts/corpus-record.mjs /work/.mirror/pydantic+pydantic-ai/repo pydantic/pydantic-ai MIT pydantic-ai
 * Without cwds: the root and the three deepest directories holding an instruction file.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const NAMES = new Set(["AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "CONTEXT.md", "QWEN.md", ".cursorrules"]);
const DIRS = [".cursor/rules/", ".claude/rules/", ".github/instructions/"];
const FILES = new Set([".github/copilot-instructions.md", ".claude/CLAUDE.md", ".claude/AGENTS.md"]);

/** True for a path any agent agentsmd knows reads as instructions. */
export function isInstructionPath(path) {
  const name = posix.basename(path);
  if (NAMES.has(name)) return true;
  if ([...FILES].some((file) => path === file || path.endsWith(`/${file}`))) return true;
  return DIRS.some((dir) => path.startsWith(dir) || path.includes(`/${dir}`));
}

function record(gitDir, repo, licence, cwds) {
  const git = (...args) => execFileSync("git", ["-C", gitDir, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const commit = git("rev-parse", "HEAD").trim();
  const entries = [];
  for (const line of git("ls-tree", "-r", "-l", "-z", "HEAD").split("\0")) {
    const match = /^(\d+) (\w+) ([0-9a-f]+)\s+(-|\d+)\t(.*)$/s.exec(line);
    if (!match) continue;
    const [, mode, type, object, size, path] = match;
    if (type !== "blob" || !isInstructionPath(path)) continue;
    if (mode === "120000") entries.push({ path, symlink: git("cat-file", "-p", object) });
    else entries.push({ path, size: Number(size) });
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : 1));
  const dirs = [
    ...new Set(entries.map((entry) => posix.dirname(entry.path)).filter((dir) => dir !== "." && !dir.split("/").some((part) => part.startsWith(".")))),
  ];
  dirs.sort((a, b) => b.split("/").length - a.split("/").length || (a < b ? -1 : 1));
  const chosen = cwds.length > 0 ? cwds : [".", ...dirs.slice(0, 3)];
  return {
    repo,
    commit,
    licence,
    note: "Paths, sizes and symlink targets of the instruction files only (git ls-tree); every body is synthetic, of the recorded size.",
    cwds: chosen,
    entries,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [gitDir, repo, licence, name, ...cwds] = process.argv.slice(2);
  if (!gitDir || !repo || !licence || !name) {
    console.error("usage: node scripts/corpus-record.mjs <git dir> <owner/name> <licence> <out name> [cwd...]");
    process.exit(2);
  }
  const out = join(dirname(dirname(fileURLToPath(import.meta.url))), "test", "corpus", `${name}.json`);
  writeFileSync(out, `${JSON.stringify(record(gitDir, repo, licence, cwds), null, 2)}\n`);
  console.log(out);
}
