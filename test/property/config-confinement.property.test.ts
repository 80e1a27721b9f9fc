/**
 * Property (core/confine.ts): no random tree of a repository's agent configs (OpenCode's and
 * Kilo's `instructions`, Gemini CLI's `context.fileName`, `{env:}` and `{file:}`), instruction
 * files with imports, rule files and symlinks makes a file outside the project (a marker in a
 * secret beside it and one in the home) or a value of the environment (a marker in a variable)
 * reach any output: show, list --json, explain, touch, for every preset that reads such configs.
 * The project sits two levels below the tree (p/r), so Qwen Code's root (the directory above the
 * marker) holds neither the secret nor the home. `npm test` runs a few cases; `npm run fuzz` runs FUZZ_RUNS.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { rm } from "node:fs/promises";
import { createTree, makeSymlink, runCli } from "../helpers/tree.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const OUTSIDE = "OUTSIDE-MARK-7f3a";
const HOME = "HOME-MARK-91c2";
const ENV_VALUE = "ENV-MARK-5d0e";
const MARKERS = [OUTSIDE, HOME, ENV_VALUE];

/** What a repository's config may list: home, environment, absolute, `..`, through a link, globs climbing out, honest ones. */
const ENTRIES = [
  "~/secret.md",
  "~/.gemini/secret.md",
  "{env:SECRET_ENV}",
  "{env:HOME}/secret.md",
  "@OUTSIDE@/secret.md",
  "../../outside/secret.md",
  "../../outside/*.md",
  "link/secret.md",
  "link/*",
  "docs/**/*.md",
  "docs/*.md",
  "AGENTS.md",
];
/** Gemini CLI file names a workspace may set. */
const FILE_NAMES = ["secret.md", "settings.json", "AGENTS.md", "GEMINI.md", "docs.md"];
/** Instruction-file bodies: imports and Kilo's variables reaching out, plain text. */
const BODIES = [
  "plain rules",
  "@../../outside/secret.md",
  "@~/secret.md",
  "@link/secret.md",
  "{file:../../outside/secret.md}",
  "{file:~/secret.md}",
  "{env:SECRET_ENV}",
  "@@OUTSIDE@/secret.md",
];
/** Symlinks the repository may hold. */
const LINKS = [
  "p/r/link -> outside",
  "p/r/AGENTS.md -> outside/secret.md",
  "p/r/docs/x.md -> home/secret.md",
  "p/r/sub/GEMINI.md -> home/secret.md",
  "p/r/.cursor/rules/a.mdc -> outside/secret.md",
  "p/r/.github/instructions/a.instructions.md -> home/secret.md",
];

const PRESETS = ["opencode", "kilo", "gemini", "claude", "codelia", "qwen", "pi"];

const treeArbitrary = fc.record({
  git: fc.boolean(),
  sub: fc.boolean(),
  opencode: fc.subarray(ENTRIES),
  kilo: fc.subarray(ENTRIES),
  dotOpencode: fc.subarray(ENTRIES),
  fileNames: fc.subarray(FILE_NAMES, { minLength: 1 }),
  bodies: fc.array(fc.constantFrom(...BODIES), { minLength: 1, maxLength: 4 }),
  links: fc.subarray(LINKS),
  configAbove: fc.boolean(),
});

describe("property: a repository's configs, files and links never carry an outside file or an environment value to any output", () => {
  it("no random tree of configs, imports, rule files and symlinks leaks a marker (show, list, explain, touch; 7 presets)", async () => {
    await fc.assert(
      fc.asyncProperty(treeArbitrary, async (shape) => {
        const tree = await createTree({
          "outside/secret.md": `${OUTSIDE}\n`,
          ".test-home/secret.md": `${HOME}\n`,
          ".test-home/.gemini/secret.md": `${HOME}\n`,
          ".test-home/.gemini/settings.json": `{"x":"${HOME}"}\n`,
          "p/r/docs/ok.md": "DOCS\n",
          "p/r/sub/x.ts": "x\n",
          "p/r/x.ts": "x\n",
        });
        try {
          const place = (text: string) => text.replaceAll("@OUTSIDE@", tree.path("outside"));
          const list = (entries: string[]) => JSON.stringify({ instructions: entries.map(place) });
          if (shape.git) await tree.add({ "p/r/.git/": null });
          // Without .git a config above the project is the repository's too (a downloaded archive).
          const at = shape.configAbove && !shape.git ? "p/" : "p/r/";
          await tree.add({
            [`${at}opencode.json`]: list(shape.opencode),
            [`${at}kilo.json`]: list(shape.kilo),
            [`${at}.opencode/opencode.json`]: list(shape.dotOpencode),
            "p/r/.gemini/settings.json": JSON.stringify({ context: { fileName: shape.fileNames } }),
          });
          const body = place(shape.bodies.join("\n"));
          for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md", "QWEN.md", "docs.md"])
            await tree.add({ [`p/r/${name}`]: `${body}\n`, [`p/r/sub/${name}`]: `${body}\n` });
          await tree.add({ "p/r/.cursor/rules/b.mdc": `---\nalwaysApply: true\n---\n${body}\n`, ".test-home/.keep": "" });
          for (const link of shape.links) {
            const [from, to] = link.split(" -> ") as [string, string];
            await rm(tree.path(from), { force: true, recursive: true });
            await makeSymlink(tree, from, tree.path(to.replace(/^home/, ".test-home")));
          }
          const cwd = tree.path(shape.sub ? "p/r/sub" : "p/r");
          const env = { SECRET_ENV: ENV_VALUE, HOME: tree.home };
          for (const preset of PRESETS) {
            const base = ["--home", tree.home, "--cwd", cwd, "--preset", preset];
            const runs = [
              await runCli([...base, "show"], { env }),
              await runCli([...base, "--json", "list"], { env }),
              await runCli([...base, "explain", `${cwd}/x.ts`], { env }),
              await runCli([...base, "touch", tree.path("p/r/sub/x.ts"), tree.path("p/r/docs/ok.md"), "--state", tree.path(`s-${preset}.json`)], { env }),
            ];
            const text = runs.map((run) => run.stdout + run.stderr).join("\n");
            for (const marker of MARKERS)
              expect(text.includes(marker), `${preset} gave ${marker} for ${JSON.stringify(shape)}:\n${text.slice(0, 4000)}`).toBe(false);
          }
        } finally {
          await tree.cleanup();
        }
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 600_000);
});
