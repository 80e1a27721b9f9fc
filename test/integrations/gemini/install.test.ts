import { describe, expect, it } from "vitest";
import { readFile, readdir, stat } from "node:fs/promises";
import { createTree, runCli } from "../../helpers/tree.js";
import { geminiExtensionDir } from "../../../src/integrations/gemini/install.js";

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("install gemini", () => {
  it("user scope: an extension folder with its manifest and hooks (milliseconds), idempotent; uninstall leaves no trace", async () => {
    const tree = await createTree({ ".test-home/.gemini/settings.json": '{"ui":{"theme":"x"}}' });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const settingsBefore = await readFile(tree.path(".test-home/.gemini/settings.json"), "utf8");
    const first = await runCli(["--home", tree.home, "install", "gemini", "--command", "agentsmd"], { env });
    expect(first.code, first.stderr).toBe(0);
    const dir = geminiExtensionDir(tree.home, {});
    const manifest = JSON.parse(await readFile(`${dir}/gemini-extension.json`, "utf8"));
    expect(manifest.name).toBe("agentsmd");
    const hooks = JSON.parse(await readFile(`${dir}/hooks/hooks.json`, "utf8")).hooks;
    expect(Object.keys(hooks)).toEqual(["SessionStart", "BeforeAgent", "AfterTool", "PreCompress"]);
    expect(hooks.AfterTool[0].matcher).toBe("^(read_file|write_file|replace|list_directory|read_many_files|glob|grep_search)$");
    for (const groups of Object.values(hooks) as any[]) expect(groups[0].hooks).toEqual([{ type: "command", command: "agentsmd hook gemini", timeout: 30000 }]);
    const again = await runCli(["--home", tree.home, "install", "gemini", "--command", "agentsmd"], { env });
    expect(again.stdout).toContain("nothing changed");
    const gone = await runCli(["--home", tree.home, "uninstall", "gemini"], { env });
    expect(gone.code, gone.stderr).toBe(0);
    expect(await exists(dir)).toBe(false);
    expect(await readdir(tree.path(".test-home/.gemini"))).toEqual(["settings.json"]);
    expect(await readFile(tree.path(".test-home/.gemini/settings.json"), "utf8")).toBe(settingsBefore);
  });

  it("user scope honours GEMINI_CLI_HOME, and removes the .gemini folder it created", async () => {
    const tree = await createTree({});
    const env = { HOME: tree.home, GEMINI_CLI_HOME: tree.path("gh"), XDG_STATE_HOME: tree.path("state") };
    expect((await runCli(["install", "gemini"], { env })).code).toBe(0);
    expect(await exists(tree.path("gh/.gemini/extensions/agentsmd/hooks/hooks.json"))).toBe(true);
    expect(await exists(tree.path(".test-home/.gemini"))).toBe(false);
    expect((await runCli(["uninstall", "gemini"], { env })).code).toBe(0);
    expect(await exists(tree.path("gh/.gemini"))).toBe(false);
  });

  it("project scope: merged into .gemini/settings.json; uninstall restores the bytes; a file edited since loses only agentsmd's entries", async () => {
    const original =
      '{\n    "hooks": {"AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "prettier"}]}]},\n    "context": {"fileName": ["AGENTS.md"]}\n}';
    const tree = await createTree({ "repo/.gemini/settings.json": original });
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const args = ["--cwd", tree.path("repo"), "install", "gemini", "--scope", "project", "--command", "agentsmd"];
    expect((await runCli(args, { env })).code).toBe(0);
    const merged = JSON.parse(await readFile(tree.path("repo/.gemini/settings.json"), "utf8"));
    expect(merged.hooks.AfterTool).toHaveLength(2);
    expect(merged.context).toEqual({ fileName: ["AGENTS.md"] });
    expect((await runCli(["--cwd", tree.path("repo"), "uninstall", "gemini", "--scope", "project"], { env })).code).toBe(0);
    expect(await readFile(tree.path("repo/.gemini/settings.json"), "utf8")).toBe(original);

    expect((await runCli(args, { env })).code).toBe(0);
    const edited = JSON.parse(await readFile(tree.path("repo/.gemini/settings.json"), "utf8"));
    edited.model = { name: "gemini-2.5-pro" };
    await tree.write("repo/.gemini/settings.json", JSON.stringify(edited));
    expect((await runCli(["--cwd", tree.path("repo"), "uninstall", "gemini", "--scope", "project"], { env })).code).toBe(0);
    const after = JSON.parse(await readFile(tree.path("repo/.gemini/settings.json"), "utf8"));
    expect(after).toEqual({ ...JSON.parse(original), model: { name: "gemini-2.5-pro" } });
  });

  it("--scope local is refused with the scopes Gemini has", async () => {
    const tree = await createTree({});
    const result = await runCli(["install", "gemini", "--scope", "local"], { env: { HOME: tree.home } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("no local scope");
  });
});
