/**
 * `agentsmd install codex` / `uninstall codex` without a codex binary (trust written into
 * config.toml): merge, idempotence, byte-for-byte restore, the trust hash, doctor's findings.
 * (The app-server path and the hash against Codex's own `hooks/list` are proven in e2e/codex-hooks.)
 */
import { readFile, writeFile } from "node:fs/promises";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import {
  addCodexHooks,
  codexHookFindings,
  codexHookStatus,
  installCodex,
  removeCodexHooks,
  uninstallCodex,
  withoutTrust,
  withTrust,
} from "../../../src/integrations/codex/install.js";
import { codexHookHash, codexHookKey } from "../../../src/integrations/codex/trust.js";
import { createTree, runCli } from "../../helpers/tree.js";

/** Install records go to the tree's own state dir, never the real home. */
const homes = (tree: { home: string }) => ({ home: tree.home, env: { XDG_STATE_HOME: `${tree.home}/.state` } });

const CMD = "/usr/bin/node /opt/agentsmd/dist/cli/bin.js hook codex";

describe("codexHookHash", () => {
  it("reproduces hashes codex-cli 0.169.0 reported through hooks/list", () => {
    // recorded with `codex app-server` hooks/list for these two handlers
    expect(codexHookHash("PostToolUse", "Bash|apply_patch", { type: "command", command: "echo hi", timeout: 30 })).toBe(
      "sha256:efdec6e8e2d035c9131d4bf4f382a794970f681a910133f18c5cf4c33c9e9ffe",
    );
    expect(codexHookHash("SessionStart", undefined, { type: "command", command: "echo ss" })).toBe(
      "sha256:1a5bd5785b6a2bf20f184858782ec8477fee578af28fc709af8d9d710fb55215",
    );
    expect(codexHookKey("/h/hooks.json", "UserPromptSubmit", 2, 1)).toBe("/h/hooks.json:user_prompt_submit:2:1");
  });
});

describe("hooks.json merge", () => {
  it("appends agentsmd's groups after the user's, idempotently, and removes exactly them", () => {
    const user = { hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "lint" }] }] }, other: 1 };
    const added = addCodexHooks(user, CMD);
    expect(added.changed).toBe(true);
    expect((added.file.hooks as Record<string, unknown[]>).PostToolUse).toEqual([
      user.hooks.PostToolUse[0],
      { matcher: "Bash|apply_patch", hooks: [{ type: "command", command: CMD, timeout: 30 }] },
    ]);
    expect(addCodexHooks(added.file, CMD).changed).toBe(false);
    const removed = removeCodexHooks(added.file);
    expect(removed.file).toEqual(user);
  });
});

describe("config.toml trust", () => {
  const entries = [{ key: "/h/.codex/hooks.json:session_start:0:0", hash: "sha256:aa" }];
  it("appends tables and keeps the rest byte for byte; removal gives the text back", () => {
    const text = '# mine\nmodel = "x"\n\n[profiles.a]\nmodel = "y"\n';
    const trusted = withTrust(text, entries);
    expect(trusted.startsWith(text)).toBe(true);
    expect((parse(trusted) as any).hooks.state["/h/.codex/hooks.json:session_start:0:0"].trusted_hash).toBe("sha256:aa");
    expect(withTrust(trusted, entries)).toBe(trusted);
    expect(withoutTrust(trusted, [entries[0]!.key])).toBe(text);
  });
  it("rewrites a stale hash, and handles an inline hooks.state", () => {
    const stale = withTrust("", [{ key: entries[0]!.key, hash: "sha256:old" }]);
    expect((parse(withTrust(stale, entries)) as any).hooks.state[entries[0]!.key].trusted_hash).toBe("sha256:aa");
    const inline = 'hooks = { state = { "k" = { trusted_hash = "x" } } }\n';
    const both = parse(withTrust(inline, entries)) as any;
    expect(both.hooks.state.k.trusted_hash).toBe("x");
    expect(both.hooks.state[entries[0]!.key].trusted_hash).toBe("sha256:aa");
  });
});

