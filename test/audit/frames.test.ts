import { describe, expect, it } from "vitest";
import { splitFrames } from "../../src/integrations/host/log-frames.js";

describe("splitFrames", () => {
  it("Claude Code's frame, also after a hook's prefix, with its note in parentheses", () => {
    expect(splitFrames("tool.call hook additional context: Contents of /r/pkg/AGENTS.md:\n\n# pkg\nRule.\n</system-reminder>")).toEqual([
      { text: "tool.call hook additional context: " },
      { text: "\n# pkg\nRule.\n", about: "/r/pkg/AGENTS.md" },
    ]);
    expect(splitFrames("Contents of /r/CLAUDE.md (project instructions, checked into the codebase):\n\nA\nContents of /r/b/CLAUDE.md:\nB")).toEqual([
      { text: "\nA\n", about: "/r/CLAUDE.md" },
      { text: "B", about: "/r/b/CLAUDE.md" },
    ]);
  });

  it("agentsmd's frame (a quoted name read back) and Codex's directory frame", () => {
    expect(splitFrames('<agents_context scope="path">\nInstructions from: "/r/a\\nb/AGENTS.md"\nBe nice.\n</agents_context>')).toEqual([
      { text: '<agents_context scope="path">\n' },
      { text: "Be nice.\n", about: "/r/a\nb/AGENTS.md" },
    ]);
    expect(splitFrames("# AGENTS.md instructions for /r/lib\n\n<INSTRUCTIONS>\n# lib\n</INSTRUCTIONS>")).toEqual([{ text: "# lib\n", about: "/r/lib/" }]);
  });

  it("Gemini CLI's context block: the text up to its closing line, what follows it a piece of its own", () => {
    expect(
      splitFrames(
        "x\n--- Context from: /r/lib/GEMINI.md ---\n# lib\nRule.\n--- End of Context from: /r/lib/GEMINI.md ---\n--- End Project Context ---\n\ntail",
      ),
    ).toEqual([{ text: "x\n" }, { text: "# lib\nRule.\n", about: "/r/lib/GEMINI.md" }, { text: "--- End Project Context ---\n\ntail" }]);
    expect(splitFrames("--- Context from: GEMINI.md ---\nx")).toEqual([{ text: "--- Context from: GEMINI.md ---\nx" }]); // Qwen's relative frame names nothing
  });

  it("a frame with a relative, empty or NUL path names nothing; text without frames is one piece", () => {
    expect(splitFrames("Contents of a/AGENTS.md:\nx")).toEqual([{ text: "Contents of a/AGENTS.md:\nx" }]);
    expect(splitFrames('Instructions from: "/r/\\u0000"\nx')).toEqual([{ text: 'Instructions from: "/r/\\u0000"\nx' }]);
    expect(splitFrames("plain")).toEqual([{ text: "plain" }]);
  });

  it("at most 256 pieces from one text (a hostile log repeating frames)", () => {
    expect(splitFrames("Contents of /r/A.md:\nx\n".repeat(10_000)).length).toBeLessThanOrEqual(257);
  });
});
