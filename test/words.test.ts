import { describe, expect, it } from "vitest";
import { countOf, plural } from "../src/core/words.js";
import { runCli, createTree } from "./helpers/tree.js";

describe("counted nouns (core/words.ts)", () => {
  it("singular for exactly one, plural otherwise, irregular nouns included", () => {
    expect([0, 1, 2].map((count) => countOf(count, "directory"))).toEqual(["0 directories", "1 directory", "2 directories"]);
    expect(countOf(1, "instruction file")).toBe("1 instruction file");
    expect(countOf(3, "instruction file")).toBe("3 instruction files");
    expect(plural(2, "byte")).toBe("bytes");
    expect(countOf(5, "info")).toBe("5 info");
  });

  it("no CLI line counts one thing in the plural: doctor, tree and list on a one-file, one-byte tree", async () => {
    const tree = await createTree({ "repo/.git/": null, "repo/AGENTS.md": "x" });
    const base = ["--home", tree.home, "--cwd", tree.path("repo")];
    const outputs = [await runCli([...base, "doctor", tree.path("repo")]), await runCli([...base, "tree", tree.path("repo")]), await runCli([...base, "list"])];
    const text = outputs.map((run) => run.stdout).join("\n");
    expect(text).toContain("1 instruction file ");
    expect(text).toContain("1 byte");
    expect(text).not.toMatch(/\b1 (directories|files|bytes|errors|warnings|tokens|instruction files)\b/);
  });
});
