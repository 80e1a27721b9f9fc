/**
 * `belowPremises`: what a target below a quiet directory relies on (host/quiet-format.ts).
 */
import { describe, expect, it } from "vitest";
import { belowPremises, type QuietCertificate } from "../../src/integrations/host/quiet-format.js";

const dirs: QuietCertificate["dirs"] = {
  "/r": { id: "d:1", files: { "/r/AGENTS.md": "f:9" }, quiet: true },
  "/r/a": { up: "/r", id: "d:2" },
  "/r/a/b": { up: "/r/a", id: "d:3", files: { "/r/a/b/AGENTS.md": "f:8" }, quiet: true },
};

describe("belowPremises", () => {
  it("takes the nearest directory of the tree (its chain) and every instruction file name absent on each level below it", () => {
    expect(Object.fromEntries(belowPremises(dirs, "/r/a/b/c/d", ["AGENTS.md", "CLAUDE.md"])!)).toEqual({
      "/r/a/b": "d:3",
      "/r/a/b/AGENTS.md": "f:8",
      "/r/a": "d:2",
      "/r": "d:1",
      "/r/AGENTS.md": "f:9",
      "/r/a/b/c/d/AGENTS.md": "-",
      "/r/a/b/c/d/CLAUDE.md": "-",
      "/r/a/b/c/AGENTS.md": "-",
      "/r/a/b/c/CLAUDE.md": "-",
    });
    // /r/a is on a chain, not quiet itself: a directory of the tree all the same (its files there are what applies at its level).
    expect(Object.fromEntries(belowPremises(dirs, "/r/a/x", ["AGENTS.md"])!)).toEqual({
      "/r/a": "d:2",
      "/r": "d:1",
      "/r/AGENTS.md": "f:9",
      "/r/a/x/AGENTS.md": "-",
    });
    expect(Object.fromEntries(belowPremises(dirs, "/r/a", ["AGENTS.md"])!)).toEqual({ "/r/a": "d:2", "/r": "d:1", "/r/AGENTS.md": "f:9" });
  });

  it("nothing without a quiet ancestor, names, an absolute path, or past its bounds", () => {
    expect(belowPremises(dirs, "/elsewhere/x", ["AGENTS.md"])).toBeNull();
    expect(belowPremises(dirs, "/r/x", [])).toBeNull();
    expect(belowPremises(dirs, "/r/x", [""])).toBeNull();
    expect(belowPremises(dirs, "r/x", ["AGENTS.md"])).toBeNull();
    expect(belowPremises(dirs, `/r/${Array(70).fill("d").join("/")}`, ["AGENTS.md"])).toBeNull();
    expect(
      belowPremises(
        dirs,
        "/r/x/y",
        Array.from({ length: 300 }, (_, i) => `N${i}.md`),
      ),
    ).toBeNull();
    // A certified directory itself is chainPremises' (the caller asks it first).
    expect(belowPremises(dirs, "/r/a/b/c", ["AGENTS.md"])!.get("/r/a/b/c/AGENTS.md")).toBe("-");
  });
});
