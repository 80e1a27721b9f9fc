/**
 * Proof that `agentsmd show --preset kilo` prints, byte for byte, the instruction part of the
 * system prompt the real Kilo Code CLI 7.7.7 sends (pinned in package.json here; scripted model on
 * 127.0.0.1, see harness.ts).
 *
 * The instruction part. Kilo builds its system prompt as one string, `[providerPrompt,
 * ...environment, board?, ...instructions, ...mcp, skills].join("\n")`: the instruction entries
 * (`Instructions from: <abs path>\n<text>`, global first, then the project nearest first) follow
 * the environment entry (ending `</env>`) and, when the agent has the board tools, the board
 * entry (ending with its fixed last sentence), and precede the skills entry (`Skills provide
 * specialized instructions`). {@link instructionPart} cuts exactly that; with no instruction file
 * the part is "".
 *
 * Kilo recomputes the instruction list from disk on every loop step, so one run covers several
 * trees (e2e/opencode/system-prompt.ts, shared with OpenCode's proof): each step is one fixture.
 *
 * Run: npm run build && npm ci --prefix e2e/kilo && npx vitest run -c vitest.e2e.config.ts e2e/kilo/preset
 */
import { describe, expect, it } from "vitest";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { check, familyStates, runStates, type State as PromptState, type StepResult } from "../opencode/system-prompt.js";
import { familyFixtures } from "../lib/opencode-family.js";
import { kiloEnv, KILO_HOST, KILO_VERSION, type KiloFixture } from "./harness.js";

const newFixture = familyFixtures(KILO_HOST, [assertAgentsmdBuilt]);

const ENV_END = "</env>\n";
const BOARD_END = "Do not resume workers just to deliver a note or obtain a read receipt.\n";
const SKILLS_START = "\nSkills provide specialized instructions";

/** The instruction entries of a Kilo system prompt (see the module comment). */
function instructionPart(system: string): string {
  const envEnd = system.indexOf(ENV_END);
  expect(envEnd, "system prompt without </env>").toBeGreaterThan(0);
  expect(system.indexOf(ENV_END, envEnd + 1), "</env> twice").toBe(-1);
  let start = envEnd + ENV_END.length;
  const board = system.indexOf(BOARD_END, start);
  if (board >= 0) start = board + BOARD_END.length;
  const end = system.indexOf(SKILLS_START, start - 1);
  expect(end, "system prompt without the skills entry after the instructions").toBeGreaterThanOrEqual(start - 1);
  expect(system.indexOf(SKILLS_START, end + 1), "skills entry twice").toBe(-1);
  const part = end < start ? "" : system.slice(start, end);
  if (part !== "") expect(part.startsWith("Instructions from: "), `unexpected entry before the instructions: ${part.slice(0, 200)}`).toBe(true);
  return part;
}

/** One `kilo run` in `cwd` (relative to the repo) going through `states`; `agentsmd show` gets Kilo's environment. */
function runKiloStates(fx: KiloFixture, cwd: string, states: PromptState[], env: Record<string, string>): Promise<StepResult[]> {
  return runStates(fx, cwd, states, env, { preset: "kilo", showEnv: kiloEnv(fx.home, fx.xdg, env), instructionPart, timeoutMs: 420_000 });
}

