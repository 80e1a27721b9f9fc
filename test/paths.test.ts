/**
 * core/paths.ts on every shape of path (fast-check): `absolute` agrees with path.resolve,
 * `pathInputProblem` (one pass over the characters) and `isInside` (a slice compared, no
 * concatenated prefix) with their rules written out plainly.
 */
import fc from "fast-check";
import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { absolute, isInside, MAX_PATH_BYTES, MAX_PATH_DEPTH, pathInputProblem } from "../src/core/paths.js";

const pieces = fc.constantFrom("/", "//", ".", "..", "a", "bc", "/.", "/..", "./", "../", "\0", "é");
const pathArb = fc.array(pieces, { maxLength: 24 }).map((parts) => parts.join(""));

/** The rule: empty, over PATH_MAX bytes, a NUL byte, more than MAX_PATH_DEPTH slashes (in that order). */
function rule(path: string): string | null {
  if (path.length === 0) return "is empty";
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) return `is ${bytes} bytes long; paths are at most ${MAX_PATH_BYTES} bytes (PATH_MAX)`;
  if (path.includes("\0")) return "holds a NUL byte, which no file name can";
  const depth = path.split("/").length - 1;
  return depth > MAX_PATH_DEPTH ? `has ${depth} segments; paths are at most ${MAX_PATH_DEPTH} deep` : null;
}

describe("core/paths", () => {
  it("isInside(path, dir) is path === dir or path starting with dir and a separator", () => {
    const short = fc.array(fc.constantFrom("/", "a", "ab", "b"), { maxLength: 6 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(short, short, (path, dir) => {
        expect(isInside(path, dir)).toBe(path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`));
      }),
      { numRuns: 5000 },
    );
    expect(isInside("/r/ab", "/r/a")).toBe(false);
    expect(isInside("/r/a/b", "/r/a")).toBe(true);
    expect(isInside("/r/a", "/")).toBe(true);
    expect(isInside("/r", "/r/")).toBe(false);
  });

  it("absolute(path, base) is path.resolve(base, path) for every shape of path", () => {
    fc.assert(
      fc.property(pathArb, (path) => {
        expect(absolute(path, "/base/dir")).toBe(posix.resolve("/base/dir", path));
        expect(absolute(`/${path}`, "/base")).toBe(posix.resolve(`/${path}`));
      }),
      { numRuns: 2000 },
    );
  });

  it("pathInputProblem follows its rule, deep and long paths included", () => {
    fc.assert(
      fc.property(pathArb, fc.nat(2100), (path, extra) => {
        expect(pathInputProblem(path)).toBe(rule(path));
        const deep = `${"/a".repeat(extra)}${path}`;
        expect(pathInputProblem(deep)).toBe(rule(deep));
      }),
      { numRuns: 500 },
    );
  });
});
