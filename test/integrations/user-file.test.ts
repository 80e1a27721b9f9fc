/**
 * Host configuration files edited by install come back byte for byte on uninstall, through the
 * shared integrations/host/user-file module (exercised with the Claude Code settings editor).
 */
import { lstat, mkdir, readFile, readdir, readlink, symlink, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { installClaudeCode, uninstallClaudeCode } from "../../src/integrations/claude-code/install.js";
import { installEdit, uninstallEdit } from "../../src/integrations/host/user-file.js";
import { createTree, type Tree } from "../helpers/tree.js";

async function setup(spec: Record<string, string | null> = {}) {
  const tree = await createTree({ "repo/.git/": null, ...spec });
  const options = {
    scope: "user" as const,
    projectDir: tree.path("repo"),
    home: tree.home,
    env: {},
    recordDir: tree.path("records"),
    command: "agentsmd hook claude-code",
  };
  const file = `${tree.home}/.claude/settings.json`;
  return { tree, options, file };
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe("install records: uninstall restores the user's file exactly", () => {
  it("a file in the user's own formatting (tabs, key order, no final newline) comes back byte for byte", async () => {
    const { tree, options, file } = await setup();
    const original = '{\n\t"model":   "opus",\n\t"env": {"A": "1"}\n}';
    await mkdir(`${tree.home}/.claude`, { recursive: true });
    await writeFile(file, original);
    expect((await installClaudeCode(options)).changed).toBe(true);
    expect(await readFile(file, "utf8")).not.toBe(original);
    expect((await installClaudeCode(options)).changed).toBe(false); // idempotent
    expect((await uninstallClaudeCode(options)).changed).toBe(true);
    expect(await readFile(file, "utf8")).toBe(original);
    expect(await readdir(tree.path("records"))).toEqual([]);
  });

  it("a file install created is removed by uninstall, with the directory left as found", async () => {
    const { options, file } = await setup();
    await installClaudeCode(options);
    expect(JSON.parse(await readFile(file, "utf8")).hooks.SessionStart).toHaveLength(1);
    await uninstallClaudeCode(options);
    expect(await exists(file)).toBe(false);
  });

  it("edits the user made after install are kept; only agentsmd's hooks leave", async () => {
    const { options, file } = await setup();
    await installClaudeCode(options);
    const edited = JSON.parse(await readFile(file, "utf8"));
    edited.model = "sonnet";
    await writeFile(file, JSON.stringify(edited));
    await uninstallClaudeCode(options);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ model: "sonnet" });
  });

  it("a created file that holds only an empty object after uninstall is removed, not left as {}", async () => {
    const { options, file } = await setup();
    await installClaudeCode(options);
    await writeFile(file, `${JSON.stringify(JSON.parse(await readFile(file, "utf8")))}\n`); // reformatted by another tool
    await uninstallClaudeCode(options);
    expect(await exists(file)).toBe(false);
  });

  it("a symlinked settings.json (dotfiles) stays a symlink; its target is edited and restored", async () => {
    const { tree, options, file } = await setup({ "dotfiles/claude-settings.json": '{ "model": "opus" }\n' });
    await mkdir(`${tree.home}/.claude`, { recursive: true });
    await symlink(tree.path("dotfiles/claude-settings.json"), file);
    await installClaudeCode(options);
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect(await readlink(file)).toBe(tree.path("dotfiles/claude-settings.json"));
    expect(JSON.parse(await readFile(tree.path("dotfiles/claude-settings.json"), "utf8")).hooks).toBeDefined();
    await uninstallClaudeCode(options);
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect(await readFile(tree.path("dotfiles/claude-settings.json"), "utf8")).toBe('{ "model": "opus" }\n');
  });

  it("a damaged or missing record still lets uninstall take agentsmd's part out", async () => {
    const { tree, options, file } = await setup();
    await mkdir(`${tree.home}/.claude`, { recursive: true });
    await writeFile(file, '{"model":"opus"}');
    await installClaudeCode(options);
    for (const name of await readdir(tree.path("records"))) await writeFile(tree.path(`records/${name}`), "{not json");
    await uninstallClaudeCode(options);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ model: "opus" });
  });

  it("a record from an install the user undid by hand does not resurrect old bytes", async () => {
    const tree: Tree = await createTree({});
    const file = tree.path("conf.toml");
    const opts = { env: {}, home: tree.home, recordDir: tree.path("records") };
    await writeFile(file, "a = 1\n");
    await installEdit(file, (text) => `${text ?? ""}ours = true\n`, opts);
    await writeFile(file, "a = 2\n"); // the user removed our line and changed theirs
    await installEdit(file, (text) => `${text ?? ""}ours = true\n`, opts);
    await uninstallEdit(file, (text) => text.replace("ours = true\n", ""), opts);
    expect(await readFile(file, "utf8")).toBe("a = 2\n");
  });
});
