/**
 * The instruction part of OpenCode's system prompt, and runs that compare it with
 * `agentsmd show --preset opencode` step by step (used by preset.e2e.test.ts, instructions.e2e.test.ts
 * and the corpus suite; e2e/kilo/preset.e2e.test.ts runs Kilo Code, OpenCode's fork, through the
 * same steps with its own preset, environment and cut).
 *
 * OpenCode builds its system prompt as one string,
 * `[providerPrompt, ...environment, ...instructions, ...skills].join("\n")`, so the instruction
 * entries (`Instructions from: <abs path>\n<content>`: global first, the project nearest first,
 * then the files config `instructions` lists) sit between the environment entry, which ends with
 * `</env>`, and the skills entry, which starts with `Skills provide specialized instructions`,
 * each joined by one `\n`:
 *   `…</env>\n` + INSTRUCTIONS + `\nSkills provide specialized instructions…`
 * {@link instructionPart} cuts exactly that (and asserts each marker occurs once); with no
 * instruction file the two entries are adjacent and the part is "".
 *
 * OpenCode recomputes the instruction list from disk on every loop step (config instructions and
 * their globs included; the config itself is read once per run), so one run covers several trees:
 * the scripted model answers each step with a `read` of a plain file in cwd, and before answering
 * it runs `agentsmd show` on the tree as it is and then rewrites the tree for the next step.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { runAgentsmd } from "../lib/agentsmd.js";
import { cleanEnv } from "../lib/exec.js";
import { systemTexts, type ScriptStep } from "../lib/openai-chat-server.js";
import type { OpenCodeFixture } from "./harness.js";

const ENV_END = "</env>\n";
const SKILLS_START = "\nSkills provide specialized instructions";

/** The instruction entries of an OpenCode system prompt (see the module comment). */
function instructionPart(system: string): string {
  const envEnd = system.indexOf(ENV_END);
  expect(envEnd, "system prompt without </env>").toBeGreaterThan(0);
  expect(system.indexOf(ENV_END, envEnd + 1), "</env> twice").toBe(-1);
  const start = envEnd + ENV_END.length;
  const end = system.indexOf(SKILLS_START, start - 1);
  expect(end, "system prompt without the skills entry after </env>").toBeGreaterThanOrEqual(start - 1);
  expect(system.indexOf(SKILLS_START, end + 1), "skills entry twice").toBe(-1);
  return end < start ? "" : system.slice(start, end);
}

export interface State {
  name: string;
  /** Files to write (text) or remove (null), paths relative to the fixture base (`repo/…`, `home/…`). */
  files: Record<string, string | Uint8Array | null | { dir: true }>;
  /** Substrings the instruction part must hold, and must not hold. */
  has?: string[];
  hasNot?: string[];
}

/**
 * The trees of the family's name rule and global files, which both preset proofs walk (Kilo runs
 * OpenCode's algorithm): an AGENTS.md chain, CLAUDE.md only, a root AGENTS.md hiding every
 * CLAUDE.md, `between` (a suite's own trees), CONTEXT.md only, then the global
 * `~/.config/<cli>/AGENTS.md` before `~/.claude/CLAUDE.md`, and the latter alone. Run from
 * `pkg/sub` with Claude Code compatibility on.
 * @example const states = [...familyStates("kilo"), { name: "after the migration", files: {...} }];
 */
export function familyStates(cli: string, between: State[] = []): State[] {
  return [
    {
      name: "AGENTS.md chain, nearest first; a CLAUDE.md beside it and a file below cwd are not loaded",
      files: {
        "repo/AGENTS.md": "# Root\nROOT-AG-1\n",
        "repo/pkg/AGENTS.md": "  PKG-AG-2  \n\n\n",
        "repo/pkg/sub/AGENTS.md": "SUB-AG-3",
        "repo/pkg/CLAUDE.md": "PKG-CC-X\n",
        "repo/pkg/sub/deeper/AGENTS.md": "DEEPER-X\n",
      },
      has: ["ROOT-AG-1", "PKG-AG-2", "SUB-AG-3"],
      hasNot: ["PKG-CC-X", "DEEPER-X"],
    },
    {
      name: "CLAUDE.md only",
      files: {
        "repo/AGENTS.md": null,
        "repo/pkg/AGENTS.md": null,
        "repo/pkg/sub/AGENTS.md": null,
        "repo/CLAUDE.md": "ROOT-CC-1\n",
        "repo/pkg/sub/CLAUDE.md": "SUB-CC-2\n",
      },
      has: ["ROOT-CC-1", "PKG-CC-X", "SUB-CC-2"],
    },
    {
      name: "one AGENTS.md at the root suppresses every CLAUDE.md",
      files: { "repo/AGENTS.md": "ROOT-AG-4\n" },
      has: ["ROOT-AG-4"],
      hasNot: ["CC-"],
    },
    ...between,
    {
      name: "CONTEXT.md only",
      files: {
        "repo/AGENTS.md": null,
        "repo/pkg/sub/AGENTS.md": null,
        "repo/CLAUDE.md": null,
        "repo/pkg/CLAUDE.md": null,
        "repo/pkg/sub/CLAUDE.md": null,
        "repo/CONTEXT.md": "ROOT-CTX-1\n",
        "repo/pkg/sub/CONTEXT.md": "SUB-CTX-2\n",
      },
      has: ["ROOT-CTX-1", "SUB-CTX-2"],
    },
    {
      name: `global ~/.config/${cli}/AGENTS.md first; ~/.claude/CLAUDE.md then unused`,
      files: { [`home/.config/${cli}/AGENTS.md`]: "GLOBAL-AG-1\n", "home/.claude/CLAUDE.md": "GLOBAL-CC-X\n", "repo/pkg/AGENTS.md": "PKG-AG-5\n" },
      has: ["GLOBAL-AG-1", "PKG-AG-5"],
      hasNot: ["GLOBAL-CC-X", "CTX"],
    },
    {
      name: "~/.claude/CLAUDE.md when there is no global AGENTS.md",
      files: { [`home/.config/${cli}/AGENTS.md`]: null, "home/.claude/CLAUDE.md": "GLOBAL-CC-2\n" },
      has: ["GLOBAL-CC-2", "PKG-AG-5"],
    },
  ];
}

