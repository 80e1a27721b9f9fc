import { describe, expect, it } from "vitest";
import { jsonRecord, stringLeaves } from "../../../src/integrations/host/transcript.js";

describe("host transcript reading", () => {
  it("stringLeaves: every string, depth first, in document order", () => {
    expect(stringLeaves({ a: ["x", { b: "y" }], n: 1, c: null, d: "z" })).toEqual(["x", "y", "z"]);
    const out = ["kept"];
    expect(stringLeaves(["more"], out)).toBe(out);
    expect(out).toEqual(["kept", "more"]);
  });

  it("stringLeaves: a value nested 100,000 deep is read without recursion", () => {
    expect(stringLeaves(JSON.parse(`${"[".repeat(100_000)}"LEAF"${"]".repeat(100_000)}`))).toEqual(["LEAF"]);
  });

  it("jsonRecord: an object line is a record; blank, partial, array and scalar lines are not", () => {
    expect(jsonRecord('{"type":"user","n":1}')).toEqual({ type: "user", n: 1 });
    for (const line of ["", "  ", '{"type":"us', "[1,2]", '"text"', "null", "3"]) expect(jsonRecord(line)).toBeUndefined();
  });
});