describe("installCodex / uninstallCodex (no codex binary)", () => {
  it("installs, trusts, is idempotent, and uninstall restores both files byte for byte", async () => {
    const tree = await createTree({});
    const codexHome = tree.path(".codex");
    const hooksBefore = '{ "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "notify" } ] } ] } }\n';
    const configBefore = '# my config\nmodel = "gpt-5.5"\n';
    await tree.write(".codex/hooks.json", hooksBefore);
    await tree.write(".codex/config.toml", configBefore);

    const first = await installCodex({ ...homes(tree), codexHome, command: CMD, trust: true, codexBin: null });
    expect(first.changed).toBe(true);
    expect(first.trustedVia).toBe("config.toml");
    expect(first.trusted.map((t) => t.event).sort()).toEqual(["PostToolUse", "SessionStart", "UserPromptSubmit"]);
    expect(first.trusted.map((t) => t.key)).toContain(`${codexHome}/hooks.json:post_tool_use:0:0`);
    const status = await codexHookStatus({ codexHome });
    expect(status.map((s) => s.trust)).toEqual(["trusted", "trusted", "trusted"]);
    expect(await codexHookFindings({ codexHome })).toEqual([]);

    const hooksAfter = await readFile(`${codexHome}/hooks.json`, "utf8");
    const configAfter = await readFile(`${codexHome}/config.toml`, "utf8");
    const again = await installCodex({ ...homes(tree), codexHome, command: CMD, trust: true, codexBin: null });
    expect(again.changed).toBe(false);
    expect(await readFile(`${codexHome}/hooks.json`, "utf8")).toBe(hooksAfter);
    expect(await readFile(`${codexHome}/config.toml`, "utf8")).toBe(configAfter);

    const un = await uninstallCodex({ ...homes(tree), codexHome });
    expect(un.changed.sort()).toEqual([`${codexHome}/config.toml`, `${codexHome}/hooks.json`]);
    expect(await readFile(`${codexHome}/hooks.json`, "utf8")).toBe(hooksBefore);
    expect(await readFile(`${codexHome}/config.toml`, "utf8")).toBe(configBefore);
  });

  it("removes files it created; edits surgically when the user changed them since", async () => {
    const tree = await createTree({});
    const codexHome = tree.path(".codex");
    await installCodex({ ...homes(tree), codexHome, command: CMD, trust: true, codexBin: null });
    const un = await uninstallCodex({ ...homes(tree), codexHome });
    expect(un.changed.sort()).toEqual([`${codexHome}/config.toml`, `${codexHome}/hooks.json`]);
    await expect(readFile(`${codexHome}/hooks.json`)).rejects.toThrow(); // created by install: removed
    await expect(readFile(`${codexHome}/config.toml`)).rejects.toThrow();

    await installCodex({ ...homes(tree), codexHome, command: CMD, trust: true, codexBin: null });
    await writeFile(`${codexHome}/config.toml`, `${await readFile(`${codexHome}/config.toml`, "utf8")}\n[tui]\nanimations = false\n`);
    const un2 = await uninstallCodex({ ...homes(tree), codexHome });
    expect(un2.changed.sort()).toEqual([`${codexHome}/config.toml`, `${codexHome}/hooks.json`]);
    const left = parse(await readFile(`${codexHome}/config.toml`, "utf8")) as any;
    expect(left).toEqual({ tui: { animations: false } });
  });

  it("refuses a broken hooks.json or config.toml, naming the file and leaving it unchanged", async () => {
    const tree = await createTree({ ".codex/hooks.json": "{ nope" });
    const codexHome = tree.path(".codex");
    await expect(installCodex({ ...homes(tree), codexHome, command: CMD, codexBin: null })).rejects.toThrow(/hooks\.json is not valid JSON/);
    expect(await readFile(`${codexHome}/hooks.json`, "utf8")).toBe("{ nope");
    const tree2 = await createTree({ ".codex/config.toml": "model = = 1" });
    await expect(installCodex({ ...homes(tree2), codexHome: tree2.path(".codex"), command: CMD, trust: true, codexBin: null })).rejects.toThrow(
      /config\.toml is not valid TOML/,
    );
  });
});

describe("doctor and the CLI", () => {
  it("doctor reports untrusted and stale agentsmd hooks with the fix", async () => {
    const tree = await createTree({ "repo/AGENTS.md": "x\n" });
    const codexHome = tree.path(".codex");
    await installCodex({ ...homes(tree), codexHome, command: CMD, codexBin: null });
    expect((await codexHookFindings({ codexHome })).map((f) => f.code)).toEqual(["codex-hook-untrusted"]);
    await installCodex({ ...homes(tree), codexHome, command: CMD, trust: true, codexBin: null });
    await installCodex({ ...homes(tree), codexHome, command: CMD.replace("/opt/", "/opt2/"), codexBin: null }); // an upgrade moved the CLI
    const findings = await codexHookFindings({ codexHome });
    expect(findings.map((f) => f.code)).toEqual(["codex-hook-modified"]);
    expect(findings[0]!.fix).toContain("agentsmd install codex --trust");

    const run = await runCli(["doctor", tree.path("repo")], { env: { HOME: tree.home, CODEX_HOME: codexHome } });
    expect(run.stdout + run.stderr).toContain("codex-hook-modified");
  });

  it("install codex prints how to trust without --trust, and exits 0", async () => {
    const tree = await createTree({});
    const run = await runCli(["install", "codex", "--command", "agentsmd"], { env: { HOME: tree.home, PATH: "/nonexistent" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("/hooks");
    expect(run.stdout).toContain("agentsmd install codex --trust");
    expect(JSON.parse(await readFile(`${tree.home}/.codex/hooks.json`, "utf8")).hooks.SessionStart[0].hooks[0].command).toBe("agentsmd hook codex");
    const trust = await runCli(["install", "codex", "--command", "agentsmd", "--trust"], { env: { HOME: tree.home, PATH: "/nonexistent" } });
    expect(trust.code).toBe(0);
    expect(trust.stdout).toMatch(/trusted 3 hooks .*hashes computed by agentsmd/);
    const un = await runCli(["uninstall", "codex"], { env: { HOME: tree.home } });
    expect(un.code).toBe(0);
    await expect(readFile(`${tree.home}/.codex/hooks.json`)).rejects.toThrow();
  });
});
