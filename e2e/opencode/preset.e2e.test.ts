/**
 * Proof that `agentsmd show --preset opencode` prints, byte for byte, the instruction part of the
 * system prompt the real OpenCode 1.18.33 sends (pinned in package.json here; scripted model on
 * 127.0.0.1, see harness.ts).
 *
 * The instruction part is cut out of the system prompt by system-prompt.ts. OpenCode recomputes the instruction list from disk on every loop step, so one run covers several
 * trees: the scripted model answers each step with a `read` of a plain file in cwd, and before
 * answering it runs `agentsmd show` on the tree as it is (what that step's system prompt was built
 * from) and then rewrites the tree for the next step. Each step is one fixture.
 *
 * Run: npm run build && npm ci --prefix e2e/opencode && npx vitest run -c vitest.e2e.config.ts e2e/opencode/preset
 */
import { describe, it } from "vitest";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { familyFixtures } from "../lib/opencode-family.js";
import { OPENCODE_HOST, OPENCODE_VERSION } from "./harness.js";
import { check, familyStates, runStates, type State } from "./system-prompt.js";

const newFixture = familyFixtures(OPENCODE_HOST, [assertAgentsmdBuilt]);

describe(`preset opencode is byte-identical with the instructions in OpenCode ${OPENCODE_VERSION}'s system prompt`, () => {
  it("in a git repository, Claude Code compatibility on: the project name rule and both global files", async () => {
    const fixture = await newFixture({ files: { "pkg/sub/.keep": "" } });
    const states: State[] = [
      ...familyStates("opencode", [
        {
          name: "an empty AGENTS.md still suppresses every CLAUDE.md, and is itself dropped",
          files: { "repo/AGENTS.md": "" },
          hasNot: ["Instructions from:"],
        },
        {
          name: "a directory named AGENTS.md counts as a match too; a whitespace-only AGENTS.md is kept",
          files: { "repo/AGENTS.md": { dir: true }, "repo/pkg/sub/AGENTS.md": " \n\t\n" },
          has: ["Instructions from: "],
          hasNot: ["CC-"],
        },
      ]),
      {
        name: "an empty global AGENTS.md still wins over ~/.claude/CLAUDE.md, and is dropped",
        files: { "home/.config/opencode/AGENTS.md": "" },
        has: ["PKG-AG-5"],
        hasNot: ["GLOBAL-CC-2"],
      },
      {
        name: "so does a directory named ~/.config/opencode/AGENTS.md",
        files: { "home/.config/opencode/AGENTS.md": { dir: true } },
        has: ["PKG-AG-5"],
        hasNot: ["GLOBAL-CC-2"],
      },
      {
        name: "text as read: a BOM, invalid UTF-8, CRLF, no trimming",
        files: {
          "home/.config/opencode/AGENTS.md": null,
          "repo/pkg/AGENTS.md": Uint8Array.from([0xef, 0xbb, 0xbf, 0x42, 0x4f, 0x4d, 0x0d, 0x0a, 0xff, 0x58, 0xe2, 0x82, 0x0a, 0x20, 0x0a]),
        },
        has: ["GLOBAL-CC-2", "BOM"],
      },
    ];
    // "0": OpenCode rejects an empty value for its boolean flags.
    check(await runStates(fixture, "pkg/sub", states, { OPENCODE_DISABLE_CLAUDE_CODE: "0" }));
  });

  it("Claude Code compatibility off (OPENCODE_DISABLE_CLAUDE_CODE=yes): no CLAUDE.md anywhere, not even ~/.claude/CLAUDE.md", async () => {
    const fixture = await newFixture({ files: { "pkg/.keep": "" } });
    const states: State[] = [
      {
        name: "CLAUDE.md files are ignored; CONTEXT.md is used",
        files: { "repo/CLAUDE.md": "ROOT-CC-X\n", "repo/pkg/CONTEXT.md": "PKG-CTX-1\n", "home/.claude/CLAUDE.md": "GLOBAL-CC-X\n" },
        has: ["PKG-CTX-1"],
        hasNot: ["CC-X"],
      },
    ];
    check(await runStates(fixture, "pkg", states, { OPENCODE_DISABLE_CLAUDE_CODE: "yes" }));
  });

  it("outside a git repository the walk goes up to / (the directory above the repo too)", async () => {
    const fixture = await newFixture({ git: false, files: { "app/.keep": "" } });
    const states: State[] = [
      {
        name: "no worktree: AGENTS.md from cwd up to the file-system root",
        files: { "AGENTS.md": "ABOVE-AG-1\n", "repo/AGENTS.md": "REPO-AG-2\n", "repo/app/AGENTS.md": "APP-AG-3\n" },
        has: ["ABOVE-AG-1", "REPO-AG-2", "APP-AG-3"],
      },
    ];
    check(await runStates(fixture, "app", states, { OPENCODE_DISABLE_CLAUDE_CODE: "1" }));
  });
});
