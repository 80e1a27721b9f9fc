/**
 * The built agentsmd OpenCode plugin (dist/plugin/opencode.js) inside the real OpenCode CLI
 * ("Proof"). The model is scripted; the test inspects what the model server received.
 *
 * Rule checked everywhere: every instruction file reaches the model exactly once per version
 * (OpenCode's own system prompt and read attachments included), an edited file once more, and
 * nothing the plugin adds duplicates what OpenCode attached itself.
 *
 * Needs `npm run build` (the suite tests the build output) and the pinned CLI
 * (`npm ci --prefix e2e/opencode`, done on first use).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { messageText, systemTexts, toolResults, type ChatRequestBody, type RecordedRequest } from "../lib/openai-chat-server.js";
import { assertBuilt } from "../lib/agentsmd.js";
import {
  GLOB_LISTED_FILES,
  LISTED_FILES,
  expectCleanRun,
  expectCreatedListed,
  expectListedOnce,
  familyFixtures,
  lastMain,
  occurrences,
  toolOccurrences,
} from "../lib/opencode-family.js";
import { OPENCODE_HOST, recorderPluginSource } from "./harness.js";

const PLUGIN_DIST = process.env.AGENTSMD_E2E_OPENCODE_PLUGIN ?? join(REPO_ROOT, "dist", "plugin", "opencode.js");

const newFixture = familyFixtures(OPENCODE_HOST, [() => assertBuilt(PLUGIN_DIST)]);

function hasRipgrep(): boolean {
  try {
    execFileSync("rg", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** opencode.json keys that load the built plugin the way the README's one-liner does. */
function pluginConfig(options?: Record<string, unknown>): Record<string, unknown> {
  const spec = pathToFileURL(PLUGIN_DIST).href;
  return { plugin: [options ? [spec, options] : spec] };
}

function bodyOf(request: RecordedRequest | undefined): ChatRequestBody {
  if (!request?.body) throw new Error("missing request");
  return request.body;
}

