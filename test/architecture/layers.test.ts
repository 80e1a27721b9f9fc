/**
 * The source tree's layers (AGENTS.md): each folder under src/ imports only from the folders
 * before it, and no module takes part in an import cycle. A violation fails here with the edge.
 * `KNOWN` lists what is still being untangled; an entry that no longer occurs fails too, so the
 * list only ever shrinks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/bin.js";

const LAYERS = ["core", "io", "presets", "load", "session", "integrations", "inspect", "cli"] as const;
const SRC = join(REPO, "src");

/** Upward edges and cycles still to remove (module paths relative to src/). */
const KNOWN: { upward: string[]; cycles: string[] } = {
  upward: [],
  cycles: [],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports of a module (static, dynamic and inline type imports), as src-relative .ts paths. */
export function importsOf(file: string, text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = resolve(dirname(file), match[1]!).replace(/\.js$/, ".ts");
    out.add(relative(SRC, target).split(sep).join("/"));
  }
  return [...out];
}

function layerOf(module: string): number {
  if (!module.includes("/")) return LAYERS.length; // src/index.ts: the package entry sits on top
  return LAYERS.indexOf(module.split("/")[0] as (typeof LAYERS)[number]);
}

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const module = relative(SRC, file).split(sep).join("/");
    edges.set(module, importsOf(file, readFileSync(file, "utf8")));
  }
  return edges;
}

/** Strongly connected components with more than one module (Tarjan), each sorted, as "a <-> b <-> c". */
export function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.sort().join(" <-> "));
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort();
}

describe("source layers", () => {
  const edges = graph();

  it("every folder under src/ is a known layer", () => {
    const folders = [...new Set([...edges.keys()].filter((m) => m.includes("/")).map((m) => m.split("/")[0]))];
    expect(folders.filter((folder) => !LAYERS.includes(folder as (typeof LAYERS)[number]))).toEqual([]);
  });

  it("no module imports from a later layer", () => {
    const upward: string[] = [];
    for (const [from, targets] of edges) for (const to of targets) if (layerOf(to) > layerOf(from)) upward.push(`${from} -> ${to}`);
    expect(upward.sort()).toEqual([...KNOWN.upward].sort());
  });

  it("no import cycles", () => {
    expect(cyclesOf(edges)).toEqual([...KNOWN.cycles].sort());
  });

  it("the session facade sits on its parts: no module of session/ imports session/session.ts", () => {
    const parts = [...edges].filter(([from, targets]) => from.startsWith("session/") && targets.includes("session/session.ts")).map(([from]) => from);
    expect(parts).toEqual([]);
  });

  it("below presets/, no module branches on a preset's name: what differs between agents is a named slot of the preset", () => {
    const byName = /preset\??\.name\s*[!=]==|[!=]==\s*\w*\??\.?preset\??\.name|\bpreset\s*[!=]==\s*["']/;
    const offenders = [...edges.keys()]
      .filter((module) => ["core", "io", "load", "session"].includes(module.split("/")[0]!))
      .filter((module) => byName.test(readFileSync(join(SRC, module), "utf8")));
    expect(offenders).toEqual([]);
    expect(byName.test('if (session.preset.name === "gemini") x();')).toBe(true);
    expect(byName.test('if (preset === "qwen") x();')).toBe(true);
  });

  it("the checks see violations (a synthetic upward edge and cycle are reported)", () => {
    const synthetic = new Map([
      ["core/a.ts", ["core/b.ts"]],
      ["core/b.ts", ["core/a.ts"]],
      ["core/c.ts", ["core/c.ts"]],
      ["core/d.ts", []],
    ]);
    expect(cyclesOf(synthetic)).toEqual(["core/a.ts <-> core/b.ts", "core/c.ts"]);
    expect(layerOf("cli/main.ts")).toBeGreaterThan(layerOf("core/paths.ts"));
    expect(importsOf(join(SRC, "io/x.ts"), 'import { a } from "../core/paths.js";\nconst m = await import("./y.js");')).toEqual(["core/paths.ts", "io/y.ts"]);
  });
});
