import { describe, expect, it } from "vitest";
import { readFile, stat } from "node:fs/promises";
import { createTree, runCli } from "../../helpers/tree.js";

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("install qwen", () => {
  it("user scope: hooks in ~/.qwen/settings.json (seconds), idempotent; uninstall restores the exact bytes", async () => {
    const original =
      '{\n\t"model": { "name": "qwen3-coder-plus" },\n\t"hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ] }\n}\n';
    const tree = await createTree({ ".test-home/.qwen/settings.json": original });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const first = await runCli(["--home", tree.home, "install", "qwen", "--command", "agentsmd"], { env });
    expect(first.code, first.stderr).toBe(0);
    const settings = JSON.parse(await readFile(tree.path(".test-home/.qwen/settings.json"), "utf8"));
    expect(Object.keys(settings.hooks)).toEqual(["Stop", "SessionStart", "PostToolUse", "UserPromptSubmit"]);
    expect(settings.hooks.SessionStart).toEqual([{ hooks: [{ type: "command", command: "agentsmd hook qwen", timeout: 30 }] }]);
    expect(settings.hooks.PostToolUse[0].matcher).toBe("^(read_file|write_file|edit|notebook_edit|list_directory|glob|grep_search)$");
    expect((await runCli(["--home", tree.home, "install", "qwen", "--command", "agentsmd"], { env })).stdout).toContain("nothing changed");
    expect((await runCli(["--home", tree.home, "uninstall", "qwen"], { env })).stdout).toContain("removed the agentsmd hooks");
    expect(await readFile(tree.path(".test-home/.qwen/settings.json"), "utf8")).toBe(original);
    expect((await runCli(["--home", tree.home, "uninstall", "qwen"], { env })).stdout).toContain("nothing changed");
  });

  it("$QWEN_HOME holds the user settings; a settings file install created is removed", async () => {
    const tree = await createTree({});
    const env = { HOME: tree.home, QWEN_HOME: tree.path("qh"), XDG_STATE_HOME: tree.path("state") };
    expect((await runCli(["install", "qwen"], { env })).code).toBe(0);
    expect(await exists(tree.path("qh/settings.json"))).toBe(true);
    expect(await exists(tree.path(".test-home/.qwen"))).toBe(false);
    expect((await runCli(["uninstall", "qwen"], { env })).code).toBe(0);
    expect(await exists(tree.path("qh/settings.json"))).toBe(false);
  });

  it("project scope writes <cwd>/.qwen/settings.json; invalid JSON is left alone with the path and the fix", async () => {
    const tree = await createTree({ "repo/.qwen/settings.json": "{ not json" });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const result = await runCli(["--cwd", tree.path("repo"), "install", "qwen", "--scope", "project"], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(tree.path("repo/.qwen/settings.json"));
    expect(result.stderr).toContain("fix");
    expect(await readFile(tree.path("repo/.qwen/settings.json"), "utf8")).toBe("{ not json");
  });
});
