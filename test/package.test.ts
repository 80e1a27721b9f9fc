/**
 * What `npm publish` would ship: the licence package.json names, the built code and its types,
 * no source maps pointing at an unshipped src/.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { REPO, ensureBuilt } from "./helpers/bin.js";

describe("the published package", () => {
  it("ships LICENSE (MIT, as package.json says), dist with types, and no source maps", async () => {
    await ensureBuilt();
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    ) as Array<{
      files: Array<{ path: string }>;
    }>;
    const files = packed[0]!.files.map((file) => file.path);
    const pkg = JSON.parse(await readFile(`${REPO}/package.json`, "utf8")) as { license: string };
    expect(pkg.license).toBe("MIT");
    expect(files).toContain("LICENSE");
    expect(await readFile(`${REPO}/LICENSE`, "utf8")).toMatch(/^MIT License/);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
  }, 120_000); // a build when dist is stale, then npm pack: slow on a loaded machine
});