describe(`preset kilo is byte-identical with the instructions in Kilo ${KILO_VERSION}'s system prompt`, () => {
  it("in a git repository, Claude Code compatibility on: names, global files, the migration handoff", async () => {
    const fixture = await newFixture({ files: { "pkg/sub/.keep": "" } });
    const states: PromptState[] = [
      ...familyStates("kilo"),
      {
        name: "after Kilo's Claude Code migration (its receipt in the state dir) ~/.claude/CLAUDE.md is not read",
        files: { "home/.local/state/kilo/claude-migration.json": "{}\n" },
        has: ["PKG-AG-5"],
        hasNot: ["GLOBAL-CC-2"],
      },
    ];
    // "0": Kilo rejects an empty value for its boolean flags.
    check(await runKiloStates(fixture, "pkg/sub", states, { KILO_DISABLE_CLAUDE_CODE: "0" }));
  }, 480_000);

  it("{file:} and {env:} in project files and in the global file; text as read", async () => {
    const fixture = await newFixture({ files: { "pkg/sub/.keep": "" } });
    const states: PromptState[] = [
      {
        name: "{file:} inlined (trimmed) inside the project; missing gives nothing; comments and ${file:} stay",
        files: {
          "home/.claude/CLAUDE.md": "GLOBAL-CC-2\n",
          "repo/docs/style.md": "\n  STYLE-TEXT-1  \n\n",
          "repo/pkg/AGENTS.md":
            "PKG-AG-6 {file:../docs/style.md} end\nmissing:[{file:./nope.md}]\n// {file:../docs/style.md}\n  // {env:HOME} in a comment\nkeep ${file:../docs/style.md} and ${env:HOME}\n",
        },
        has: ["PKG-AG-6 STYLE-TEXT-1 end", "missing:[]", "// {file:../docs/style.md}", "keep ${file:"],
      },
      {
        name: "{env:} in a project file drops that file; {file:} outside the worktree drops it too",
        files: {
          "repo/pkg/AGENTS.md": "PKG-AG-7 {env:HOME}\n",
          "repo/CONTEXT.md": null,
          "repo/pkg/sub/CONTEXT.md": null,
          "repo/AGENTS.md": "ROOT-AG-8 {file:~/.claude/CLAUDE.md}\n",
          "repo/pkg/sub/AGENTS.md": "SUB-AG-9\n",
        },
        has: ["SUB-AG-9", "GLOBAL-CC-2"],
        hasNot: ["PKG-AG-7", "ROOT-AG-8"],
      },
      {
        name: "the global file: {env:} substituted, {file:} from anywhere",
        files: {
          "repo/pkg/AGENTS.md": null,
          "repo/AGENTS.md": "ROOT-AG-10\n",
          "home/.claude/CLAUDE.md": "GLOBAL-CC-3 [{env:KILO_PROOF_VALUE}] [{env:KILO_PROOF_UNSET}] [{file:../outside.md}]\n",
          "home/outside.md": "OUTSIDE-TEXT\n",
        },
        has: ["GLOBAL-CC-3 [proof value] [] [OUTSIDE-TEXT]", "ROOT-AG-10"],
      },
      {
        name: "text as read: a BOM, invalid UTF-8, CRLF, no trimming",
        files: {
          "repo/pkg/sub/AGENTS.md": Uint8Array.from([0xef, 0xbb, 0xbf, 0x42, 0x4f, 0x4d, 0x0d, 0x0a, 0xff, 0x58, 0xe2, 0x82, 0x0a, 0x20, 0x0a]),
        },
        has: ["BOM"],
      },
    ];
    // "0": Kilo rejects an empty value for its boolean flags.
    check(await runKiloStates(fixture, "pkg/sub", states, { KILO_DISABLE_CLAUDE_CODE: "0", KILO_PROOF_VALUE: "proof value" }));
  }, 480_000);

  it("KILO_CONFIG_DIR and KILO_DISABLE_CLAUDE_CODE=yes: $KILO_CONFIG_DIR/AGENTS.md is the global file, no CLAUDE.md anywhere", async () => {
    const fixture = await newFixture({ files: { "pkg/.keep": "" } });
    const env = { KILO_DISABLE_CLAUDE_CODE: "yes", KILO_CONFIG_DIR: `${fixture.base}/kilo-config` };
    const states: PromptState[] = [
      {
        name: "$KILO_CONFIG_DIR/AGENTS.md first; CLAUDE.md files ignored; CONTEXT.md used",
        files: {
          "kilo-config/AGENTS.md": "CONFIG-DIR-AG-1\n",
          "home/.config/kilo/AGENTS.md": "XDG-AG-X\n",
          "repo/CLAUDE.md": "ROOT-CC-X\n",
          "repo/pkg/CONTEXT.md": "PKG-CTX-1\n",
          "home/.claude/CLAUDE.md": "GLOBAL-CC-X\n",
        },
        has: ["CONFIG-DIR-AG-1", "PKG-CTX-1"],
        hasNot: ["CC-X", "XDG-AG-X"],
      },
      {
        name: "without $KILO_CONFIG_DIR/AGENTS.md",
        files: { "kilo-config/AGENTS.md": null },
        has: ["PKG-CTX-1"],
        hasNot: ["CONFIG-DIR"],
      },
    ];
    check(await runKiloStates(fixture, "pkg", states, env));
  }, 480_000);

  it("config instructions: legacy rule files, the global config, KILO_CONFIG, kilo.json(c) then opencode.json(c), .kilocode/.kilo, KILO_CONFIG_CONTENT, the managed dir; the file scope", async () => {
    const options = { config: {} as Record<string, unknown>, files: { "pkg/sub/.keep": "" } };
    const fixture = await newFixture(options);
    const base = fixture.base;
    options.config = { instructions: ["root-kilo.md", "docs/*.md", `${base}/shared/*.md`, "AGENTS.md", "http://127.0.0.1:9/unreachable.md"] };
    const json = (instructions: string[]) => JSON.stringify({ $schema: "https://app.kilo.ai/config.json", instructions });
    const states: PromptState[] = [
      {
        name: "every layer, in Kilo's order; a listed project file keeps its place",
        files: {
          "home/.kilo/rules/h1.md": "HOME-RULE-1\n",
          "home/.kilocode/rules/h1.md": "HOME-RULE-DUP-X\n",
          "home/.kilocode/rules/h2.md": "HOME-RULE-2\n",
          "repo/pkg/sub/.kilo/rules/r1.md": "CWD-RULE-1\n",
          "repo/pkg/sub/.kilocoderules": "LEGACY-RULES\n",
          "home/.config/kilo/kilo.json": json(["global-a.md"]),
          "home/.config/kilo/opencode.jsonc": '// the last global file with a list wins\n{ "instructions": ["global-b.md",], }\n',
          "custom.json": json(["custom.md", `${base}/shared2/*.md`]),
          "repo/opencode.json": json(["root-opencode.md"]),
          "repo/pkg/kilo.jsonc": json(["pkg-kilo.md"]),
          "repo/.kilo/kilo.json": json(["dot-kilo.md"]),
          "repo/pkg/.kilocode/kilo.json": json(["dot-kilocode.md"]),
          "managed/kilo.json": json(["managed.md"]),
          "repo/AGENTS.md": "ROOT-AG\n",
          "repo/global-a.md": "GLOBAL-A-X\n",
          "repo/global-b.md": "GLOBAL-B\n",
          "repo/custom.md": "CUSTOM\n",
          "repo/root-kilo.md": "ROOT-KILO [{file:./docs/a.md}]\n",
          "repo/docs/a.md": "DOC-A\n",
          "repo/docs/b.md": "DOC-B\n",
          "shared/s.md": "OUTSIDE-UNTRUSTED-X\n",
          "shared2/t.md": "OUTSIDE-TRUSTED\n",
          "repo/root-opencode.md": "ROOT-OPENCODE\n",
          "repo/pkg/pkg-kilo.md": "PKG-KILO\n",
          "repo/dot-kilo.md": "DOT-KILO\n",
          "repo/pkg/dot-kilocode.md": "DOT-KILOCODE\n",
          "repo/content.md": "CONTENT\n",
          "repo/managed.md": "MANAGED\n",
        },
        has: [
          "HOME-RULE-1",
          "HOME-RULE-2",
          "CWD-RULE-1",
          "LEGACY-RULES",
          "GLOBAL-B",
          "CUSTOM",
          "ROOT-KILO [DOC-A]",
          "DOC-B",
          "OUTSIDE-TRUSTED",
          "ROOT-OPENCODE",
        ],
        // An absolute entry of the project's kilo.json outside the project: Kilo's file scope drops it.
        hasNot: ["GLOBAL-A-X", "HOME-RULE-DUP-X", "OUTSIDE-UNTRUSTED-X"],
      },
      {
        name: "the globs again at the next step",
        files: { "repo/docs/c.md": "DOC-C\n", "repo/root-kilo.md": null, "repo/pkg/sub/.kilocoderules": null },
        has: ["DOC-C", "PKG-KILO", "DOT-KILO", "DOT-KILOCODE", "CONTENT", "MANAGED"],
        hasNot: ["ROOT-KILO", "LEGACY-RULES"],
      },
    ];
    const env = {
      KILO_CONFIG: `${base}/custom.json`,
      KILO_CONFIG_CONTENT: json(["content.md"]),
      KILO_TEST_MANAGED_CONFIG_DIR: `${base}/managed`,
    };
    const steps = await runKiloStates(fixture, "pkg/sub", states, env);
    check(steps);
    // Each file once, the chain first.
    const sent = steps[0]!.sent;
    expect(sent.startsWith(`Instructions from: ${fixture.path("AGENTS.md")}\n`)).toBe(true);
    expect(sent.split("Instructions from: ").length - 1).toBe(new Set(sent.match(/Instructions from: .*/g)).size);
  }, 480_000);

  it("KILO_DISABLE_PROJECT_CONFIG=1 outside a git repository: the global file only", async () => {
    const fixture = await newFixture({ git: false, files: { "app/.keep": "" } });
    const states: PromptState[] = [
      {
        name: "no project files, the global file stays",
        files: { "repo/AGENTS.md": "REPO-AG-X\n", "repo/app/AGENTS.md": "APP-AG-X\n", "home/.config/kilo/AGENTS.md": "GLOBAL-AG-2\n" },
        has: ["GLOBAL-AG-2"],
        hasNot: ["AG-X"],
      },
    ];
    // The project's kilo.json is project config too: KILO_CONFIG names it as an extra config file.
    check(await runKiloStates(fixture, "app", states, { KILO_DISABLE_PROJECT_CONFIG: "1", KILO_CONFIG: fixture.path("kilo.json") }));
  }, 480_000);
});
