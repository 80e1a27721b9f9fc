/**
 * Property test (fast-check): doctor never says what explain contradicts. Random trees
 * of AGENTS.md, CLAUDE.md (text, a symlink to the AGENTS.md beside it or to the root's, an
 * `@AGENTS.md` import), AGENTS.override.md, GEMINI.md, `.agents/AGENTS.md`, nested and excluded
 * directories; every finding about what an agent reads is checked against `explainPath` under
 * that preset (the library call behind `explain --all-presets`), for sessions started where the
 * finding says:
 * - agents-disagree: each preset in `readBy` shows the file (or its symlink target) among what
 *   the model sees; each in `agents` shows neither it nor any file of the same real path;
 * - claude-ignores-agents: no hidden AGENTS.md text reaches Claude Code in a session started in
 *   the CLAUDE file's directory or in the hidden file's own;
 * - excluded-dir: the presets named never show the file;
 * - empty-override / override-hides-bigger-file: the presets named pick the winner and never show
 *   the hidden file's text;
 * - advisory findings (ADVISORY_CODES) are info exactly when none of their agents has a file of its
 *   own in the tree.
 *
 * `npm test` runs a few cases; `npm run fuzz` runs FUZZ_RUNS.
 */
import fc from "fast-check";
import { realpath, stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ADVISORY_CODES, doctor, type Finding } from "../../src/inspect/doctor.js";
import { explainPath, type Explanation } from "../../src/inspect/explain.js";
import { PROBE_NAME } from "../../src/inspect/survey.js";
import { isInside, join, nameOf, parentOf } from "../../src/core/paths.js";
import { createTree, makeSymlink, type Tree } from "../helpers/tree.js";

const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 12) / 2));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const DIRS = ["", "a", "a/b", "c", "dist"] as const;

const dirArb = fc.record({
  agents: fc.constantFrom("none", "text", "big", "blank"),
  claude: fc.constantFrom("none", "none", "text", "link-beside", "link-root", "import"),
  override: fc.constantFrom("none", "none", "none", "small", "blank"),
  gemini: fc.constantFrom("none", "none", "text", "link-beside"),
});

const treeArb = fc.record({
  git: fc.boolean(),
  hygge: fc.boolean(),
  dirs: fc.tuple(...DIRS.map(() => fc.option(dirArb, { nil: undefined, freq: 3 }))),
});

type Layout = typeof treeArb extends fc.Arbitrary<infer T> ? T : never;

async function build(layout: Layout): Promise<{ tree: Tree; repo: string; used: Set<string> }> {
  const tree = await createTree({ "repo/": null });
  // Agents with a file of their own in the tree (a dangling symlink is no file).
  const owned: Array<[string, string]> = [];
  if (layout.git) await tree.write("repo/.git/HEAD", "ref: refs/heads/main\n");
  if (layout.hygge) {
    await tree.write("repo/.agents/AGENTS.md", "hygge's own file\n");
    owned.push(["hygge", "repo/.agents/AGENTS.md"]);
  }
  for (const [index, dir] of DIRS.entries()) {
    const spec = layout.dirs[index];
    if (!spec) continue;
    const at = (name: string) => `repo/${dir ? `${dir}/` : ""}${name}`;
    if (spec.agents === "text") await tree.write(at("AGENTS.md"), `agents rules of ${dir || "the root"}\n`);
    if (spec.agents === "big") await tree.write(at("AGENTS.md"), `${"a long rule line\n".repeat(120)}`);
    if (spec.agents === "blank") await tree.write(at("AGENTS.md"), "\n \n");
    if (spec.claude !== "none") owned.push(["claude", at("CLAUDE.md")]);
    if (spec.claude === "text") await tree.write(at("CLAUDE.md"), `claude rules of ${dir || "the root"}\n`);
    if (spec.claude === "import") await tree.write(at("CLAUDE.md"), "@AGENTS.md\n");
    if (spec.claude === "link-beside") await makeSymlink(tree, at("CLAUDE.md"), "AGENTS.md");
    if (spec.claude === "link-root") await makeSymlink(tree, at("CLAUDE.md"), `${"../".repeat(dir ? dir.split("/").length : 0)}AGENTS.md`);
    if (spec.override !== "none") owned.push(["codex", at("AGENTS.override.md")]);
    if (spec.override === "small") await tree.write(at("AGENTS.override.md"), "override\n");
    if (spec.override === "blank") await tree.write(at("AGENTS.override.md"), "");
    if (spec.gemini !== "none") owned.push(["gemini", at("GEMINI.md")]);
    if (spec.gemini === "text") await tree.write(at("GEMINI.md"), `gemini rules of ${dir || "the root"}\n`);
    if (spec.gemini === "link-beside") await makeSymlink(tree, at("GEMINI.md"), "AGENTS.md");
  }
  const used = new Set<string>();
  for (const [agent, rel] of owned) if (await stat(tree.path(rel)).catch(() => null)) used.add(agent);
  return { tree, repo: tree.path("repo"), used };
}

