import { describe, expect, it } from "vitest";
import { answerText } from "../../src/integrations/setup/verify.js";

describe("answerText: the context text in the field each host reads", () => {
  it("reads hookSpecificOutput.additionalContext, a top-level additionalContext and Cline's contextModification, each only in its own field", () => {
    const nested = JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "N" } });
    const top = JSON.stringify({ additionalContext: "T" });
    const cline = JSON.stringify({ contextModification: "C" });
    expect(answerText("hookSpecificOutput", nested)).toBe("N");
    expect(answerText("top", top)).toBe("T");
    expect(answerText("contextModification", cline)).toBe("C");
    expect(answerText("contextModification", top)).toBeUndefined();
    expect(answerText("top", cline)).toBeUndefined();
    expect(answerText("hookSpecificOutput", top)).toBeUndefined();
  });

  it("gives undefined for output that is no JSON object or holds no string there", () => {
    expect(answerText("contextModification", "")).toBeUndefined();
    expect(answerText("contextModification", "null")).toBeUndefined();
    expect(answerText("contextModification", JSON.stringify({ contextModification: 3 }))).toBeUndefined();
    expect(answerText("hookSpecificOutput", JSON.stringify({ hookSpecificOutput: "x" }))).toBeUndefined();
  });
});
