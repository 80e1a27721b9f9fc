/**
 * Proof that `agentsmd show --preset codex` sends exactly what the real Codex CLI sends.
 *
 * For every fixture in `fixtures.ts`: build the tree in a fresh temp dir, ask the pinned Codex
 * binary (`codex debug prompt-input`, offline) for its AGENTS.md fragment, run the built agentsmd
 * CLI on the same tree, cwd, CODEX_HOME and HOME, and compare stdout byte for byte. When Codex
 * sends no fragment, agentsmd must print nothing. The committed `expected/*.txt` files are only
 * for reading (and are checked to be current); the comparison is always against the live binary.
 *
 * Run: npm run build && npm ci --prefix e2e/codex && npx vitest run -c vitest.e2e.config.ts e2e/codex
 */
import { access, readFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { assertAgentsmdBuilt, AGENTSMD_BIN } from "../lib/agentsmd.js";
import { fixtures, overridesFor } from "./fixtures.js";
import { agentsmdArgs, agentsmdShow, buildFixture, expectedStdout, normalizePaths, oracleFragment } from "./harness.js";
import { codexEntry, CODEX_VERSION } from "./oracle.js";

const EXPECTED_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "expected");

/** A readable account of the first difference between two byte strings. */
function describeMismatch(expected: Buffer, actual: Buffer): string {
  let i = 0;
  while (i < expected.length && i < actual.length && expected[i] === actual[i]) i++;
  const window = (b: Buffer): string => `${b.subarray(Math.max(0, i - 16), i + 16).toString("hex")}`;
  return [
    `first difference at byte ${i} (expected ${expected.length} bytes, got ${actual.length})`,
    `expected: ${JSON.stringify(expected.toString("utf8"))}`,
    `actual:   ${JSON.stringify(actual.toString("utf8"))}`,
    `expected hex around it: ${window(expected)}`,
    `actual hex around it:   ${window(actual)}`,
  ].join("\n");
}

describe(`codex preset is byte-identical with Codex CLI ${CODEX_VERSION}`, () => {
  beforeAll(async () => {
    await codexEntry(); // installs e2e/codex if needed (npm ci --prefix e2e/codex)
    await assertAgentsmdBuilt();
  }, 15 * 60_000);

  it("runs in a temp dir with no root marker in any ancestor", async () => {
    // Otherwise the "no marker" fixtures would silently find the marker above the temp dir.
    const markers = new Set([".git", ...fixtures.flatMap((f) => f.config?.codex.project_root_markers ?? [])]);
    let dir = await realpath(tmpdir());
    const found: string[] = [];
    for (;;) {
      for (const m of markers) {
        const candidate = path.join(dir, m);
        if (
          await access(candidate).then(
            () => true,
            () => false,
          )
        )
          found.push(candidate);
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    expect(found, "set TMPDIR to a directory outside any repository").toEqual([]);
  });

  it("gives every fixture a unique name and Codex overrides that match its agentsmd config", () => {
    const names = fixtures.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of fixtures) expect(f.overrides ?? [], f.name).toEqual(overridesFor(f.config));
  });

  for (const fixture of fixtures) {
    const skip = fixture.posixOnly === true && process.platform === "win32";
    it.skipIf(skip)(`${fixture.name}: ${fixture.about}`, async () => {
      const built = await buildFixture(fixture);
      try {
        const fragment = await oracleFragment(built);
        const result = await agentsmdShow(built);
        const command = `CODEX_HOME=${built.codexHome ?? "(unset)"} HOME=${built.home} node ${AGENTSMD_BIN} ${agentsmdArgs(built).join(" ")}`;
        expect(result.code, `${command}\nexited ${result.code}; stderr:\n${result.stderr.toString()}`).toBe(0);
        const expected = expectedStdout(fragment);
        expect(
          result.stdout.equals(expected),
          `${command}\ndiffers from codex ${CODEX_VERSION}:\n${describeMismatch(expected, result.stdout)}\nstderr:\n${result.stderr.toString()}`,
        ).toBe(true);

        const snapshot = await readFile(path.join(EXPECTED_DIR, `${fixture.name}.txt`), "utf8").catch(() => undefined);
        expect
          .soft(snapshot, `e2e/codex/expected/${fixture.name}.txt is stale or missing: run e2e/codex/record.ts`)
          .toBe(fragment === null ? "" : normalizePaths(fragment, built));
      } finally {
        await built.cleanup();
      }
    });
  }
});
