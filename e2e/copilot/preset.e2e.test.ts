/**
 * Preset `copilot` against the real GitHub Copilot CLI (pinned in package.json here): what
 * `agentsmd show --preset copilot` prints must be, byte for byte, the run of
 * `<custom_instruction>` blocks in Copilot's system message; `agentsmd list` must name the files
 * `copilot instruction list --json` names; and `touch` must render the nested files exactly as the
 * user message Copilot adds after a `view` below them. Scripted model on 127.0.0.1, BYOK offline.
 *
 * Needs `npm run build` and `npm ci --prefix e2e/copilot`.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { messageText } from "../lib/openai-chat-server.js";
import { runAgentsmd } from "../lib/agentsmd.js";
import {
  createCopilotFixture,
  customInstructionSection,
  describeRun,
  instructionList,
  runCopilot,
  startCopilotServer,
  useCopilotSuite,
  type CopilotFixture,
} from "./harness.js";

const cleanups = useCopilotSuite();

async function agentsmd(fx: CopilotFixture, args: string[]): Promise<string> {
  const r = await runAgentsmd(["--preset", "copilot", "--home", fx.home, ...args], { env: { PATH: process.env.PATH ?? "", HOME: fx.home } });
  expect(r.code, r.stderr.toString()).toBe(0);
  return r.stdout.toString("utf8");
}

/** Trees with every rule the preset models: chain, names, the repository file, order, equal texts, empty files. */
const TREES: Array<{ name: string; files: Record<string, string>; user?: string; cwd: string }> = [
  {
    name: "root and cwd files, a directory between, equal texts once, an empty file kept, a user file",
    files: {
      "AGENTS.md": "ROOT\n",
      "CLAUDE.md": "ROOT\n",
      "GEMINI.md": "ROOT-GEMINI\n",
      ".github/copilot-instructions.md": "ROOT-GH\n",
      "AGENTS.override.md": "NOT READ\n",
      "a/AGENTS.md": "\n",
      "a/CLAUDE.md": "A-CLAUDE\n",
      "a/.github/copilot-instructions.md": "A-GH\n",
      "a/b/.github/copilot-instructions.md": "B-GH\n",
      "a/b/AGENTS.md": "B\n",
      "a/b/GEMINI.md": "B-GEMINI\n",
    },
    user: "USER\n",
    cwd: "a/b",
  },
  {
    name: "several directories between root and cwd, nearest first",
    files: {
      "AGENTS.md": "R\n",
      "a/AGENTS.md": "A\n",
      "a/.github/copilot-instructions.md": "A-GH\n",
      "a/b/AGENTS.md": "B\n",
      "a/b/CLAUDE.md": "R\n",
      "a/b/c/AGENTS.md": "C\n",
      "a/b/c/d/x.ts": "x\n",
    },
    cwd: "a/b/c/d",
  },
];

describe("preset copilot matches what Copilot CLI loads", () => {
  for (const tree of TREES) {
    it(`the <custom_instruction> blocks byte for byte, and the files \`copilot instruction list\` names: ${tree.name}`, async () => {
      const fx = await createCopilotFixture({ files: tree.files });
      if (tree.user !== undefined) {
        fs.mkdirSync(path.join(fx.home, ".copilot"), { recursive: true });
        fs.writeFileSync(path.join(fx.home, ".copilot/copilot-instructions.md"), tree.user);
      }
      const server = await startCopilotServer([{ text: "done" }]);
      cleanups.push(
        () => server.close(),
        () => fx.cleanup(),
      );
      const run = await runCopilot({ fixture: fx, server, prompt: "hi", cwd: tree.cwd });
      expect(run.exitCode, describeRun(run)).toBe(0);
      const sent = customInstructionSection(run.requests[0]!.body!);
      expect(sent).not.toBe("");
      expect((await agentsmd(fx, ["show", "--cwd", fx.path(tree.cwd)])).replace(/\n$/, "")).toBe(sent);

      const listed = (await instructionList(fx, tree.cwd)).flatMap((entry) =>
        entry.sourcePath.split(" + ").map((rel) => (path.isAbsolute(rel) ? rel : fx.path(rel))),
      );
      const ours = JSON.parse(await agentsmd(fx, ["list", "--json", "--cwd", fx.path(tree.cwd)])).files.map((file: { path: string }) => file.path);
      // Copilot's list leaves out a file whose text another directory's file already has (it sends
      // that text once); agentsmd lists it, since the model has its text.
      const text = (file: string) => fs.readFileSync(file, "utf8");
      const extra = ours.filter((file: string) => !listed.includes(file));
      expect(listed.filter((file) => !ours.includes(file))).toEqual([]);
      for (const file of extra) expect(listed.map(text), file).toContain(text(file));
    });
  }

  it("nested files after a view, as touch renders them: nearest directory first, empty files left out", async () => {
    const fx = await createCopilotFixture({
      files: {
        "AGENTS.md": "ROOT\n",
        "x/AGENTS.md": "X\n",
        "x/.github/copilot-instructions.md": "X-GH\n",
        "x/y/AGENTS.md": "",
        "x/y/CLAUDE.md": "Y-CLAUDE\n",
        "x/y/GEMINI.md": "Y-GEMINI\n",
        "x/y/f.ts": "f\n",
      },
    });
    const server = await startCopilotServer([{ toolCalls: [{ tool: "view", args: { path: fx.path("x/y/f.ts") } }] }, { text: "done" }]);
    cleanups.push(
      () => server.close(),
      () => fx.cleanup(),
    );
    const run = await runCopilot({ fixture: fx, server, prompt: "read it" });
    expect(run.exitCode, describeRun(run)).toBe(0);
    const after = run.requests[1]!.body!;
    const reminders = after.messages.filter(
      (message) => message.role === "user" && messageText(message).includes("<system_reminder>\nCustom instructions from"),
    );
    expect(reminders).toHaveLength(1);
    const state = path.join(fx.base, "touch-state.json");
    const touched = await agentsmd(fx, ["--cwd", fx.repo, "touch", fx.path("x/y/f.ts"), "--state", state]);
    expect(touched.replace(/\n$/, "")).toBe(messageText(reminders[0]!));
  });
});
