/** The Codex event schema against events recorded from codex-cli 0.169.0. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CodexHookInputError, parseCodexEvent } from "../../../src/integrations/codex/input.js";
import { toolCommand } from "../../../src/integrations/codex/tools.js";

const recorded = JSON.parse(readFileSync(new URL("./events/codex-0.169.0.json", import.meta.url), "utf8")) as { events: Record<string, unknown> };
const event = (name: string) => JSON.stringify(recorded.events[name]);

describe("parseCodexEvent on recorded events", () => {
  it("parses SessionStart for each recorded source", () => {
    for (const source of ["startup", "resume", "compact"]) {
      const e = parseCodexEvent(event(`SessionStart-${source}`));
      expect(e?.hook_event_name).toBe("SessionStart");
      expect(e && "source" in e && e.source).toBe(source);
    }
  });
  it("parses the shell and apply_patch PostToolUse events and finds their command text", () => {
    const bash = parseCodexEvent(event("PostToolUse-Bash"));
    expect(bash?.hook_event_name === "PostToolUse" && bash.tool_name).toBe("Bash");
    expect(bash?.hook_event_name === "PostToolUse" && toolCommand(bash)).toBe("cat pkg/a.txt");
    const patch = parseCodexEvent(event("PostToolUse-apply_patch"));
    expect(patch?.hook_event_name === "PostToolUse" && toolCommand(patch)).toContain("*** Add File: newdir/b.txt");
    const workdir = parseCodexEvent(event("PostToolUse-Bash-workdir"));
    expect(workdir?.cwd).toBe("/TMP/repo/pkg"); // the tool's workdir, not the session cwd
  });
  it("parses UserPromptSubmit", () => {
    const e = parseCodexEvent(event("UserPromptSubmit"));
    expect(e?.hook_event_name === "UserPromptSubmit" && e.prompt).toBe("read the file");
  });
  it("returns null for events agentsmd does not answer", () => {
    for (const name of ["PreToolUse-Bash", "Stop", "PreCompact", "PostCompact"]) expect(parseCodexEvent(event(name))).toBeNull();
  });
  it("rejects what is not a Codex event, naming the problem", () => {
    expect(() => parseCodexEvent("not json")).toThrow(CodexHookInputError);
    expect(() => parseCodexEvent(JSON.stringify({ hook_event_name: "PostToolUse", cwd: "/r" }))).toThrow(/session_id/);
  });
});
