/**
 * Preset `qwen` against Qwen Code 0.24.4's own startup loader (`loadServerHierarchicalMemory`, run
 * from the pinned package by oracle.mjs): `agentsmd show --preset qwen` must print exactly the
 * `memoryContent` Qwen puts into its system prompt, for each tree below.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/qwen`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";
import { createTree, dir, symlink, type TreeSpec } from "../lib/tree.js";

export const QWEN_VERSION = "0.24.4";
const ORACLE = path.join(path.dirname(fileURLToPath(import.meta.url)), "oracle.mjs");

interface Request {
  cwd: string;
  home: string;
  qwenHome?: string;
  fileName?: string[];
}
interface Answer {
  memoryContent?: string;
  contextFilePaths?: string[];
  error?: string;
}

let pkgDir = "";

async function oracle(requests: Request[]): Promise<Answer[]> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: process.env.TMPDIR, LANG: "C.UTF-8", NO_COLOR: "1" };
  const child = spawn(process.execPath, [ORACLE, pkgDir], { env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err = (err + chunk).slice(-10_000)));
  child.stdin.end(JSON.stringify(requests));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`oracle.mjs exited ${code}: ${err}`);
  return JSON.parse(out) as Answer[];
}

async function ours(request: Request, configFile?: string): Promise<string> {
  const env = cleanEnv({ HOME: request.home, QWEN_HOME: request.qwenHome });
  const args = ["show", "--preset", "qwen", "--cwd", request.cwd, "--home", request.home, ...(configFile ? ["--config", configFile] : [])];
  const result = await runAgentsmd(args, { env });
  expect(result.code, result.stderr.toString()).toBe(0);
  return result.stdout.toString().replace(/\n$/, "");
}

/** Builds `spec`, then compares agentsmd with Qwen for every cwd (relative to the tree). */
async function same(spec: TreeSpec, cwds: string[], options: { qwenHome?: string; fileName?: string[]; expectText?: string[] } = {}): Promise<string[]> {
  const tree = await createTree({ "home/.keep": "", ...spec });
  try {
    const home = tree.path("home");
    const qwenHome = options.qwenHome ? tree.path(options.qwenHome) : undefined;
    const requests = cwds.map((cwd) => ({
      cwd: tree.path(cwd),
      home,
      ...(qwenHome ? { qwenHome } : {}),
      ...(options.fileName ? { fileName: options.fileName } : {}),
    }));
    const answers = await oracle(requests);
    let configFile: string | undefined;
    if (options.fileName) {
      configFile = tree.path("agentsmd.json");
      await writeFile(configFile, JSON.stringify({ files: { names: [...options.fileName, ".qwen/QWEN.local.md"] } }));
    }
    const texts: string[] = [];
    for (const [index, request] of requests.entries()) {
      const answer = answers[index]!;
      expect(answer.error).toBeUndefined();
      const text = await ours(request, configFile);
      expect(text, `cwd ${cwds[index]}`).toBe(answer.memoryContent);
      texts.push(text);
    }
    for (const token of options.expectText ?? []) expect(texts.join("\n")).toContain(token);
    return texts;
  } finally {
    await tree.cleanup();
  }
}

beforeAll(async () => {
  await assertAgentsmdBuilt();
  pkgDir = await ensureInstalled({ folder: "qwen", pkg: "@qwen-code/qwen-code", version: QWEN_VERSION });
}, 600_000);

describe(`preset qwen is byte-identical with Qwen Code ${QWEN_VERSION}'s startup loader`, () => {
  it("QWEN.md and AGENTS.md from the git root to cwd, grouped by name; nothing below cwd; a sibling never", async () => {
    await same(
      {
        "repo/.git": dir(),
        "repo/QWEN.md": "Q-ROOT\n",
        "repo/AGENTS.md": "A-ROOT\n",
        "repo/pkg/AGENTS.md": "A-PKG\n",
        "repo/pkg/QWEN.md": "Q-PKG\n",
        "repo/pkg/sub/AGENTS.md": "A-SUB (below cwd pkg: not at startup)\n",
        "repo/other/AGENTS.md": "A-OTHER\n",
      },
      ["repo", "repo/pkg", "repo/pkg/sub", "repo/other"],
      { expectText: ["Q-ROOT", "A-PKG", "A-SUB", "A-OTHER"] },
    );
  });

  it("the directory above the nearest .git loads too, nothing higher (a .git directory, or a worktree's .git file)", async () => {
    await same(
      {
        "AGENTS.md": "ABOVE\n",
        "outer/.git": dir(),
        "outer/AGENTS.md": "OUTER\n",
        "outer/inner/.git": "gitdir: /elsewhere\n",
        "outer/inner/AGENTS.md": "INNER\n",
        "outer/inner/x/QWEN.md": "X\n",
      },
      ["outer", "outer/inner", "outer/inner/x"],
      { expectText: ["ABOVE", "OUTER", "INNER", "X"] },
    );
  });

  it("no .git anywhere: the walk goes up from cwd", async () => {
    await same({ "a/AGENTS.md": "A\n", "a/b/AGENTS.md": "B\n", "a/b/c/QWEN.md": "C\n" }, ["a/b/c"], { expectText: ["A", "B", "C"] });
  });

  it("global files in ~/.qwen, and $QWEN_HOME instead", async () => {
    const spec: TreeSpec = {
      "home/.qwen/QWEN.md": "G-QWEN\n",
      "home/.qwen/AGENTS.md": "G-AGENTS\n",
      "qh/AGENTS.md": "QH-AGENTS\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "R\n",
    };
    await same(spec, ["repo"], { expectText: ["G-QWEN", "G-AGENTS"] });
    await same(spec, ["repo"], { qwenHome: "qh", expectText: ["QH-AGENTS"] });
  });

  it(".qwen/QWEN.local.md at the root comes last", async () => {
    await same({ "repo/.git": dir(), "repo/.qwen/QWEN.local.md": "LOCAL\n", "repo/AGENTS.md": "R\n", "repo/p/QWEN.md": "P\n" }, ["repo/p"], {
      expectText: ["LOCAL"],
    });
  });

  it("blank and whitespace-only files are dropped, text is trimmed; a directory named AGENTS.md is skipped", async () => {
    await same(
      {
        "repo/.git": dir(),
        "repo/AGENTS.md": "\n\n  padded  \n\n",
        "repo/QWEN.md": " \t\n",
        "repo/a/AGENTS.md": dir(),
        "repo/a/QWEN.md": "",
        "repo/a/b/AGENTS.md": "B\n",
      },
      ["repo/a/b"],
    );
  });

  it("a symlink to a file already loaded loads once", async () => {
    await same({ "repo/.git": dir(), "repo/AGENTS.md": "SHARED\n", "repo/QWEN.md": symlink("AGENTS.md") }, ["repo"]);
  });

  it("context.fileName replaces the names (files.names here)", async () => {
    await same({ "repo/.git": dir(), "repo/QWEN.md": "Q\n", "repo/AGENTS.md": "A\n", "repo/CONTEXT.md": "C\n", "repo/x/CONTEXT.md": "CX\n" }, ["repo/x"], {
      fileName: ["CONTEXT.md"],
      expectText: ["CX"],
    });
  });
});
