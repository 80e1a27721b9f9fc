import { describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { handleHostEvent } from "../../../src/integrations/host/deliver.js";
import { qwenProfile } from "../../../src/integrations/qwen/profile.js";
import { createTree, type Tree } from "../../helpers/tree.js";

/** Every state file's bytes, by name: what an event left behind. */
async function stateFiles(tree: Tree): Promise<Record<string, string>> {
  const dir = tree.path("state");
  const names = await readdir(dir).catch(() => [] as string[]);
  return Object.fromEntries(await Promise.all(names.sort().map(async (name) => [name, await readFile(`${dir}/${name}`, "utf8")] as const)));
}

describe("Qwen Code profile", () => {
  it("the empty UserPromptSubmit before a tool-result continuation answers nothing and leaves the state alone; the next real prompt brings the edit", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root rules\n", "r/a/AGENTS.md": "A-OLD\n", "r/a/x.ts": "x\n" });
    try {
      const options = { env: {}, home: tree.home, stateDir: tree.path("state") };
      const event = (fields: Record<string, unknown>) => handleHostEvent(qwenProfile(), { session_id: "q1", cwd: tree.path("r"), ...fields }, options);
      const text = (answer: unknown) => JSON.stringify(answer ?? "");
      await event({ hook_event_name: "SessionStart", source: "startup" });
      const read = await event({ hook_event_name: "PostToolUse", tool_name: "read_file", tool_input: { file_path: tree.path("r/a/x.ts") } });
      expect(text(read)).toContain("A-OLD");
      await tree.write("r/a/AGENTS.md", "A-NEW, longer than before\n");
      const before = await stateFiles(tree);
      expect(Object.keys(before).length).toBeGreaterThan(0);
      expect(await event({ hook_event_name: "UserPromptSubmit", prompt: "" })).toBeNull();
      expect(await stateFiles(tree)).toEqual(before);
      expect(text(await event({ hook_event_name: "UserPromptSubmit", prompt: "go on" }))).toContain("A-NEW");
    } finally {
      await tree.cleanup();
    }
  });
});
