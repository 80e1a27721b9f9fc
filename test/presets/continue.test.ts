import { describe, expect, it } from "vitest";
import { createTree } from "../helpers/tree.js";
import { createSession } from "../../src/session/session.js";

const TREE = {
  "home/": null,
  "r/.git/": null,
  "r/AGENTS.md": "root\n",
  "r/CLAUDE.md": "root claude\n",
  "r/pkg/CLAUDE.md": "pkg claude\n",
  "r/pkg/deep/AGENTS.md": "deep\n",
  "r/other/": null,
};

async function continueSession(cwdRel: string) {
  const tree = await createTree(TREE);
  const session = await createSession({ cwd: tree.path(cwdRel), home: tree.path("home"), env: {}, preset: "continue" });
  return { tree, session };
}

describe("preset continue", () => {
  it("loads the first of AGENTS.md, AGENT.md, CLAUDE.md, CODEX.md in cwd alone, framed as cn frames it", async () => {
    const { tree, session } = await continueSession("r");
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("r/AGENTS.md")]);
    // cn: `<context name="userRules">` + "\n" + the text as is + "\n</context>".
    expect(session.initialMessage).toBe('<context name="userRules">\nroot\n\n</context>');
    await session.close();
  });

  it("from a subdirectory loads that directory's file only, not the root's", async () => {
    const { tree, session } = await continueSession("r/pkg");
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("r/pkg/CLAUDE.md")]);
    await session.close();
  });

  it("loads nothing from a subdirectory without a file, and touches deliver the root's file and nested ones", async () => {
    const { tree, session } = await continueSession("r/other");
    expect(session.initialFiles).toEqual([]);
    expect(session.initialMessage).toBe("");
    const blocks = await session.touch([tree.path("r/pkg/deep/x.ts")]);
    expect(blocks.map((block) => block.path)).toEqual([tree.path("r/AGENTS.md"), tree.path("r/pkg/CLAUDE.md"), tree.path("r/pkg/deep/AGENTS.md")]);
    await session.close();
  });
});
