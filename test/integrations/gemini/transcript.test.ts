import { describe, expect, it } from "vitest";
import { geminiHistory } from "../../../src/integrations/gemini/transcript.js";
import { qwenHistory } from "../../../src/integrations/qwen/transcript.js";

const line = (value: unknown) => JSON.stringify(value);

describe("geminiHistory (Gemini CLI 0.61 transcript lines)", () => {
  it("no history replacement: nothing known", () => {
    const text = [line({ id: "1", type: "user", content: [{ text: "DELIVERED-A" }] }), line({ $set: { lastUpdated: "t" } })].join("\n");
    expect(geminiHistory(text)).toEqual({ replaced: false, text: "" });
  });

  it("after a compression: the compressed history and the messages recorded since, not what was summarized", () => {
    const text = [
      line({ id: "1", type: "user", content: [{ text: "<hook_context>DELIVERED-A</hook_context>" }] }),
      line({
        $set: {
          messages: [
            { type: "user", content: [{ text: "summary" }] },
            { type: "user", content: [{ functionResponse: { response: { output: "x\n\n<hook_context>DELIVERED-B</hook_context>" } } }] },
          ],
        },
      }),
      line({ id: "2", type: "user", content: [{ functionResponse: { response: { output: "<hook_context>DELIVERED-C</hook_context>" } } }] }),
      '{"id":"3","type":"gemi', // a line still being written
    ].join("\n");
    const history = geminiHistory(text);
    expect(history.replaced).toBe(true);
    expect(history.text).toContain("DELIVERED-B");
    expect(history.text).toContain("DELIVERED-C");
    expect(history.text).not.toContain("DELIVERED-A");
  });

  it("the last replacement wins", () => {
    const text = [line({ $set: { messages: [{ content: "OLD" }] } }), line({ $set: { messages: [{ content: "NEW" }] } })].join("\n");
    expect(geminiHistory(text).text).toBe("NEW");
  });
});

describe("qwenHistory (Qwen Code 0.24 transcript records)", () => {
  const user = (text: string) => line({ type: "user", message: { role: "user", parts: [{ text }] } });
  const assistant = line({ type: "assistant", message: { role: "model", parts: [{ functionCall: { name: "read_file" } }] } });
  const tool = (text: string) => line({ type: "tool_result", message: { role: "user", parts: [{ functionResponse: { response: { output: text } } }] } });

  it("without a compaction: every message", () => {
    const history = qwenHistory(
      [user("P1"), assistant, tool("T1 DELIVERED-A"), line({ type: "system", subtype: "ui_telemetry", systemPayload: { x: "NOT-A-MESSAGE" } })].join("\n"),
    );
    expect(history.compacted).toBe(false);
    expect(history.text).toContain("DELIVERED-A");
    expect(history.text).not.toContain("NOT-A-MESSAGE");
  });

  it("after a compaction: the compressed history, the pending tool results sent with it, and later messages", () => {
    const compaction = line({
      type: "system",
      subtype: "chat_compression",
      systemPayload: { compressedHistory: [{ role: "user", parts: [{ text: "SUMMARY" }] }] },
    });
    const text = [user("P1"), assistant, tool("DELIVERED-A"), user("P2"), assistant, tool("DELIVERED-B"), compaction, assistant, tool("DELIVERED-C")].join(
      "\n",
    );
    const history = qwenHistory(text);
    expect(history.compacted).toBe(true);
    for (const token of ["SUMMARY", "DELIVERED-B", "DELIVERED-C"]) expect(history.text).toContain(token);
    expect(history.text).not.toContain("DELIVERED-A");
    expect(history.text).not.toContain("P2");
  });
});
