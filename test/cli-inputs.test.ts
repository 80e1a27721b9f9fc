/**
 * CLI inputs that used to be accepted silently or reported wrongly (smaller defects):
 * a DIR that does not exist, a --config that is a directory, an empty --markers, and `show`'s
 * final newline on a terminal.
 */
import { mkdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createTree, runCli } from "./helpers/tree.js";

describe("CLI inputs", () => {
  it.each(["doctor", "tree"])("%s on a path that does not exist exits 1 once, naming it", async (command) => {
    const tree = await createTree({});
    const missing = tree.path("nope");
    const run = await runCli(["--home", tree.home, command, missing]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`agentsmd: DIR ${missing} is not an existing directory\nfix: pass an existing directory as DIR\n`);
    expect(run.stdout).toBe("");
  });

  it("--config naming a directory says so instead of ENOTREG", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root" });
    await mkdir(tree.path("conf"));
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--config", tree.path("conf"), "show"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`config file ${tree.path("conf")} is not a regular file`);
    expect(run.stderr).not.toContain("ENOTREG");
  });

  it.each(['""', " , "])("--markers %s is a usage error (exit 2), not a silent empty list", async (value) => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root" });
    const run = await runCli(["--home", tree.home, "--cwd", tree.path("repo"), "--markers", value === '""' ? "" : value, "show"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("names no marker");
    expect(run.stdout).toBe("");
  });

  it("show prints the exact bytes when piped and a final newline on a terminal", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "root" });
    const show = async (isTTY: boolean) => {
      const run = await runCli(["--home", tree.home, "show"], { cwd: tree.path("repo"), isTTY });
      expect(run.code).toBe(0);
      return run.stdout;
    };
    const piped = await show(false);
    expect(piped.endsWith("</agents_context>")).toBe(true);
    expect(await show(true)).toBe(`${piped}\n`);
  });

  it("touch --preset gemini prints what Gemini CLI adds to a tool's output, without a newline of its own when piped", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/GEMINI.md": "root", "repo/pkg/GEMINI.md": "pkg rules\n", "repo/pkg/x.ts": "" });
    const touch = async (isTTY: boolean, state: string) => {
      const run = await runCli(["--home", tree.home, "--preset", "gemini", "touch", tree.path("repo/pkg/x.ts"), "--state", tree.path(state)], {
        cwd: tree.path("repo"),
        isTTY,
      });
      expect(run.code).toBe(0);
      return run.stdout;
    };
    const piped = await touch(false, "a.json");
    // Gemini's JIT block ends with its own closing line, trimmed content inside: no trailing newline.
    expect(piped.endsWith(`--- End of Context from: ${tree.path("repo/pkg/GEMINI.md")} ---\n--- End Project Context ---`)).toBe(true);
    expect(await touch(true, "b.json")).toBe(`${piped}\n`);
  });
});
