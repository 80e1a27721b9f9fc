/**
 * Records what the real Codex CLI sends for every fixture into `e2e/codex/expected/<name>.txt`,
 * so reviewers can read Codex's behaviour next to the fixture data. The e2e test never reads
 * these files: it always compares against the live binary. Re-run after changing fixtures or the
 * pinned Codex version, and review the diff.
 *
 * Run from the repository root:
 *   npm ci --prefix e2e/codex
 *   npm run --prefix e2e/codex record [-- name-filter | -- --check]
 * (or directly: e2e/codex/node_modules/.bin/tsx e2e/codex/record.ts [name-filter] [--check])
 *
 * File format: exactly the fragment's UTF-8 bytes, with the temp base directory replaced by
 * `<TMP>`; an empty file means Codex sent no AGENTS.md fragment. `--check` compares instead of
 * writing and exits 1 on any difference.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fixtures } from "./fixtures.js";
import { buildFixture, normalizePaths, oracleFragment } from "./harness.js";

const EXPECTED_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "expected");

async function main(argv: string[]): Promise<number> {
  const check = argv.includes("--check");
  const filter = argv.find((a) => !a.startsWith("--"));
  const selected = fixtures.filter((f) => (!filter || f.name.includes(filter)) && !(f.posixOnly && process.platform === "win32"));
  await mkdir(EXPECTED_DIR, { recursive: true });
  let differences = 0;
  for (const fixture of selected) {
    const built = await buildFixture(fixture);
    try {
      const started = performance.now();
      const fragment = await oracleFragment(built);
      const ms = Math.round(performance.now() - started);
      const text = fragment === null ? "" : normalizePaths(fragment, built);
      const file = path.join(EXPECTED_DIR, `${fixture.name}.txt`);
      const before = await readFile(file, "utf8").catch(() => undefined);
      const status = before === undefined ? "new" : before === text ? "same" : "CHANGED";
      if (status !== "same") differences++;
      if (!check) await writeFile(file, text);
      console.log(`${status.padEnd(7)} ${fixture.name} (${fragment === null ? "no fragment" : `${Buffer.byteLength(text)} bytes`}, ${ms} ms)`);
    } finally {
      await built.cleanup();
    }
  }
  if (!filter && !check) {
    // Drop snapshots of fixtures that no longer exist.
    const known = new Set(fixtures.map((f) => `${f.name}.txt`));
    for (const name of await readdir(EXPECTED_DIR)) {
      if (name.endsWith(".txt") && !known.has(name)) {
        await rm(path.join(EXPECTED_DIR, name));
        console.log(`removed ${name}`);
        differences++;
      }
    }
  }
  if (check && differences > 0) {
    console.error(`${differences} snapshot(s) differ from the live Codex CLI; run e2e/codex/record.ts and review the diff.`);
    return 1;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
