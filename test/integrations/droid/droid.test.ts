import { describe, expect, it } from "vitest";
import { createTree } from "../../helpers/tree.js";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { droidProfile } from "../../../src/integrations/droid/profile.js";

const read = (cwd: string, file: string) => ({
  session_id: "s1",
  hook_event_name: "PostToolUse",
  cwd,
  transcript_path: "",
  tool_name: "Read",
  tool_input: { file_path: file },
  tool_response: {},
});

describe("droid delivery", () => {
  it("a nested file Droid attached after a Read and then edited: its new text comes with the next Read there (Droid attaches a file once a session), once", async () => {
    const t = await createTree({ "r/.git/": null, "r/AGENTS.md": "ROOT\n", "r/pkg/AGENTS.md": "PKG\n", "r/pkg/a.ts": "x\n" });
    const options = { env: { HOME: t.home, XDG_STATE_HOME: t.path("state") }, home: t.home };
    const cwd = t.path("r");
    await handleHostEvent(droidProfile(), { session_id: "s1", hook_event_name: "SessionStart", cwd, transcript_path: "", source: "startup" }, options);
    expect(await handleHostEvent(droidProfile(), read(cwd, t.path("r/pkg/a.ts")), options)).toBeNull();
    await t.write("r/pkg/AGENTS.md", "PKG EDITED\n");
    const again = await handleHostEvent(droidProfile(), read(cwd, t.path("r/pkg/a.ts")), options);
    expect(again?.hookSpecificOutput.additionalContext).toContain("PKG EDITED");
    expect(again?.hookSpecificOutput.additionalContext).not.toContain("ROOT");
    expect(await handleHostEvent(droidProfile(), read(cwd, t.path("r/pkg/a.ts")), options)).toBeNull();
  });
});
