/**
 * The corpus (test/corpus: real public repositories' instruction-file layouts, synthetic bodies)
 * against the real OpenCode 1.18.33: from the root and the deepest recorded cwd of each
 * repository, with `instructions` globs over the whole tree in opencode.json, the instruction part
 * of OpenCode's system prompt and `agentsmd show --preset opencode` hold the same entries
 * (`Instructions from: <path>\n<text>`, each byte for byte; CLAUDE.md symlinks listed beside their
 * targets), the chain first and in the same order. The order of the listed files is compared only
 * as a set: OpenCode's glob reports a `**` match when its asynchronous directory read completes, so
 * across several directories its order is not fixed (one run gave docs/coco-rs/CLAUDE.md, depth 2,
 * before cocode-rs/retrieval/CLAUDE.md); agentsmd lists them breadth first.
 *
 * Run: npm run build && npx vitest run -c vitest.e2e.config.ts e2e/opencode/corpus
 */
import { describe, expect, it } from "vitest";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { loadCorpus, materialise } from "../../test/corpus/materialise.js";
import { familyFixtures } from "../lib/opencode-family.js";
import { OPENCODE_HOST, OPENCODE_VERSION } from "./harness.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { runStates } from "./system-prompt.js";

const newFixture = familyFixtures(OPENCODE_HOST, [assertAgentsmdBuilt]);

/** The `Instructions from:` entries of an instruction part, in order. */
function entries(part: string): string[] {
  return part === "" ? [] : part.split(/\n(?=Instructions from: )/);
}

const corpus = loadCorpus();
const INSTRUCTIONS = ["**/CLAUDE.md", "**/GEMINI.md", "**/AGENTS.override.md", ".agents/*.md"];

describe(`the corpus against OpenCode ${OPENCODE_VERSION}'s system prompt`, () => {
  for (const repo of corpus) {
    const cwds = [...new Set([".", repo.cwds.at(-1)!])];
    it(`${repo.repo}: ${cwds.join(", ")} with instructions ${INSTRUCTIONS.join(" ")}`, async () => {
      const fixture = await newFixture({ config: { instructions: INSTRUCTIONS } });
      materialise(repo, fixture.repo);
      let listed = 0;
      for (const cwd of cwds) {
        const { sent, shown } = (await runStates(fixture, cwd, [{ name: `${repo.name} ${cwd}`, files: {} }], {}))[0]!;
        // The chain alone: what agentsmd shows without OpenCode's configuration.
        const bare = await runAgentsmd(["show", "--preset", "opencode", "--cwd", fixture.path(cwd), "--home", fixture.home, "--no-agent-config"], {
          env: cleanEnv({ HOME: fixture.home, XDG_CONFIG_HOME: fixture.xdg.config, OPENCODE_DISABLE_CLAUDE_CODE: "1" }),
        });
        const chain = entries(bare.stdout.toString("utf8")).length;
        const [sentEntries, shownEntries] = [entries(sent), entries(shown)];
        expect(shownEntries.slice(0, chain), `${repo.name} ${cwd}: the chain, in order`).toEqual(sentEntries.slice(0, chain));
        expect([...shownEntries].sort(), `${repo.name} ${cwd}: every entry, byte for byte`).toEqual([...sentEntries].sort());
        expect(shown.length).toBe(sent.length);
        listed += sentEntries.length - chain;
      }
      expect(listed).toBeGreaterThan(0);
    }, 360_000);
  }
});