const real = (path: string) => realpath(path).catch(() => path);

/** The directory a file governs (`.agents/AGENTS.md` governs its parent's parent). */
const scopeOf = (path: string) => (nameOf(parentOf(path)).startsWith(".") ? parentOf(parentOf(path)) : parentOf(path));

/** What the model sees under `explanation`: real paths of the files shown, and of what they import. */
async function seen(explanation: Explanation): Promise<Set<string>> {
  const out = new Set<string>();
  for (const entry of explanation.files) {
    if (entry.order === null) continue;
    out.add(await real(entry.path));
    for (const record of entry.imports) out.add(await real(record.path));
  }
  return out;
}

async function check(layout: Layout): Promise<void> {
  const { tree, repo, used } = await build(layout);
  try {
    const session = { home: tree.home, env: {} };
    const report = await doctor({ root: repo, session });
    const explain = (preset: string, cwd: string, dir: string) => explainPath({ ...session, cwd, preset }, join(dir, PROBE_NAME));
    const why = (finding: Finding, detail: string) => `${finding.code} ${finding.path}: ${detail}\n${finding.message}`;
    for (const finding of report.findings) {
      if (ADVISORY_CODES.has(finding.code)) {
        const advises = (finding.agents ?? []).some((agent) => used.has(agent));
        expect(finding.severity, why(finding, `used: ${[...used].join(",")}`)).toBe(advises ? "warning" : "info");
      }
      if (finding.code === "agents-disagree") {
        for (const path of finding.paths ?? [finding.path]) {
          const target = await real(path);
          for (const preset of finding.readBy ?? []) {
            const shown = await seen(await explain(preset, repo, scopeOf(path)));
            expect(shown.has(target), why(finding, `explain --preset ${preset} does not show it`)).toBe(true);
          }
          for (const preset of finding.agents ?? []) {
            for (const cwd of new Set([repo, scopeOf(path)])) {
              const shown = await seen(await explain(preset, cwd, scopeOf(path)));
              expect(shown.has(target), why(finding, `explain --preset ${preset} (cwd ${cwd}) shows its text`)).toBe(false);
            }
          }
        }
      }
      if (finding.code === "claude-ignores-agents") {
        const claudeScope = scopeOf(finding.path);
        for (const hidden of (finding.paths ?? []).slice(1)) {
          expect(isInside(hidden, claudeScope)).toBe(true);
          for (const cwd of new Set([claudeScope, scopeOf(hidden)])) {
            const shown = await seen(await explain("claude", cwd, scopeOf(hidden)));
            expect(shown.has(await real(hidden)), why(finding, `claude (cwd ${cwd}) gets ${hidden}`)).toBe(false);
          }
        }
      }
      if (finding.code === "excluded-dir") {
        for (const preset of finding.agents ?? []) {
          const explanation = await explain(preset, repo, scopeOf(finding.path));
          const entry = explanation.files.find((each) => each.path === finding.path);
          expect(entry?.order ?? null, why(finding, `${preset} delivers it`)).toBeNull();
        }
      }
      if (finding.code === "empty-override" || finding.code === "override-hides-bigger-file") {
        const [winner, hidden] = finding.paths!;
        for (const preset of finding.agents ?? []) {
          const explanation = await explain(preset, scopeOf(winner!), scopeOf(winner!));
          const lost = explanation.files.find((each) => each.path === hidden);
          expect(lost?.order ?? null, why(finding, `${preset} shows ${hidden}`)).toBeNull();
          expect((await seen(explanation)).has(await real(hidden!)), why(finding, `${preset} gets the text of ${hidden}`)).toBe(false);
          // The winner is chosen (agentsmd may still skip it: a symlink leaving the root under files.symlinks "inside-root").
          const won = explanation.files.find((each) => each.path === winner);
          expect(won && !["shadowed", "ignored"].includes(won.status), why(finding, `${preset} does not pick ${winner}`)).toBe(true);
        }
      }
    }
  } finally {
    await tree.cleanup();
  }
}

describe("doctor agrees with explain", () => {
  it("every finding about what an agent reads holds in explain, for random trees with symlinked CLAUDE.md, overrides, GEMINI.md and .agents/", async () => {
    await fc.assert(fc.asyncProperty(treeArb, check), { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) });
  }, 600_000);
});
