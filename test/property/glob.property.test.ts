/**
 * The linear glob matcher (src/core/glob.ts) against picomatch `{dot: true}` on small random
 * patterns and paths it must agree on; and its segment matcher against the RegExp the Codex shell
 * globs used before (bash without globstar). `npm run fuzz` runs FUZZ_RUNS.
 */
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlob, compileSegmentGlob, GlobSyntaxError } from "../../src/core/glob.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

const nameArb = fc.stringMatching(/^[ab.]{1,5}$/).filter((name) => name !== "." && name !== "..");
const pathArb = fc.array(nameArb, { minLength: 1, maxLength: 5 }).map((names) => names.join("/"));

// `[!a]` is left out: picomatch reads it as the class of `!` and `a`; here it is negation, as in
// bash and POSIX (the shell test below pins it).
const unitArb = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "[^a]", "[a-b]", "{a,b}", "{a,.b}", "(a|b)", "@(b|ab)", "?(a)", "{a..b}", "\\*");
const segmentArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(unitArb, { minLength: 1, maxLength: 4 }).map((units) => units.join("")) },
  { weight: 1, arbitrary: fc.constant("**") },
);
// Left out, where picomatch's RegExp translation shows through: a `**` inside a segment (picomatch
// lets some cross a slash; here it is `*`), `?`/`*`/`+` right after a group (a RegExp quantifier
// there), and a group right before a trailing `/**` (whether `/**` may match nothing then depends
// on picomatch's token before it, here on the group's expansion), and a literal `.` anywhere in a
// pattern with a `{a..b}` range (picomatch then leaves some dots unescaped: `x.{a..b}` becomes
// `x.[a-b]`, so it matches `xza`; the case below pins our answer), and a segment that only `?(a)`
// makes up (it may match nothing; picomatch then lets `a/**/?(a)` match `a`, though not `a/**/*`).
const globArb = fc
  .array(segmentArb, { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join("/"))
  .filter(
    (glob) =>
      glob.split("/").every((segment) => segment === "**" || !segment.includes("**")) &&
      !/\)[?*+]/.test(glob) &&
      !/\)\/\*\*/.test(glob) &&
      !(glob.includes("{a..b}") && glob.replaceAll("{a..b}", "").includes(".")) &&
      !glob.split("/").some((segment) => /^(\?\(a\))+$/.test(segment)),
  );

describe("the linear glob matcher agrees with picomatch {dot: true}", () => {
  it("on random patterns of stars, classes, braces and groups over random paths", () => {
    fc.assert(
      fc.property(globArb, pathArb, (glob, path) => {
        let test: (path: string) => boolean;
        try {
          test = compileGlob(glob);
        } catch (error) {
          // refused: an extglob that repeats or negates (a `*` or `?` before a group is one)
          expect(error).toBeInstanceOf(GlobSyntaxError);
          expect(String(error)).toMatch(/extglob|more than/);
          return;
        }
        expect(test(path)).toBe(picomatch(glob, { dot: true })(path));
      }),
      { numRuns: RUNS },
    );
  });

  it("on the usual rule globs", () => {
    const cases: Array<[string, string]> = [
      ["src/**/*.{ts,tsx}", "src/a/b.tsx"],
      ["src/**", "src"],
      ["*/**", "a"],
      ["**/*.test.ts", "x.test.ts"],
      ["app/(marketing)/**", "app/marketing/page.tsx"],
      ["app/(marketing)/**", "app/(marketing)/page.tsx"],
      ["[[:alpha:]]*.md", "README.md"],
      [".github/**", ".github/workflows/ci.yml"],
      ["**", ".env"],
    ];
    for (const [glob, path] of cases) expect(compileGlob(glob)(path), `${glob} ${path}`).toBe(picomatch(glob, { dot: true })(path));
  });

  it("keeps a dot literal beside a brace range, where picomatch does not", () => {
    // picomatch's RegExp for this is `^(?:[a-b]\..[a-b](?:\/...)?)$`: its second dot matches any character
    expect(compileGlob("[a-b]..{a..b}/**")("b.aa/b.")).toBe(false);
    expect(compileGlob("[a-b]..{a..b}/**")("b..a/b.")).toBe(true);
    expect(compileGlob("x.{a..b}")("xza")).toBe(false);
    expect(compileGlob("x.{a..b}")("x.b")).toBe(true);
  });

  it("does not let `/**/` vanish before a segment that may be empty, as it does not before `*`", () => {
    expect(compileGlob("a/**/?(a)")("a")).toBe(false);
    expect(compileGlob("a/**/*")("a")).toBe(false);
    expect(compileGlob("a/**/?(a)")("a/b/a")).toBe(true);
  });

  it("refuses the extglobs that repeat or negate, and a group left open", () => {
    for (const glob of ["*(a)", "+(a|b)", "!(a).ts", "a(b"]) expect(() => compileGlob(glob), glob).toThrow(GlobSyntaxError);
  });
});

/** The Codex segment matcher as it was: a bash glob turned into an anchored RegExp. */
function regexSegment(pattern: string): (name: string) => boolean {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") source += ".*";
    else if (c === "?") source += ".";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) {
        source += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      source += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else source += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  const re = new RegExp(`^${source}$`, "s");
  return (name) => (pattern.startsWith(".") || !name.startsWith(".")) && re.test(name);
}

describe("the shell segment matcher (dot: false, no braces) agrees with the RegExp it replaces", () => {
  it("on random bash patterns", () => {
    const shellUnit = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "[!a]", "[^b]", "{a,b}", "(a)", "[");
    fc.assert(
      fc.property(
        fc.array(shellUnit, { minLength: 1, maxLength: 6 }).map((units) => units.join("")),
        nameArb,
        (pattern, name) => {
          expect(compileSegmentGlob(pattern, { dot: false, expand: false })(name)).toBe(regexSegment(pattern)(name));
        },
      ),
      { numRuns: RUNS },
    );
  });
});
