/**
 * The built `agentsmd/kilo` plugin (dist/plugin/kilo.js) inside the real Kilo Code CLI
 * 7.7.7 ("Proof"), loaded as a user loads it: a file in `.kilo/plugins/`, or kilo.json
 * `plugin`. The model is scripted; the test inspects what the model server received.
 *
 * Rule checked everywhere: every instruction file reaches the model exactly once per version
 * (Kilo's own system prompt and read attachments included), an edited file once more, and
 * nothing the plugin adds repeats what Kilo gave the model itself.
 *
 * Needs `npm run build` and the pinned CLI (`npm ci --prefix e2e/kilo`, done on first use).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { REPO_ROOT } from "../lib/install.js";
import { messageText, systemTexts, toolResults } from "../lib/openai-chat-server.js";
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
import { KILO_HOST, KILO_VERSION } from "./harness.js";

const PLUGIN_DIST = join(REPO_ROOT, "dist", "plugin", "kilo.js");
const PLUGIN_URL = pathToFileURL(PLUGIN_DIST).href;
/** `.kilo/plugins/agentsmd.js` as a user writes it (here the built module stands for the package). */
const PLUGIN_FILE = { "agentsmd.js": `export { default } from ${JSON.stringify(PLUGIN_URL)};\n` };

const newFixture = familyFixtures(KILO_HOST, [() => assertBuilt(PLUGIN_DIST)]);

const reminder = (path: string, body: string) => `<system-reminder>\nInstructions from: ${path}\n${body}\n</system-reminder>`;

