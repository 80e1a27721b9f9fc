import { describe, expect, it } from "vitest";
import { isIgnored, parseGitignore, type IgnoreFrame } from "../src/inspect/gitignore.js";

const frame = (dir: string, text: string): IgnoreFrame => ({ dir, rules: parseGitignore(text) });

describe("parseGitignore / isIgnored", () => {
  it("skips blank lines and comments, unescapes \\# and \\!", () => {
    const rules = parseGitignore("\n# comment\n\\#hash\n\\!bang\n");
    expect(rules.map((rule) => [rule.pattern, rule.negate])).toEqual([
      ["#hash", false],
      ["!bang", false],
    ]);
  });

  it("matches a slash-free pattern at any depth, by name", () => {
    const frames = [frame("/r", "*.log\nbuild")];
    expect(isIgnored(frames, "/r/a/b/x.log", false)).toBe(true);
    expect(isIgnored(frames, "/r/deep/build", true)).toBe(true);
    expect(isIgnored(frames, "/r/x.txt", false)).toBe(false);
  });

  it("anchors patterns with a slash to the file's directory", () => {
    const frames = [frame("/r", "/out\ndocs/gen")];
    expect(isIgnored(frames, "/r/out", true)).toBe(true);
    expect(isIgnored(frames, "/r/a/out", true)).toBe(false);
    expect(isIgnored(frames, "/r/docs/gen", true)).toBe(true);
    expect(isIgnored(frames, "/r/a/docs/gen", true)).toBe(false);
  });

  it("applies a trailing slash to directories only", () => {
    const frames = [frame("/r", "cache/")];
    expect(isIgnored(frames, "/r/cache", true)).toBe(true);
    expect(isIgnored(frames, "/r/cache", false)).toBe(false);
  });

  it("lets the last matching pattern win, so ! re-includes", () => {
    const frames = [frame("/r", "*.md\n!AGENTS.md")];
    expect(isIgnored(frames, "/r/notes.md", false)).toBe(true);
    expect(isIgnored(frames, "/r/AGENTS.md", false)).toBe(false);
  });

  it("gives a deeper .gitignore precedence over an outer one", () => {
    const frames = [frame("/r", "gen/"), frame("/r/pkg", "!gen/")];
    expect(isIgnored(frames, "/r/pkg/gen", true)).toBe(false);
    expect(isIgnored(frames, "/r/other/gen", true)).toBe(true);
  });

  it("supports ** and [!x] classes", () => {
    const frames = [frame("/r", "a/**/z\n[!k]eep")];
    expect(isIgnored(frames, "/r/a/b/c/z", false)).toBe(true);
    expect(isIgnored(frames, "/r/a/z", false)).toBe(true);
    expect(isIgnored(frames, "/r/deep", false)).toBe(true);
    expect(isIgnored(frames, "/r/keep", false)).toBe(false);
  });

  it("keeps an escaped trailing space and drops plain ones", () => {
    expect(parseGitignore("name   \nspace\\ ").map((rule) => rule.pattern)).toEqual(["name", "space "]);
  });
});
