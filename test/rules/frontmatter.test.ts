import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../src/load/rules/frontmatter.js";

describe("parseFrontmatter", () => {
  it("parses a YAML header and keeps unknown keys", () => {
    const parsed = parseFrontmatter("---\napplyTo: '**/*.ts'\nowner: team-a\nweird:\n  - 1\n---\nUse strict.\n");
    expect(parsed.present).toBe(true);
    expect(parsed.error).toBeUndefined();
    expect(parsed.data).toEqual({ applyTo: "**/*.ts", owner: "team-a", weird: [1] });
    expect(parsed.body).toBe("Use strict.\n");
    expect(parsed.bodyLine).toBe(7);
  });

  it("reads a file without a header as all body", () => {
    const parsed = parseFrontmatter("# Title\n---\nnot a header\n");
    expect(parsed).toMatchObject({ present: false, data: {}, body: "# Title\n---\nnot a header\n", bodyLine: 1 });
  });

  it("normalises CRLF and a BOM", () => {
    const parsed = parseFrontmatter("\uFEFF---\r\npaths: src/**\r\n---\r\nbody\r\n", ["paths"]);
    expect(parsed.data).toEqual({ paths: "src/**" });
    expect(parsed.body).toBe("body\n");
  });

  it("reports a malformed header with the line of the mistake", () => {
    const parsed = parseFrontmatter("---\ndescription: ok\nalwaysApply: true\nglobs: [a, b\nname: x\n---\nbody\n");
    expect(parsed.error).toBeDefined();
    expect(parsed.error!.line).toBeGreaterThanOrEqual(4);
    expect(parsed.error!.line).toBeLessThanOrEqual(6);
    expect(parsed.data).toEqual({});
    expect(parsed.body).toBe("body\n");
  });

  it("reports duplicate keys at their line", () => {
    const parsed = parseFrontmatter("---\na: 1\nb: 2\na: 3\n---\n");
    expect(parsed.error?.line).toBe(4);
    expect(parsed.error?.message).toMatch(/unique|duplicate/i);
  });

  it("reports an unclosed header at line 1 and keeps the text as body", () => {
    const parsed = parseFrontmatter("---\nglobs: a\nno end\n");
    expect(parsed.error).toEqual({ line: 1, message: expect.stringContaining("never closed") });
  });

  it("reports a header that is not a mapping", () => {
    expect(parseFrontmatter("---\n- a\n- b\n---\nx").error?.message).toMatch(/mapping/);
  });

  it("takes the unquoted globs Cursor and Windsurf write as raw text", () => {
    expect(parseFrontmatter("---\nglobs: *.ts\nalwaysApply: false\n---\nx", ["globs"]).data).toEqual({ globs: "*.ts", alwaysApply: false });
    expect(parseFrontmatter('---\nglobs: "a/**", "b/**"\n---\nx', ["globs"]).data).toEqual({ globs: '"a/**", "b/**"' });
    expect(parseFrontmatter("---\nglobs: **/*.{ts,tsx}\n---\nx", ["globs"]).data).toEqual({ globs: "**/*.{ts,tsx}" });
    // a quoted scalar and a flow list stay YAML
    expect(parseFrontmatter('---\nglobs: "src/**"\n---\nx', ["globs"]).data).toEqual({ globs: "src/**" });
    expect(parseFrontmatter("---\nglobs: ['a', \"b\"]\n---\nx", ["globs"]).data).toEqual({ globs: ["a", "b"] });
    // without the leniency the same header is an error
    expect(parseFrontmatter("---\nglobs: *.ts\n---\nx").error).toBeDefined();
  });

  it("refuses alias bombs instead of expanding them", () => {
    const bomb = ["---", "a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 0; i < 8; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      );
    bomb.push("---", "x");
    const parsed = parseFrontmatter(bomb.join("\n"));
    expect(parsed.error).toBeDefined();
  });
});
