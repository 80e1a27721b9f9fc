/**
 * Security (docs/security.md), property test (fast-check): a touch of many targets walks each directory once
 * (session/scope.ts `Walked`) and still delivers exactly what touching the targets one at a time
 * delivers, in the same order, for every preset: random trees of AGENTS.md, CLAUDE.md, GEMINI.md,
 * QWEN.md and `.claude/CLAUDE.md` over nested and excluded directories, hard links and symlinks
 * (identity dedupe along a chain, Gemini and Qwen), targets that are files, directories or
 * missing, sessions started at the root or below it (OpenCode's below-cwd scope).
 *
 * `npm test` runs a few cases; `npm run fuzz` runs FUZZ_RUNS.
 */
import fc from "fast-check";
import { link, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { createSession } from "../../src/session/session.js";
import { presetNames } from "../../src/presets/table.js";
import { createTree, makeSymlink } from "../helpers/tree.js";

const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 12) / 2));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const DIRS = ["", "a", "a/b", "a/b/c", "a/node_modules", "a/node_modules/m", "d", "d/dist", "d/dist/e", "d/f/g"] as const;
const NAMES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md", "QWEN.md", ".claude/CLAUDE.md"] as const;

const fileArb = fc.constantFrom("none", "none", "text", "blank", "hardlink", "symlink");
const layoutArb = fc.record({
  files: fc.array(fc.tuple(fc.nat(DIRS.length - 1), fc.nat(NAMES.length - 1), fileArb), { maxLength: 14 }),
  cwd: fc.constantFrom("", "", "a", "d"),
  targets: fc.array(fc.tuple(fc.nat(DIRS.length - 1), fc.constantFrom("dir", "file", "missing")), { minLength: 2, maxLength: 8 }),
});

describe("touch of many targets", () => {
  it("delivers what touching them one at a time delivers, in the same order (every preset)", async () => {
    await fc.assert(
      fc.asyncProperty(layoutArb, async (layout) => {
        const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "the root's rules\n", "r/src.ts": "" });
        try {
          for (const dir of DIRS) await tree.add({ [`r/${dir}/x.ts`]: "" });
          for (const [dirAt, nameAt, kind] of layout.files) {
            const rel = `r/${DIRS[dirAt]}/${NAMES[nameAt]}`.replace("//", "/");
            if (kind === "none" || (rel === "r/AGENTS.md" && (kind === "hardlink" || kind === "symlink"))) continue;
            await tree.remove(rel).catch(() => undefined);
            await mkdir(dirname(tree.path(rel)), { recursive: true });
            if (kind === "text") await tree.write(rel, `rules of ${rel}\n`);
            if (kind === "blank") await tree.write(rel, "\n");
            // Another name for the root's AGENTS.md: one identity on several chains.
            if (kind === "hardlink") await link(tree.path("r/AGENTS.md"), tree.path(rel));
            if (kind === "symlink") await makeSymlink(tree, rel, tree.path("r/AGENTS.md"));
          }
          const targets = layout.targets.map(([dirAt, kind]) => {
            const dir = tree.path(`r/${DIRS[dirAt]}`).replace(/\/$/, "");
            return kind === "dir" ? dir : kind === "file" ? `${dir}/x.ts` : `${dir}/missing/y.ts`;
          });
          const cwd = tree.path(`r/${layout.cwd}`).replace(/\/$/, "");
          for (const preset of presetNames()) {
            const options = { cwd, preset, home: tree.home, env: {} };
            const together = await createSession(options);
            const apart = await createSession(options);
            try {
              const all = (await together.touch(targets, { admit: false })).map((block) => block.path);
              const each: string[] = [];
              for (const target of targets) for (const block of await apart.touch([target], { admit: false })) each.push(block.path);
              expect(all, `${preset}: ${targets.join(" ")}`).toEqual(each);
            } finally {
              await together.close();
              await apart.close();
            }
          }
        } finally {
          await tree.cleanup();
        }
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 240_000);
});
