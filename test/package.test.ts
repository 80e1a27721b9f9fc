/**
 * What `npm publish` would ship: the licence package.json names, the built code and its types,
 * no source maps pointing at an unshipped src/, no install-time scripts, every page the README
 * links to, and an `engines` range that every dependency in the lockfile accepts.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, ensureBuilt } from "./helpers/bin.js";

interface PackageJson {
  license: string;
  description: string;
  engines: { node: string };
  scripts: Record<string, string>;
  bin: Record<string, string>;
}

/** Scripts npm runs when someone installs the package (`prepare` too, for git and folder installs). */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

/** Relative link targets of a Markdown text: `[text](target)` and `<a href="target">`, anchors and queries cut off. */
export function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...markdown.matchAll(/\bhref="([^"]+)"/g)].map((m) => m[1]!);
  return [...new Set(targets.filter((t) => !/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(t)).map((t) => t.replace(/[#?].*$/, "").replace(/^\.\//, "")))].filter(
    (t) => t !== "",
  );
}

/** Whether `version` (x.y.z) satisfies a node-semver range of the forms lockfiles hold: `||`, `>=`, `>`, `<=`, `<`, `^`, `~`, exact, partial versions. */
export function satisfies(version: string, range: string): boolean {
  const parse = (text: string) => {
    const [major = 0, minor = 0, patch = 0] = text.split(".").map((part) => Number(part.replace(/[^0-9].*$/, "")) || 0);
    return [major, minor, patch] as const;
  };
  const cmp = (a: readonly number[], b: readonly number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
  const v = parse(version);
  return range.split("||").some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, "$1")
      .split(/\s+/)
      .filter((c) => c !== "" && c !== "*" && c !== "x")
      .every((comparator) => {
        const [, op = "", rest = ""] = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(comparator)!;
        const bound = parse(rest);
        const parts = rest.split(".").length;
        if (op === ">=") return cmp(v, bound) >= 0;
        if (op === ">") return cmp(v, bound) > 0;
        if (op === "<=") return cmp(v, bound) <= 0;
        if (op === "<") return cmp(v, bound) < 0;
        if (op === "^") return cmp(v, bound) >= 0 && v[0] === bound[0] && (bound[0] !== 0 || v[1] === bound[1]);
        if (op === "~") return cmp(v, bound) >= 0 && v[0] === bound[0] && (parts < 2 || v[1] === bound[1]);
        return v[0] === bound[0] && (parts < 2 || v[1] === bound[1]) && (parts < 3 || v[2] === bound[2]);
      }),
  );
}

describe("semver helper", () => {
  it("reads the ranges lockfiles hold", () => {
    expect(satisfies("20.19.0", ">=20.19")).toBe(true);
    expect(satisfies("20.18.9", ">=20.19")).toBe(false);
    expect(satisfies("20.19.0", "^22.22.2 || ^24.15.0 || >=26.0.0")).toBe(false);
    expect(satisfies("20.19.0", "^20.17.0 || >=22.9.0")).toBe(true);
    expect(satisfies("22.5.0", "^20.19.0 || >=22.12.0")).toBe(false);
    expect(satisfies("20.19.0", ">= 0.10")).toBe(true);
    expect(satisfies("20.19.0", ">=18 <21")).toBe(true);
    expect(satisfies("21.0.0", ">=18 <21")).toBe(false);
  });
});

describe("the published package", () => {
  let files: string[];
  let packed: PackageJson;
  beforeAll(async () => {
    await ensureBuilt();
    const result = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    ) as Array<{ files: Array<{ path: string }> }>;
    files = result[0]!.files.map((file) => file.path);
    // npm packs package.json as it is (what an install runs)
    expect(files).toContain("package.json");
    packed = JSON.parse(await readFile(`${REPO}/package.json`, "utf8")) as PackageJson;
  }, 120_000); // a build when dist is stale, then npm pack: slow on a loaded machine

  it("ships LICENSE (MIT, as package.json says), dist with types, and no source maps", async () => {
    expect(packed.license).toBe("MIT");
    expect(files).toContain("LICENSE");
    expect(await readFile(`${REPO}/LICENSE`, "utf8")).toMatch(/^MIT License/);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/hook/agentsmd-hook.cjs");
    // What package.json exports and pi's manifest name for the plugin hosts (scripts/build-plugins.mjs).
    for (const host of ["opencode", "kilo", "pi"]) expect(files).toContain(`dist/plugin/${host}.js`);
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
  });

  it("runs nothing at install: no install-time scripts (the build runs at prepack), no native build", () => {
    expect(INSTALL_SCRIPTS.filter((name) => name in packed.scripts)).toEqual([]);
    expect(files.filter((file) => file.endsWith("binding.gyp"))).toEqual([]);
    expect(packed.scripts.prepack).toBe("npm run build");
    // written as npm normalises it, so `npm publish` has nothing to auto-correct
    expect(Object.values(packed.bin).filter((path) => path.startsWith("./"))).toEqual([]);
    for (const path of Object.values(packed.bin)) expect(files).toContain(path);
  });

  it("ships every file the README links to relatively", async () => {
    const links = relativeLinks(await readFile(`${REPO}/README.md`, "utf8"));
    expect(links.length).toBeGreaterThan(0);
    const missing = links.filter((link) => !files.includes(link) && !files.some((file) => file.startsWith(`${link.replace(/\/$/, "")}/`)));
    expect(missing).toEqual([]);
  });

  it("names every agent it serves in its description", () => {
    for (const agent of ["Claude Code", "Codex", "Gemini CLI", "Copilot CLI", "Qwen Code", "OpenCode", "Kilo Code", "pi"])
      expect(packed.description).toContain(agent);
  });

  it("engines tells the truth: every dependency in the lockfile accepts the oldest Node it allows", async () => {
    const lock = JSON.parse(await readFile(`${REPO}/package-lock.json`, "utf8")) as {
      packages: Record<string, { version?: string; dev?: boolean; optional?: boolean; engines?: { node?: string } | string[] }>;
    };
    const oldest = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(packed.engines.node)?.[1];
    expect(oldest, `engines.node ${packed.engines.node} is a plain >= range`).toBeDefined();
    const floor = oldest!.split(".").concat(["0", "0"]).slice(0, 3).join(".");
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // optional platform binaries install only where they fit
      if (path === "" || range === undefined || entry.optional) continue;
      if (!satisfies(floor, range)) refused.push(`${path}@${entry.version} wants node ${range}${entry.dev ? " (dev)" : ""}`);
      // what users install must also run on every later major engines allows
      if (!entry.dev)
        for (const major of [21, 22, 23, 24, 25, 26])
          if (!satisfies(`${major}.0.0`, range)) refused.push(`${path}@${entry.version}: ${range} refuses Node ${major}`);
    }
    expect(refused).toEqual([]);
  });
});
