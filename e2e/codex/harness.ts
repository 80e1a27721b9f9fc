/**
 * Builds a Codex fixture on disk and runs both sides on it: the real Codex CLI (the oracle) and
 * `agentsmd show --preset codex`. Used by the e2e test and by `record.ts`.
 *
 * "No fragment" mapping: when Codex sends no AGENTS.md fragment (no global text and no project
 * docs), `agentsmd show --preset codex` must print nothing at all (empty stdout, exit 0). When
 * it sends one, stdout must be exactly the fragment's UTF-8 bytes, with no trailing newline added.
 */
import { access, writeFile } from "node:fs/promises";
import path from "node:path";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv, type RunResult } from "../lib/exec.js";
import { createTree, dir, type BuiltTree } from "../lib/tree.js";
import { CODEX_HOME_DIR, HOME_DIR, type CodexFixture } from "./fixtures.js";
import { codexAgentsFragment } from "./oracle.js";

export interface BuiltFixture {
  fixture: CodexFixture;
  tree: BuiltTree;
  /** Absolute cwd (lexical: not realpath'ed beyond the temp base). */
  cwd: string;
  /** Absolute `CODEX_HOME`, or undefined when the fixture runs with it unset. */
  codexHome: string | undefined;
  /** Absolute `HOME` for both programs. */
  home: string;
  /** Absolute path of the agentsmd `--config` file (the fixture's settings, symlinks followed as Codex does). */
  configFile: string | undefined;
  cleanup(): Promise<void>;
}

export async function buildFixture(fixture: CodexFixture): Promise<BuiltFixture> {
  const tree = await createTree({ [CODEX_HOME_DIR]: dir(), [HOME_DIR]: dir(), ...fixture.tree }, { prefix: `agentsmd-codex-${fixture.name}-` });
  // Codex follows symlinks leading outside the repository; agentsmd confines them unless told to follow.
  const configFile = path.join(tree.root, "agentsmd-config.json");
  await writeFile(configFile, JSON.stringify({ ...fixture.config, files: { symlinks: "follow" } }, null, 2) + "\n");
  const cwd = tree.path(fixture.cwd);
  await access(cwd); // a typo in a fixture's cwd should fail here, not as a confusing mismatch
  return {
    fixture,
    tree,
    cwd,
    codexHome: fixture.codexHome === "unset" ? undefined : tree.path(CODEX_HOME_DIR),
    home: tree.path(HOME_DIR),
    configFile,
    cleanup: () => tree.cleanup(),
  };
}

/** What Codex sends for the built fixture: the fragment text, or null for none. */
export function oracleFragment(built: BuiltFixture): Promise<string | null> {
  return codexAgentsFragment({
    cwd: built.cwd,
    codexHome: built.codexHome, // undefined: unset, Codex falls back to $HOME/.codex
    home: built.home,
    overrides: built.fixture.overrides ?? [],
  });
}

/** The command line (after `node dist/cli/bin.js`) the suite runs for a fixture. */
export function agentsmdArgs(built: BuiltFixture): string[] {
  const args = ["show", "--preset", "codex", "--cwd", built.cwd];
  if (built.configFile) args.push("--config", built.configFile);
  return args;
}

/** Runs `agentsmd show --preset codex` on the built fixture with CODEX_HOME and HOME set. */
export function agentsmdShow(built: BuiltFixture): Promise<RunResult> {
  return runAgentsmd(agentsmdArgs(built), {
    cwd: built.tree.root,
    env: cleanEnv({ CODEX_HOME: built.codexHome, HOME: built.home }),
  });
}

/** The bytes agentsmd must print for an oracle result. */
export function expectedStdout(fragment: string | null): Buffer {
  return Buffer.from(fragment ?? "", "utf8");
}

/** Replaces the temp base in `text` with `<TMP>` so snapshots are portable. */
export function normalizePaths(text: string, built: BuiltFixture): string {
  return text.split(built.tree.root).join("<TMP>");
}