async function apply(base: string, files: State["files"]): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(base, rel);
    await rm(file, { recursive: true, force: true });
    if (content === null) continue;
    const isFile = typeof content === "string" || content instanceof Uint8Array;
    await mkdir(isFile ? path.dirname(file) : file, { recursive: true });
    if (isFile) await writeFile(file, content);
  }
}

/** Removes every path any state writes (to replay the states from the start). */
export async function reset(base: string, states: readonly State[]): Promise<void> {
  for (const state of states) for (const rel of Object.keys(state.files)) await rm(path.join(base, rel), { recursive: true, force: true });
}

export interface StepResult {
  state: State;
  /** The instruction part OpenCode sent. */
  sent: string;
  /** `agentsmd show --preset opencode` on the same tree. */
  shown: string;
  /** The same with `--no-agent-config` (when asked for). */
  shownWithout?: string;
}

export interface RunStatesOptions {
  /** Also run `agentsmd show --no-agent-config` at each step. */
  withoutAgentConfig?: boolean;
  /** `agentsmd show --preset <preset>`. @default "opencode" */
  preset?: string;
  /** The whole environment of `agentsmd show`. @default the process's, OpenCode's switches cleared, then `env` */
  showEnv?: NodeJS.ProcessEnv;
  /** Cuts the instruction part out of a system prompt. @default {@link instructionPart} */
  instructionPart?(system: string): string;
  /** Kill the CLI after this long. @default 120 s */
  timeoutMs?: number;
}

/**
 * One `opencode run` (or another CLI of the family, by the fixture) in `cwd` (relative to the
 * repo) going through `states`: per step, agentsmd show on the current tree, then the next state.
 * `env` goes to both programs.
 */
export async function runStates(
  fx: OpenCodeFixture,
  cwd: string,
  states: State[],
  env: Record<string, string>,
  options: RunStatesOptions = {},
): Promise<StepResult[]> {
  const shown: string[] = [];
  const without: string[] = [];
  const notes = fx.path(path.join(cwd, "notes.txt"));
  await mkdir(path.dirname(notes), { recursive: true });
  await writeFile(notes, "notes\n");
  const agentsmdEnv =
    options.showEnv ??
    cleanEnv({
      HOME: fx.home,
      XDG_CONFIG_HOME: fx.xdg.config,
      OPENCODE_DISABLE_CLAUDE_CODE: "1",
      OPENCODE_DISABLE_CLAUDE_CODE_PROMPT: undefined,
      OPENCODE_DISABLE_PROJECT_CONFIG: undefined,
      OPENCODE_CONFIG: undefined,
      OPENCODE_CONFIG_DIR: undefined,
      OPENCODE_CONFIG_CONTENT: undefined,
      ...env,
    });
  const show = async (extra: string[]) => {
    const r = await runAgentsmd(["show", "--preset", options.preset ?? "opencode", "--cwd", fx.path(cwd), "--home", fx.home, ...extra], { env: agentsmdEnv });
    expect(r.code, r.stderr.toString()).toBe(0);
    return r.stdout.toString("utf8");
  };
  await apply(fx.base, states[0]!.files);
  const script: ScriptStep[] = states.map((_, index) => async () => {
    shown.push(await show([]));
    if (options.withoutAgentConfig) without.push(await show(["--no-agent-config"]));
    const next = states[index + 1];
    if (!next) return { text: "done" };
    await apply(fx.base, next.files);
    return { toolCalls: [{ tool: "read", args: { filePath: notes } }] };
  });
  const run = await fx.run({ prompt: "go", cwd, script, env, timeoutMs: options.timeoutMs ?? 120_000 });
  expect(run.timedOut, "the CLI timed out").toBe(false);
  expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
  expect(run.serverErrors).toEqual([]);
  expect(run.turnsLeft).toBe(0);
  expect(run.mainRequests).toHaveLength(states.length);
  return states.map((state, index) => {
    const systems = systemTexts(run.mainRequests[index]!.body!);
    expect(systems, `${state.name}: one system message`).toHaveLength(1);
    return {
      state,
      sent: (options.instructionPart ?? instructionPart)(systems[0]!),
      shown: shown[index]!,
      ...(options.withoutAgentConfig ? { shownWithout: without[index]! } : {}),
    };
  });
}

export function check(results: StepResult[]): void {
  for (const { state, sent, shown } of results) {
    for (const token of state.has ?? []) expect(sent, `${state.name}: OpenCode sent ${token}`).toContain(token);
    for (const token of state.hasNot ?? []) expect(sent, `${state.name}: OpenCode did not send ${token}`).not.toContain(token);
    expect(shown, `${state.name}: agentsmd show = OpenCode's instruction part`).toBe(sent);
  }
}
