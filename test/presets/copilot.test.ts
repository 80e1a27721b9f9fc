import { describe, expect, it } from "vitest";
import { createTree, openSession } from "../helpers/tree.js";
import { copilotOrder, copilotRenderer } from "../../src/presets/copilot.js";

const block = (text: string) => `<custom_instruction>\n${text}\n</custom_instruction>`;

describe("preset copilot", () => {
  // The orders below are what Copilot CLI 1.0.102 sent (e2e/copilot FINDINGS.md, preset.e2e.test.ts).
  it("reads .github/copilot-instructions.md, AGENTS.md, CLAUDE.md and GEMINI.md from the git root to cwd, the user file first, nothing above the root", async () => {
    const tree = await createTree({
      "AGENTS.md": "ABOVE\n",
      "repo/.git/": null,
      "repo/AGENTS.md": "ROOT\n",
      "repo/CLAUDE.md": "ROOT-CLAUDE\n",
      "repo/.github/copilot-instructions.md": "ROOT-GH\n",
      "repo/a/AGENTS.md": "A\n",
      "repo/a/.github/copilot-instructions.md": "A-GH\n",
      "repo/a/b/AGENTS.md": "B\n",
      "repo/a/b/GEMINI.md": "B-GEMINI\n",
      "repo/a/b/c/AGENTS.md": "C\n",
      "repo/a/b/c/d/.github/copilot-instructions.md": "D-GH\n",
      "repo/a/b/c/d/CLAUDE.md": "D-CLAUDE\n",
      "repo/AGENTS.override.md": "NOT READ\n",
    });
    await tree.write(".test-home/.copilot/copilot-instructions.md", "USER\n");
    const session = await openSession(tree, { preset: "copilot", cwd: tree.path("repo/a/b/c/d") });
    // root and cwd first (repository files, then model files), then the directories between, nearest first.
    expect(session.initialMessage).toBe(
      ["USER\n", "ROOT-GH\n", "D-GH\n", "ROOT\n", "ROOT-CLAUDE\n", "D-CLAUDE\n", "C\n", "B\n", "B-GEMINI\n", "A-GH\n", "A\n"].map(block).join("\n\n"),
    );
  });

  it("sends a text only once, keeps an empty file's block, and uses $COPILOT_HOME", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "SAME\n", "CLAUDE.md": "SAME\n", "sub/AGENTS.md": "", "sub/GEMINI.md": "SAME\n" });
    await tree.write("ch/copilot-instructions.md", "FROM-COPILOT-HOME\n");
    const session = await openSession(tree, { preset: "copilot", cwd: tree.path("sub"), env: { COPILOT_HOME: tree.path("ch") } });
    expect(session.initialMessage).toBe(["FROM-COPILOT-HOME\n", "SAME\n", ""].map(block).join("\n\n"));
    // Every file counts as loaded, the duplicate too (Copilot has its text).
    expect(session.initialFiles).toHaveLength(5);
  });

  it("renders nested files as Copilot attaches them after a view: nearest directory first, paths relative to the git root", async () => {
    const tree = await createTree({
      ".git/": null,
      "AGENTS.md": "R\n",
      "x/AGENTS.md": "X\n",
      "x/.github/copilot-instructions.md": "X-GH\n",
      "x/y/CLAUDE.md": "Y\n",
      "x/y/f.ts": "",
    });
    const session = await openSession(tree, { preset: "copilot", cwd: tree.path() });
    const blocks = await session.touch([tree.path("x/y/f.ts")]);
    expect(copilotRenderer.inline(blocks, { cwd: tree.path(), root: tree.path() })).toBe(
      "\n" +
        [
          ["x/y/CLAUDE.md", "Y\n"],
          ["x/.github/copilot-instructions.md", "X-GH\n"],
          ["x/AGENTS.md", "X\n"],
        ]
          .map(([rel, text]) => `<system_reminder>\nCustom instructions from ${rel}. Apply these to any code you write here:\n\n${text}\n</system_reminder>`)
          .join("\n"),
    );
  });

  it("copilotOrder keeps the first of equal texts", () => {
    const blocks = [
      { path: "/r/AGENTS.md", layer: "project" as const, content: "A" },
      { path: "/r/CLAUDE.md", layer: "project" as const, content: "A" },
      { path: "/r/GEMINI.md", layer: "project" as const, content: "B" },
    ];
    expect(copilotOrder(blocks, "/r", "/r").map((b) => b.path)).toEqual(["/r/AGENTS.md", "/r/GEMINI.md"]);
  });
});
