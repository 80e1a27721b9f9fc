/**
 * The linear regex engine (src/core/linear-regex.ts) against V8's RegExp on small random patterns
 * and texts (fast-check): `test` answers the same. `npm run fuzz` runs FUZZ_RUNS.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinearRegex, RegexRefused } from "../../src/core/linear-regex.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

const atomArb = fc.constantFrom("a", "b", ".", "\\w", "\\W", "\\d", "\\s", "[ab]", "[^a]", "[a-c]", "[\\d-]", "\\n", "x", "\\.", "\\b", "\\B", "^", "$");
const quantArb = fc.constantFrom("", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?");
const pieceArb: fc.Arbitrary<string> = fc.letrec((tie) => ({
  piece: fc.oneof(
    { weight: 5, arbitrary: fc.tuple(atomArb, quantArb).map(([atom, quant]) => atom + quant) },
    { weight: 1, arbitrary: fc.tuple(tie("alt"), quantArb, fc.constantFrom("(", "(?:", "(?<n>")).map(([alt, quant, open]) => `${open}${alt})${quant}`) },
  ),
  seq: fc.array(tie("piece"), { minLength: 0, maxLength: 4 }).map((pieces) => pieces.join("")),
  alt: fc.array(tie("seq"), { minLength: 1, maxLength: 3 }).map((seqs) => seqs.join("|")),
})).alt as fc.Arbitrary<string>;
const textArb = fc.stringMatching(/^[ab1 .\nx-]{0,12}$/);

describe("the linear regex engine agrees with RegExp", () => {
  it("on random patterns over random texts", () => {
    fc.assert(
      fc.property(pieceArb, textArb, (pattern, text) => {
        let expected: boolean;
        try {
          expected = new RegExp(pattern).test(text);
        } catch {
          expect(() => compileLinearRegex(pattern)).toThrow();
          return;
        }
        expect(compileLinearRegex(pattern).test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it("answers the exponential patterns at once", () => {
    const text = `${"a".repeat(5000)}!`;
    for (const pattern of ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "(a*)*b", "^(\\w+\\s?)*$"]) {
      const start = process.cpuUsage();
      expect(compileLinearRegex(pattern).test(text), pattern).toBe(false);
      const { user, system } = process.cpuUsage(start);
      expect(user + system, pattern).toBeLessThan(500_000);
    }
  });

  it("refuses backreferences and lookaround, naming why", () => {
    for (const pattern of ["(a)\\1", "(?<x>a)\\k<x>", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(a{1000}){1000}"]) {
      expect(() => compileLinearRegex(pattern), pattern).toThrow(RegexRefused);
    }
  });
});
