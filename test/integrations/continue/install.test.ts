import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTree } from "../../helpers/tree.js";
import { agentsmdServerOf, withAgentsmdServer, withoutAgentsmdServer } from "../../../src/integrations/continue/config.js";
import { installContinue, serverEntry, uninstallContinue } from "../../../src/integrations/continue/install.js";

const CONFIG = `# my Continue config
name: mine
version: 1.0.0
schema: v1
models:
  - name: local
    provider: openai
    model: m
mcpServers:
  - name: other
    command: other-server
`;

async function home(config: string | null) {
  const tree = await createTree({ "home/.continue/": null, ...(config === null ? {} : { "home/.continue/config.yaml": config }) });
  const where = { home: tree.path("home"), env: { XDG_STATE_HOME: tree.path("state") } };
  return { tree, where, file: tree.path("home/.continue/config.yaml") };
}

describe("install continue", () => {
  it("adds agentsmd's server after the user's, once (idempotent), and uninstall gives the exact bytes back", async () => {
    const { where, file } = await home(CONFIG);
    const first = await installContinue({ ...where, command: "agentsmd" });
    expect(first.changed).toBe(true);
    const text = await readFile(file, "utf8");
    expect(text.startsWith(CONFIG)).toBe(true);
    expect(agentsmdServerOf(text, file)).toEqual({ command: "agentsmd", args: ["mcp", "--preset", "continue"] });
    expect((await installContinue({ ...where, command: "agentsmd" })).changed).toBe(false);
    expect(await readFile(file, "utf8")).toBe(text);
    expect((await uninstallContinue(where)).changed).toBe(true);
    expect(await readFile(file, "utf8")).toBe(CONFIG);
    expect((await uninstallContinue(where)).changed).toBe(false);
  });

  it("uninstall after the user edited the file takes out only agentsmd's entry", async () => {
    const { where, file } = await home(CONFIG);
    await installContinue({ ...where, command: "agentsmd" });
    await writeFile(file, (await readFile(file, "utf8")).replace("name: mine", "name: changed"));
    await uninstallContinue(where);
    expect(await readFile(file, "utf8")).toBe(CONFIG.replace("name: mine", "name: changed"));
  });

  it("replaces an older entry of agentsmd's in place instead of adding a second", () => {
    const older = withAgentsmdServer(CONFIG, "/c.yaml", { command: "old", args: ["mcp"] });
    const newer = withAgentsmdServer(older, "/c.yaml", { command: "node", args: ["/x/bin.js", "mcp"] });
    expect(newer.match(/name: agentsmd/g)).toHaveLength(1);
    expect(agentsmdServerOf(newer, "/c.yaml")).toEqual({ command: "node", args: ["/x/bin.js", "mcp"] });
    expect(withoutAgentsmdServer(newer, "/c.yaml")).toBe(CONFIG);
  });

  it("refuses a missing config (cn would lose its hub assistant) and leaves no file", async () => {
    const { where, file } = await home(null);
    await expect(installContinue({ ...where, command: "agentsmd" })).rejects.toThrow(/no Continue config at .*config\.yaml/);
    await expect(readFile(file, "utf8")).rejects.toThrow();
  });

  it("refuses YAML cn cannot load, and a mcpServers that is not a list, naming the file", async () => {
    const broken = await home("name: [unclosed\n");
    await expect(installContinue({ ...broken.where, command: "agentsmd" })).rejects.toThrow(/config\.yaml.* is not valid YAML/);
    const odd = await home("name: x\nmcpServers: nope\n");
    await expect(installContinue({ ...odd.where, command: "agentsmd" })).rejects.toThrow(/mcpServers is not a list/);
    expect(await readFile(odd.file, "utf8")).toBe("name: x\nmcpServers: nope\n");
  });

  it("writes the config --config-file names", async () => {
    const { tree, where } = await home(null);
    const other = tree.path("cfg.yaml");
    await writeFile(other, "name: e2e\n");
    expect((await installContinue({ ...where, configFile: other, command: "agentsmd" })).file).toBe(other);
    expect(agentsmdServerOf(await readFile(other, "utf8"), other)).not.toBeNull();
  });

  it("runs this package's CLI with node, agentsmd by name from npx's cache, and refuses a --command with shell operators", () => {
    expect(serverEntry(undefined, "/opt/agentsmd/dist/cli/bin.js")).toEqual({
      command: "node",
      args: ["/opt/agentsmd/dist/cli/bin.js", "mcp", "--preset", "continue"],
    });
    expect(serverEntry(undefined, "/h/.npm/_npx/ab12/node_modules/agentsmd/dist/cli/bin.js").command).toBe("agentsmd");
    expect(serverEntry("node '/a b/bin.js'")).toEqual({ command: "node", args: ["/a b/bin.js", "mcp", "--preset", "continue"] });
    expect(() => serverEntry("agentsmd; rm -rf ~")).toThrow(/not a plain command line/);
  });
});