describe(`agentsmd/kilo in Kilo ${KILO_VERSION}`, () => {
  test("from the repo root: a write to a new directory, native reads, an edited file, a shell read; each file once per version", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/api/AGENTS.md": "API-RULES v1\n",
        "packages/api/src/handler.ts": "export const handler = 1;\n",
        "packages/web/AGENTS.md": "WEB-RULES v1\n",
        "tools/AGENTS.md": "TOOLS-RULES v1\n",
        "tools/run.sh": "echo hello\n",
      },
      plugins: PLUGIN_FILE,
    });
    const fx = fixture;
    const handler = fx.path("packages/api/src/handler.ts");
    const created = fx.path("packages/web/src/new.ts");
    const run = await fx.run({
      prompt: "work",
      timeoutMs: 360_000,
      script: [
        // 1. a write into a directory that does not exist yet: Kilo attaches nothing
        { toolCalls: [{ tool: "write", args: { filePath: created, content: "export const web = 1;\n" } }] },
        // 2. a read whose AGENTS.md Kilo attaches itself
        { toolCalls: [{ tool: "read", args: { filePath: handler } }] },
        // 3. a read of the new file: Kilo attaches packages/web/AGENTS.md again; the model has it
        { toolCalls: [{ tool: "read", args: { filePath: created } }] },
        // 4. the AGENTS.md changes on disk; the next edit in its directory brings the new text
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          await fx.write("packages/api/AGENTS.md", "API-RULES v2\n");
          return { toolCalls: [{ tool: "edit", args: { filePath: handler, oldString: "= 1", newString: "= 2" } }] };
        },
        // 5. the same place again: nothing new
        { toolCalls: [{ tool: "edit", args: { filePath: handler, oldString: "= 2", newString: "= 3" } }] },
        // 6. a shell read below tools/
        { toolCalls: [{ tool: "bash", args: { command: "cat tools/run.sh", description: "show the script" } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "kilo");
    const final = lastMain(run);
    const [afterWrite, afterRead, afterReread, afterEdit, afterSecondEdit, afterShell] = toolResults(final);

    // The root file is in Kilo's system prompt: never repeated.
    expect(systemTexts(final).join("\n")).toContain("ROOT-RULES v1");
    expect(toolOccurrences(final, "ROOT-RULES")).toBe(0);
    // 1. write to a new directory: the plugin gives packages/web/AGENTS.md, in Kilo's framing.
    expect(afterWrite).toMatchObject({
      tool: "write",
      content: `Wrote file successfully.\n\n${reminder(fx.path("packages/web/AGENTS.md"), "WEB-RULES v1\n")}`,
    });
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);
    // 2. read: Kilo attached packages/api/AGENTS.md itself; nothing added.
    expect(afterRead!.content).toContain(reminder(fx.path("packages/api/AGENTS.md"), "API-RULES v1\n"));
    expect(afterRead!.content.match(/<system-reminder>/g)).toHaveLength(1);
    expect(occurrences(final, "API-RULES v1")).toBe(1);
    // 3. Kilo's repeat of packages/web/AGENTS.md does not reach the model.
    expect(afterReread?.tool).toBe("read");
    expect(afterReread!.content).not.toContain("system-reminder");
    // 4. the edited file, once; 5. then nothing.
    expect(afterEdit).toMatchObject({
      tool: "edit",
      content: `Edit applied successfully.\n\n${reminder(fx.path("packages/api/AGENTS.md"), "API-RULES v2\n")}`,
    });
    expect(occurrences(final, "API-RULES v2")).toBe(1);
    expect(afterSecondEdit).toMatchObject({ tool: "edit", content: "Edit applied successfully." });
    // 6. bash: the command's path brings tools/AGENTS.md.
    expect(afterShell?.tool).toBe("bash");
    expect(afterShell!.content).toContain(reminder(fx.path("tools/AGENTS.md"), "TOOLS-RULES v1\n"));
    expect(occurrences(final, "TOOLS-RULES v1")).toBe(1);
  }, 420_000);

  test("files kilo.json instructions and .kilo/rules list reach the model once: Kilo's system prompt, never the plugin", async () => {
    const fixture = await newFixture({
      files: { ...LISTED_FILES, ".kilo/rules/style.md": "STYLE-RULE-FILE v1\n" },
      config: { plugin: [PLUGIN_URL], instructions: ["packages/api/AGENTS.md"] },
    });
    const final = await expectListedOnce(fixture, "kilo", { timeoutMs: 360_000 });
    expect(systemTexts(final).join("\n")).toContain(`Instructions from: ${fixture.path(".kilo/rules/style.md")}\nSTYLE-RULE-FILE v1\n`);
  }, 420_000);

  test("a file a kilo.json instructions glob matches, created mid-run, is Kilo's from the next step on: the plugin keeps its listing but adds nothing for it", async () => {
    const fixture = await newFixture({ files: GLOB_LISTED_FILES, config: { plugin: [PLUGIN_URL], instructions: ["packages/*/AGENTS.md"] } });
    await expectCreatedListed(fixture, "kilo", { timeoutMs: 360_000 });
  }, 420_000);

  test("from a subdirectory (kilo.json plugin): Kilo's chain stays Kilo's, a read outside cwd and a write below it bring the rest", async () => {
    const fixture = await newFixture({
      files: {
        "AGENTS.md": "ROOT-RULES v1\n",
        "packages/api/AGENTS.md": "API-RULES v1\n",
        "packages/api/src/handler.ts": "export const handler = 1;\n",
        "packages/api/deep/AGENTS.md": "DEEP-RULES v1\n",
        "packages/web/AGENTS.md": "WEB-RULES v1\n",
        "packages/web/src/page.ts": "export const page = 1;\n",
      },
      config: { plugin: [PLUGIN_URL] },
    });
    const fx = fixture;
    const run = await fx.run({
      prompt: "look",
      cwd: "packages/api",
      timeoutMs: 360_000,
      script: [
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("packages/web/src/page.ts") } }] },
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("packages/api/src/handler.ts") } }] },
        { toolCalls: [{ tool: "write", args: { filePath: fx.path("packages/api/deep/new/x.ts"), content: "export {};\n" } }] },
        { toolCalls: [{ tool: "read", args: { filePath: fx.path("packages/api/deep/new/x.ts") } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "kilo");
    const final = lastMain(run);
    const system = systemTexts(final).join("\n");
    expect(system).toContain("API-RULES v1");
    expect(system).toContain("ROOT-RULES v1");
    const [outside, inside, write, reread] = toolResults(final);
    // Kilo attaches nothing for a read outside cwd: the plugin gives the web file.
    expect(outside!.content).toContain(reminder(fx.path("packages/web/AGENTS.md"), "WEB-RULES v1\n"));
    // Kilo's own chain is never repeated.
    expect(inside!.content).not.toContain("system-reminder");
    // The write below cwd brings deep/AGENTS.md; Kilo's own attachment of it on the read is removed.
    expect(write!.content).toContain(reminder(fx.path("packages/api/deep/AGENTS.md"), "DEEP-RULES v1\n"));
    expect(reread!.content).not.toContain("system-reminder");
    for (const rules of ["WEB-RULES v1", "DEEP-RULES v1", "API-RULES v1", "ROOT-RULES v1"]) expect(occurrences(final, rules), rules).toBe(1);
  }, 420_000);

  test("compaction: the summary request carries the nested file, and it comes back after the compaction", async () => {
    const fixture = await newFixture({
      files: { "AGENTS.md": "ROOT-RULES v1\n", "packages/web/AGENTS.md": "WEB-RULES v1\n" },
      plugins: PLUGIN_FILE,
      contextLimit: 50_000,
    });
    const fx = fixture;
    const run = await fx.run({
      prompt: "build web",
      timeoutMs: 360_000,
      script: [
        {
          toolCalls: [{ tool: "write", args: { filePath: fx.path("packages/web/src/a.ts"), content: "export const a = 1;\n" } }],
          usage: { prompt_tokens: 49_000, completion_tokens: 10 },
        },
        { toolCalls: [{ tool: "write", args: { filePath: fx.path("packages/web/src/b.ts"), content: "export const b = 1;\n" } }] },
        { text: "done" },
      ],
    });
    expectCleanRun(run, "kilo");
    const compaction = run.requests.find((r) => r.kind === "compaction")?.body;
    expect(compaction, "Kilo compacted").toBeDefined();
    const summaryInput = compaction!.messages
      .filter((m) => m.role === "user")
      .map(messageText)
      .join("\n");
    expect(summaryInput).toContain("WEB-RULES v1");
    const final = lastMain(run);
    const writes = toolResults(final).filter((r) => r.tool === "write");
    expect(writes.at(-1)!.content).toContain(reminder(fx.path("packages/web/AGENTS.md"), "WEB-RULES v1\n"));
    expect(occurrences(final, "WEB-RULES v1")).toBe(1);
  }, 420_000);
});