describe("agentsmd OpenCode plugin in OpenCode 1.18.33", () => {
  test("write, native read and edit-after-change: each instruction file reaches the model once per version", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/api/AGENTS.md": "API-RULES v1\n",
        "packages/api/src/handler.ts": "export const handler = 1;\n",
        "packages/web/AGENTS.md": "WEB-RULES v1\n",
        "packages/web/src/.keep": "",
      },
      plugins: { "recorder.js": await recorderPluginSource() },
      config: pluginConfig(),
    });
    const fx = fixture;
    const handler = fx.path("packages/api/src/handler.ts");
    const created = fx.path("packages/web/src/new.ts");

    const run = await fx.run({
      prompt: "work",
      env: { AGENTSMD_E2E_RECORDER_PASSIVE: "1" },
      script: [
        // 1. a write to a new file under a directory with AGENTS.md: OpenCode attaches nothing
        { toolCalls: [{ tool: "write", args: { filePath: created, content: "export const web = 1;\n" } }] },
        // 2. a read whose AGENTS.md OpenCode attaches natively
        { toolCalls: [{ tool: "read", args: { filePath: handler } }] },
        // 3. a read of the new file: OpenCode attaches packages/web/AGENTS.md again by itself
        //    (it only remembers what earlier reads attached); the model already has it
        { toolCalls: [{ tool: "read", args: { filePath: created } }] },
        // 4. the AGENTS.md changes on disk, then an edit in its directory
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 20)); // a distinct mtime
          await fx.write("packages/api/AGENTS.md", "API-RULES v2\n");
          return { toolCalls: [{ tool: "edit", args: { filePath: handler, oldString: "= 1", newString: "= 2" } }] };
        },
        // 5. touching the same places again brings nothing new
        { toolCalls: [{ tool: "edit", args: { filePath: created, oldString: "= 1", newString: "= 3" } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "opencode");
    const final = lastMain(run);
    const [afterWrite, afterRead, afterReread, afterEdit, afterSecondEdit] = toolResults(final);
    if (process.env.AGENTSMD_E2E_DUMP === "1") console.log(JSON.stringify(toolResults(final), null, 2));

    // The root file is in OpenCode's system prompt: the plugin never repeats it.
    expect(systemTexts(final).join("\n")).toContain("ROOT-RULES v1");
    expect(toolOccurrences(final, "ROOT-RULES")).toBe(0);

    // 1. write: the plugin presents packages/web/AGENTS.md, once.
    // Bodies in OpenCode's own framing, in a <system-reminder> after the tool's output.
    expect(afterWrite).toMatchObject({
      tool: "write",
      content: `Wrote file successfully.\n\n<system-reminder>\nInstructions from: ${fx.path("packages/web/AGENTS.md")}\nWEB-RULES v1\n\n</system-reminder>`,
    });
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);

    // 2. read: OpenCode attached packages/api/AGENTS.md itself; the plugin adds nothing.
    expect(afterRead?.tool).toBe("read");
    expect(afterRead!.content).toContain(`<system-reminder>\nInstructions from: ${fx.path("packages/api/AGENTS.md")}\nAPI-RULES v1\n\n</system-reminder>`);
    expect(occurrences(final, "API-RULES v1")).toBe(1);
    expect(afterRead!.content.match(/<system-reminder>/g)).toHaveLength(1);

    // 3. read of the written file: OpenCode's repeat of packages/web/AGENTS.md does not reach the model.
    expect(afterReread).toMatchObject({
      tool: "read",
      content: `<path>${created}</path>\n<type>file</type>\n<content>\n1: export const web = 1;\n\n(End of file - total 1 lines)\n</content>`,
    });

    // 4. edit after the change: the new version is presented, once.
    expect(afterEdit).toMatchObject({
      tool: "edit",
      content: `Edit applied successfully.\n\n<system-reminder>\nInstructions from: ${fx.path("packages/api/AGENTS.md")}\nAPI-RULES v2\n\n</system-reminder>`,
    });
    expect(occurrences(final, "API-RULES v2")).toBe(1);

    // 5. nothing new: the output is OpenCode's alone.
    expect(afterSecondEdit).toMatchObject({ tool: "edit", content: "Edit applied successfully." });

    // What the plugin saw matches what the model saw: hooks ran for every tool call.
    const after = run.pluginCalls.filter((c) => c.hook === "tool.execute.after").map((c) => c.input.tool);
    expect(after).toEqual(["write", "read", "read", "edit", "edit"]);
  });

  test("a nested AGENTS.md that opencode.json instructions lists reaches the model once: OpenCode's system prompt, never the plugin", async () => {
    const fixture = await newFixture({ files: LISTED_FILES, config: { ...pluginConfig(), instructions: ["packages/api/AGENTS.md"] } });
    await expectListedOnce(fixture, "opencode");
  });

  test("a file an opencode.json instructions glob matches, created mid-run, is OpenCode's from the next step on: the plugin keeps its listing but adds nothing for it", async () => {
    const fixture = await newFixture({ files: GLOB_LISTED_FILES, config: { ...pluginConfig(), instructions: ["packages/*/AGENTS.md"] } });
    await expectCreatedListed(fixture, "opencode");
  });

  test("a read outside cwd but inside the root gets the file OpenCode leaves out", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/api/AGENTS.md": "API-RULES v1\n",
        "packages/api/index.ts": "export {};\n",
        "packages/web/AGENTS.md": "WEB-RULES v1\n",
        "packages/web/src/page.ts": "export const page = 1;\n",
      },
      config: pluginConfig(),
    });
    const fx = fixture;
    const page = fx.path("packages/web/src/page.ts");
    const run = await fx.run({
      prompt: "look",
      cwd: "packages/api",
      script: [{ toolCalls: [{ tool: "read", args: { filePath: page } }] }, { text: "done" }],
    });
    expectCleanRun(run, "opencode");
    const final = lastMain(run);
    const system = systemTexts(final).join("\n");
    // OpenCode's own prompt: cwd -> worktree, nearest first
    expect(system).toContain("API-RULES v1");
    expect(system).toContain("ROOT-RULES v1");
    const [read] = toolResults(final);
    expect(read!.content).toContain("WEB-RULES v1");
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);
    expect(toolOccurrences(final, "API-RULES")).toBe(0);
    expect(toolOccurrences(final, "ROOT-RULES")).toBe(0);
  });

  test("a restarted OpenCode (--continue) does not present again what the conversation already holds", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/web/AGENTS.md": "WEB-RULES v1\n",
        "packages/web/src/.keep": "",
      },
      config: pluginConfig(),
    });
    const fx = fixture;
    const created = fx.path("packages/web/src/new.ts");
    const first = await fx.run({
      prompt: "create",
      script: [{ toolCalls: [{ tool: "write", args: { filePath: created, content: "export const a = 1;\n" } }] }, { text: "created" }],
    });
    expectCleanRun(first, "opencode");
    expect(occurrences(lastMain(first), "WEB-RULES v1")).toBe(1);

    const second = await fx.run({
      prompt: "again",
      args: ["--continue"],
      script: [{ toolCalls: [{ tool: "edit", args: { filePath: created, oldString: "= 1", newString: "= 2" } }] }, { text: "edited" }],
    });
    expectCleanRun(second, "opencode");
    const final = lastMain(second);
    expect(final.messages.some((m) => m.role === "user" && messageText(m) === "create")).toBe(true); // same session
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);
    expect(toolResults(final).at(-1)).toMatchObject({ tool: "edit", content: "Edit applied successfully." });
  });

  test("compaction: the summary request carries the instruction context, and files are presented again afterwards", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/web/AGENTS.md": "WEB-RULES v1\n",
        "packages/web/src/.keep": "",
      },
      config: pluginConfig(),
      contextLimit: 50_000,
    });
    const fx = fixture;
    const a = fx.path("packages/web/src/a.ts");
    const b = fx.path("packages/web/src/b.ts");
    const run = await fx.run({
      prompt: "build web",
      script: [
        { toolCalls: [{ tool: "write", args: { filePath: a, content: "export const a = 1;\n" } }], usage: { prompt_tokens: 49_000, completion_tokens: 10 } },
        { toolCalls: [{ tool: "write", args: { filePath: b, content: "export const b = 1;\n" } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "opencode");
    const compaction = bodyOf(run.requests.find((r) => r.kind === "compaction"));
    const summaryInput = compaction.messages
      .filter((m) => m.role === "user")
      .map(messageText)
      .join("\n");
    // pushed by experimental.session.compacting (appended after OpenCode's own instructions)
    const tail = summaryInput.slice(summaryInput.lastIndexOf("Do not mention the summary process"));
    expect(tail).toContain("WEB-RULES v1");
    // after session.compacted the path-layer file is unadmitted: the next write presents it again
    const final = lastMain(run);
    const [afterCompactionWrite] = toolResults(final);
    expect(afterCompactionWrite?.tool).toBe("write");
    expect(afterCompactionWrite!.content).toContain("WEB-RULES v1");
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);
  });
  test("apply_patch (OpenCode's editing tool for gpt- models) and AGENTS.override.md, which OpenCode never loads", async () => {
    const fixture = await newFixture({
      modelId: "gpt-5-scripted",
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "libs/core/AGENTS.override.md": "CORE-OVERRIDE v1\n",
        "libs/core/index.ts": "export const core = 1;\n",
        "libs/util/AGENTS.md": "UTIL-RULES v1\n",
      },
      config: pluginConfig(),
    });
    const fx = fixture;
    const patch = ["*** Begin Patch", `*** Add File: ${fx.path("libs/util/new.ts")}`, "+export const util = 1;", "*** End Patch"].join("\n");
    const run = await fx.run({
      prompt: "patch",
      script: [
        { toolCalls: [{ tool: "apply_patch", args: { patchText: patch } }] },
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("libs/core/index.ts") } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "opencode");
    const final = lastMain(run);
    expect(final.tools?.map((t) => t.function.name)).toContain("apply_patch");
    const [patched, read] = toolResults(final);
    expect(patched?.tool).toBe("apply_patch");
    expect(patched!.content).toContain(`<system-reminder>\nInstructions from: ${fx.path("libs/util/AGENTS.md")}\nUTIL-RULES v1\n`);
    expect(read?.tool).toBe("read");
    expect(read!.content).toContain(`Instructions from: ${fx.path("libs/core/AGENTS.override.md")}\nCORE-OVERRIDE v1\n`);
    expect(occurrences(final, "UTIL-RULES v1")).toBe(1);
    expect(occurrences(final, "CORE-OVERRIDE v1")).toBe(1);
    expect(toolOccurrences(final, "ROOT-RULES")).toBe(0);
  });

  // glob and grep need ripgrep on PATH (OpenCode would download it otherwise): `apt-get install ripgrep`.
  test.skipIf(!hasRipgrep())("glob and grep: the searched directory's instruction files are presented", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "docs/AGENTS.md": "DOCS-RULES v1\n",
        "docs/guide.md": "hello\n",
        "tools/AGENTS.md": "TOOLS-RULES v1\n",
        "tools/run.sh": "echo hello\n",
      },
      config: pluginConfig(),
    });
    const fx = fixture;
    const run = await fx.run({
      prompt: "search",
      script: [
        { toolCalls: [{ tool: "glob", args: { pattern: "**/*.md", path: fx.path("docs") } }] },
        { toolCalls: [{ tool: "grep", args: { pattern: "hello", path: fx.path("tools") } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "opencode");
    const final = lastMain(run);
    const [glob, grep] = toolResults(final);
    expect(glob?.tool).toBe("glob");
    expect(glob!.content).toContain(`Instructions from: ${fx.path("docs/AGENTS.md")}\nDOCS-RULES v1\n`);
    expect(grep?.tool).toBe("grep");
    expect(grep!.content).toContain(`Instructions from: ${fx.path("tools/AGENTS.md")}\nTOOLS-RULES v1\n`);
    expect(occurrences(final, "DOCS-RULES v1")).toBe(1);
    expect(occurrences(final, "TOOLS-RULES v1")).toBe(1);
  });
});
