/**
 * The shared hooks-block editor (Claude Code, Codex, Gemini CLI, Qwen Code settings): only
 * agentsmd's handlers are added or removed; foreign handlers, keys and order stay.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/errors.js";
import { addHookGroups, commandHandlerOf, parseSettingsText, removeHookGroups, type HookGroup } from "../../src/integrations/host/hook-settings.js";

const ours = commandHandlerOf("codex");
const handler = { type: "command", command: "agentsmd hook codex", timeout: 30 };
const GROUPS: HookGroup[] = [
  { event: "SessionStart", handler },
  { event: "PostToolUse", matcher: "Bash|apply_patch", handler },
];
const FOREIGN = { hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "audit.sh" }] }] }, model: "x" };

describe("hook settings", () => {
  it("adds after foreign groups, is idempotent, and removal gives the same object back", () => {
    const added = addHookGroups(FOREIGN, GROUPS, ours);
    expect(added.changed).toBe(true);
    expect(added.settings.hooks).toEqual({
      PostToolUse: [FOREIGN.hooks.PostToolUse[0], { matcher: "Bash|apply_patch", hooks: [handler] }],
      SessionStart: [{ hooks: [handler] }],
    });
    expect(addHookGroups(added.settings, GROUPS, ours).changed).toBe(false);
    const removed = removeHookGroups(added.settings, ours);
    expect(removed.settings).toEqual(FOREIGN);
    expect(JSON.stringify(removed.settings)).toBe(JSON.stringify(FOREIGN));
  });

  it("replaces an older agentsmd handler instead of adding a second, and keeps a foreign handler sharing its group", () => {
    const old = {
      hooks: {
        SessionStart: [
          {
            hooks: [
              { type: "command", command: "node /old/bin.js hook codex", timeout: 5 },
              { type: "command", command: "mine" },
            ],
          },
        ],
      },
    };
    const { settings } = addHookGroups(old, GROUPS, ours);
    expect(settings.hooks).toMatchObject({ SessionStart: [{ hooks: [{ type: "command", command: "mine" }] }, { hooks: [handler] }] });
  });

  it("recognises only its own host's handlers", () => {
    expect(ours({ type: "command", command: "npx agentsmd hook codex" })).toBe(true);
    expect(ours({ type: "command", command: "npx agentsmd hook claude-code" })).toBe(false);
    expect(ours({ type: "command", command: "agentsmd hook codex --x" })).toBe(false);
    expect(ours({ type: "http", command: "agentsmd hook codex" })).toBe(false);
  });

  it("bad documents are ConfigErrors naming the file", () => {
    expect(() => parseSettingsText("[1]", "/h/settings.json")).toThrow(ConfigError);
    expect(() => parseSettingsText("{", "/h/settings.json")).toThrow(/\/h\/settings.json is not valid JSON/);
    expect(() => addHookGroups({ hooks: [] }, GROUPS, ours, "/h/hooks.json")).toThrow(/"hooks" is not an object/);
    expect(() => addHookGroups({ hooks: { SessionStart: {} } }, GROUPS, ours, "/h/hooks.json")).toThrow(/hooks.SessionStart is not an array/);
    expect(parseSettingsText("  \n", "f")).toEqual({});
    expect(parseSettingsText(null, "f")).toBeUndefined();
  });
});
