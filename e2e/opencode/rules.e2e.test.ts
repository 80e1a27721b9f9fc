/**
 * End to end: scoped rules reach the model through the agentsmd plugin inside the real
 * OpenCode CLI (pinned). OpenCode reads none of these formats itself, so a `.cursor/rules` rule
 * arrives with the first tool call that touches a matching file, once; an always-apply rule with
 * the first tool call at all; edits of other matching files bring nothing again.
 *
 * Needs `npm run build` and the pinned CLI (`npm ci --prefix e2e/opencode`).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { toolResults } from "../lib/openai-chat-server.js";
import { assertBuilt } from "../lib/agentsmd.js";
import { expectCleanRun, familyFixtures, lastMain, occurrences } from "../lib/opencode-family.js";
import { OPENCODE_HOST } from "./harness.js";

const PLUGIN_DIST = process.env.AGENTSMD_E2E_OPENCODE_PLUGIN ?? join(REPO_ROOT, "dist", "plugin", "opencode.js");

const newFixture = familyFixtures(OPENCODE_HOST, [() => assertBuilt(PLUGIN_DIST)]);

describe("scoped rules through the agentsmd OpenCode plugin in OpenCode 1.18.33", () => {
  test("a .cursor/rules rule reaches the model once, right after the read of a matching file", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/web/src/page.ts": "export const page = 1;\n",
        "packages/web/src/other.ts": "export const other = 1;\n",
        "packages/api/index.ts": "export const api = 1;\n",
        ".cursor/rules/web.mdc": "---\ndescription: web\nglobs: packages/web/**\nalwaysApply: false\n---\nCURSOR-WEB-RULE: pages export a default component.\n",
        ".github/instructions/api.instructions.md": '---\napplyTo: "packages/api/**"\n---\nCOPILOT-API-RULE: handlers validate input.\n',
        ".qwen/rules/always.md": "QWEN-ALWAYS-RULE: imperative commit messages.\n",
      },
      config: { plugin: [pathToFileURL(PLUGIN_DIST).href] },
    });
    const fx = fixture;
    const run = await fx.run({
      prompt: "work",
      script: [
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("packages/web/src/page.ts") } }] },
        { toolCalls: [{ tool: "edit", args: { filePath: fx.path("packages/web/src/other.ts"), oldString: "= 1", newString: "= 2" } }] },
        { toolCalls: [{ tool: "edit", args: { filePath: fx.path("packages/api/index.ts"), oldString: "= 1", newString: "= 2" } }] },
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("packages/web/src/page.ts") } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "opencode");
    const final = lastMain(run);
    const [read, editWeb, editApi, reread] = toolResults(final);
    if (process.env.AGENTSMD_E2E_DUMP === "1") console.log(JSON.stringify(toolResults(final), null, 2));
    // The read of a matching file carries the Cursor rule (and the always-apply Qwen rule), framed with source and glob.
    expect(read!.content).toContain(
      `Instructions from: ${fx.path(".cursor/rules/web.mdc")}\nScoped rule from .cursor/rules/web.mdc (Cursor globs "packages/web/**", matched by packages/web/src/page.ts):\nCURSOR-WEB-RULE`,
    );
    expect(read!.content).toContain("Scoped rule from .qwen/rules/always.md (Qwen Code, always applies):\nQWEN-ALWAYS-RULE");
    // Another matching file: nothing again. The Copilot rule arrives with the edit under packages/api.
    expect(editWeb).toMatchObject({ tool: "edit", content: "Edit applied successfully." });
    expect(editApi!.content).toContain('(GitHub Copilot applyTo "packages/api/**", matched by packages/api/index.ts):\nCOPILOT-API-RULE');
    expect(reread!.content).not.toContain("Scoped rule");
    for (const token of ["CURSOR-WEB-RULE", "COPILOT-API-RULE", "QWEN-ALWAYS-RULE", "ROOT-RULES v1"]) expect(occurrences(final, token), token).toBe(1);
  });
});
