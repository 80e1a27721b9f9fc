/**
 * The docs cannot go stale: every ```console example in README.md and docs/**\/*.md runs with the
 * built CLI from the repository root (so on examples/monorepo), in a clean environment (an empty
 * home, no agent settings), and must print exactly what the docs show (the form:
 * test/helpers/console-examples.ts). A change that alters an example's output fails here until the
 * docs follow it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleExamples, mapArgument, normaliseMtimes, normaliseOutput, type ConsoleExample } from "./helpers/console-examples.js";
import { ensureBuilt, REPO, runBin } from "./helpers/bin.js";
import { presetNames } from "../src/presets/table.js";
import { markdownAnchors, markdownLinks } from "./helpers/markdown-links.js";

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

const files = [join(REPO, "README.md"), ...markdownFiles(join(REPO, "docs"))];
const examples: ConsoleExample[] = files.flatMap((file) => consoleExamples(relative(REPO, file), readFileSync(file, "utf8")));
const scratchRoot = mkdtempSync(join(tmpdir(), "agentsmd-docs-"));

beforeAll(ensureBuilt, 180_000);
afterAll(() => rmSync(scratchRoot, { recursive: true, force: true }));

describe("docs examples", () => {
  it("finds the console examples (the README has some; so do the inspect and loading-rules pages)", () => {
    const where = new Set(examples.map((example) => example.file));
    expect(where).toContain("README.md");
    expect(where).toContain("docs/inspect.md");
    expect(where).toContain("docs/loading-rules.md");
  });

  it.each(examples.map((example) => [`${example.file}:${example.line}`, example] as const))("%s prints what the docs show", async (_name, example) => {
    const scratch = mkdtempSync(join(scratchRoot, "example-"));
    const home = join(scratch, ".home");
    const normalise = { repo: REPO, scratch };
    const env = {
      HOME: home,
      XDG_STATE_HOME: join(home, ".local/state"),
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
    };
    for (const command of example.commands) {
      const run = await runBin(
        command.argv.map((arg) => mapArgument(arg, normalise)),
        { cwd: REPO, env },
      );
      const where = `${example.file}:${command.line}: $ agentsmd ${command.argv.join(" ")}`;
      expect(run.stderr, `${where} wrote to stderr`).toBe("");
      expect(run.code, `${where} exited ${run.code}`).toBe(0);
      expect(normaliseOutput(run.stdout, normalise), `${where}: the output differs from the docs; update the example`).toBe(normaliseMtimes(command.expected));
    }
  });
});

describe("reference tables", () => {
  it("docs/presets.md has a row for every preset", () => {
    const page = readFileSync(join(REPO, "docs/presets.md"), "utf8");
    for (const name of presetNames())
      expect(page, `docs/presets.md: add a row for preset ${name}`).toMatch(new RegExp(`^\\| \`${name}\`( \\(default\\))? \\|`, "m"));
  });

  it("the README's CLI table has a row for every command `agentsmd --help` lists", async () => {
    const help = await runBin(["--help"], { cwd: REPO });
    const commands = [...help.stdout.split("Commands:")[1]!.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1]!).filter((name) => name !== "help");
    expect(commands.length).toBeGreaterThan(10);
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    for (const command of commands) expect(readme, `README.md: add \`${command}\` to the CLI table`).toMatch(new RegExp(`^\\| \`${command}[ \`]`, "m"));
  });
});

describe("links between the pages", () => {
  const pages = [...files, join(REPO, "AGENTS.md")];
  it.each(pages.map((file) => [relative(REPO, file), file] as const))("%s links only to files and headings that exist", (name, file) => {
    for (const link of markdownLinks(readFileSync(file, "utf8"))) {
      const target = link.path === "" ? file : resolve(dirname(file), link.path);
      expect(existsSync(target), `${name}:${link.line}: ${link.path} does not exist`).toBe(true);
      if (link.anchor === "" || !target.endsWith(".md") || !statSync(target).isFile()) continue;
      expect([...markdownAnchors(readFileSync(target, "utf8"))], `${name}:${link.line}: no heading for #${link.anchor} in ${relative(REPO, target)}`).toContain(
        link.anchor,
      );
    }
  });
});

describe("citations in the source", () => {
  function sourceFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return entry.name.endsWith(".ts") ? [path] : [];
    });
  }

  it("every docs/...md#anchor a source file cites names a page and a heading that exist", () => {
    let cited = 0;
    for (const file of sourceFiles(join(REPO, "src"))) {
      for (const match of readFileSync(file, "utf8").matchAll(/(?<![@/\w"'])docs\/[\w/.-]+\.md(?:#[\w-]+)?/g)) {
        const [page, anchor] = match[0].split("#");
        const where = `${relative(REPO, file)} cites ${match[0]}`;
        expect(existsSync(join(REPO, page!)), `${where}: no such page`).toBe(true);
        if (anchor) expect([...markdownAnchors(readFileSync(join(REPO, page!), "utf8"))], `${where}: no such heading`).toContain(anchor);
        cited++;
      }
    }
    expect(cited).toBeGreaterThan(20);
  });
});
