/**
 * Gemini CLI's quiet stage (gemini/quiet.ts, its gate in gemini/host.ts): its conversation is
 * certified at the start (its first BeforeAgent) and after a delivering AfterTool, and a later
 * AfterTool in a certified directory is answered by the stage, as the full path answers it. Gemini
 * fires PreCompress before every model call: the mark it leaves sends the next AfterTool to the
 * full path (which reads the transcript), and the certificate is whole again after it.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { quietCall } from "../../src/hook/quiet.js";
import { quietGateOpen } from "../../src/hook/quiet-gate.js";
import { quietHost } from "../../src/integrations/gemini/quiet.js";
import { geminiHost } from "../../src/integrations/gemini/host.js";
import { quietPath } from "../../src/integrations/host/quiet-format.js";
import { fullCall, geminiStarted } from "../helpers/quiet-setup.js";

const HOST = "gemini";

describe("Gemini CLI's quiet stage", () => {
  let setup: Awaited<ReturnType<typeof geminiStarted>>;
  const quiet = (event: object) => quietCall(quietHost, ["hook", HOST], JSON.stringify(event), setup.env, setup.version);
  const gate = (event: object) => quietGateOpen(HOST, geminiHost.hook!.quiet!.gate, JSON.stringify(event), setup.env);
  const full = (event: object) => fullCall(event, setup.env, HOST);
  beforeAll(async () => {
    setup = await geminiStarted();
  }, 30_000);

  it("the start (the first BeforeAgent) certifies the root: an AfterTool there is the stage's, and the full path agrees", async () => {
    expect(existsSync(quietPath(setup.state))).toBe(true);
    // As the model wrote it: relative to the workspace.
    const read = setup.tool("read_file", "top.ts");
    expect(gate(read)).toBe(true);
    expect(quiet(read)).toBe(true);
    const before = readFileSync(setup.state, "utf8");
    expect(await full(read)).toBe("");
    expect(readFileSync(setup.state, "utf8")).toBe(before);
  });

  it("a delivering AfterTool certifies its directory: the next AfterTool there is the stage's", async () => {
    expect(quiet(setup.tool("replace", setup.tree.path("r/pkg/b.ts")))).toBe(false);
    expect(await full(setup.tool("read_file", setup.tree.path("r/pkg/a.ts")))).toContain("pkg rules");
    const edit = setup.tool("replace", setup.tree.path("r/pkg/b.ts"));
    expect(gate(edit)).toBe(true);
    expect(quiet(edit)).toBe(true);
    expect(await full(edit)).toBe("");
  });

  it("another event, another event name, a read of an instruction file: the full path", () => {
    const edit = setup.tool("replace", setup.tree.path("r/pkg/b.ts"));
    for (const event of [
      { ...edit, hook_event_name: "PostToolUse" },
      { ...edit, hook_event_name: "BeforeAgent", prompt: "x" },
      { ...edit, hook_event_name: "PreCompress", trigger: "auto" },
      setup.tool("read_file", setup.tree.path("r/pkg/AGENTS.md")),
      { ...edit, timestamp: 7 },
    ]) {
      expect(quiet(event), JSON.stringify(event)).toBe(false);
    }
    expect(gate({ ...edit, hook_event_name: "PostToolUse" })).toBe(false);
  });

  it("PreCompress (before every model call) marks the transcript: the next AfterTool is the full path's, after which every certified directory is the stage's again", async () => {
    const [top, edit] = [setup.tool("read_file", "top.ts"), setup.tool("replace", setup.tree.path("r/pkg/b.ts"))];
    appendFileSync(setup.tree.path("t.jsonl"), '{"type":"user","content":"go"}\n');
    expect(await full({ ...setup.base, hook_event_name: "PreCompress", trigger: "auto" })).toBe("");
    expect(readFileSync(setup.state, "utf8")).toContain('"mark"');
    // A compression since the mark only the transcript tells: the full path reads it.
    expect([quiet(top), quiet(edit)]).toEqual([false, false]);
    appendFileSync(setup.tree.path("t.jsonl"), '{"type":"gemini","content":"ok"}\n');
    expect(await full(edit)).toBe("");
    expect(readFileSync(setup.state, "utf8")).not.toContain('"mark"');
    // Not only the directory of that call: the root, certified at the start, too.
    expect([quiet(top), quiet(edit)]).toEqual([true, true]);
  });

  it("a compression since the mark: the full path gives back what the model lost, and no certificate of before it answers for after it", async () => {
    const [top, edit] = [setup.tool("read_file", "top.ts"), setup.tool("replace", setup.tree.path("r/pkg/b.ts"))];
    expect([quiet(top), quiet(edit)]).toEqual([true, true]);
    expect(await full({ ...setup.base, hook_event_name: "PreCompress", trigger: "auto" })).toBe("");
    // Gemini replaced the history with a summary that holds none of the delivered files.
    appendFileSync(setup.tree.path("t.jsonl"), '{"$set":{"messages":[{"type":"user","content":[{"text":"summary"}]}]}}\n');
    expect([quiet(top), quiet(edit)]).toEqual([false, false]);
    const restored = await full(edit);
    expect(restored).toContain("root rules");
    expect(restored).toContain("pkg rules");
    // Given back once: the next calls there are quiet, the stage's and the full path's alike.
    expect(quiet(edit)).toBe(true);
    expect(await full(top)).toBe("");
  });
});
