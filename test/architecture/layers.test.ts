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

/** Layers in order; `hook` (the hook runtime, the source of dist/hook/) sits beside `cli`, one rank. */
const LAYERS = ["core", "io", "presets", "load", "session", "integrations", "inspect", "audit", ["hook", "cli"]] as const;
const RANK = new Map<string, number>(
  LAYERS.flatMap((layer, rank) => (typeof layer === "string" ? [[layer, rank]] : layer.map((f) => [f, rank] as [string, number]))),
);
/**
 * What the hook runtime takes from cli/: the process io, the command word and global options, the
 * lean `show` the hook bundle also runs, and `main.ts` (its type; the full CLI is loaded by URL,
 * never bundled, for argv the lean parsers do not take: test/hook-bundle.test.ts). Anything else
 * of cli/ (commander, the commands) stays out of every hook call.
 */
const HOOK_FROM_CLI = new Set(["cli/io.ts", "cli/argv.ts", "cli/context.ts", "cli/lean.ts", "cli/main.ts"]);
const SRC = join(REPO, "src");

/** Upward edges and cycles still to remove (module paths relative to src/). */
const KNOWN: { upward: string[]; cycles: string[] } = {
  upward: [],
  cycles: [],
};

/**
 * Host folders (`integrations/<host>/`, every folder but the shared ones) import no other folder of
 * integrations/, only the shared host layer. Allowances, "from -> to" (an entry that no longer
 * occurs fails too): none.
 */
const SHARED_INTEGRATIONS = ["host", "setup"];
const HOST_ALLOWANCES: string[] = [];

/** The integrations/ folder of a module, or undefined (outside integrations/, or a file directly in it). */
function integrationFolder(module: string): string | undefined {
  const parts = module.split("/");
  return parts[0] === "integrations" && parts.length > 2 ? parts[1] : undefined;
}

/** Imports from a host folder into another folder of integrations/ than host/, as "from -> to". */
export function crossHostImports(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of edges) {
    const folder = integrationFolder(from);
    if (folder === undefined || SHARED_INTEGRATIONS.includes(folder)) continue;
    for (const to of targets) {
      const other = integrationFolder(to);
      if (other !== undefined && other !== folder && other !== "host") found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

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
  return RANK.get(module.split("/")[0]!) ?? -1;
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
    expect(folders.filter((folder) => !RANK.has(folder!))).toEqual([]);
  });

  it("the hook runtime (src/hook/) takes from cli/ only the process io, argv, global options and the lean show", () => {
    const reached = [...edges].flatMap(([from, targets]) =>
      from.startsWith("hook/") ? targets.filter((to) => to.startsWith("cli/")).map((to) => `${from} -> ${to}`) : [],
    );
    expect(reached.filter((edge) => !HOOK_FROM_CLI.has(edge.split(" -> ")[1]!))).toEqual([]);
    expect(reached.length).toBeGreaterThan(0);
  });

  it("no module imports from a later layer", () => {
    const upward: string[] = [];
    for (const [from, targets] of edges) for (const to of targets) if (layerOf(to) > layerOf(from)) upward.push(`${from} -> ${to}`);
    expect(upward.sort()).toEqual([...KNOWN.upward].sort());
  });

  it("no import cycles", () => {
    expect(cyclesOf(edges)).toEqual([...KNOWN.cycles].sort());
  });

  it("host folders never import one another (only integrations/host/): each offender named as file -> import", () => {
    expect(crossHostImports(edges)).toEqual([...HOST_ALLOWANCES].sort());
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
    expect(
      crossHostImports(
        new Map([
          [
            "integrations/qwen/transcript.ts",
            ["integrations/gemini/transcript.ts", "integrations/host/transcript.ts", "core/paths.ts", "integrations/qwen/input.ts"],
          ],
          ["integrations/setup/setup.ts", ["integrations/qwen/install.ts"]],
          ["integrations/host/deliver.ts", ["integrations/host/store.ts"]],
          ["integrations/hosts.ts", ["integrations/qwen/profile.ts"]],
        ]),
      ),
    ).toEqual(["integrations/qwen/transcript.ts -> integrations/gemini/transcript.ts"]);
    expect(importsOf(join(SRC, "io/x.ts"), 'import { a } from "../core/paths.js";\nconst m = await import("./y.js");')).toEqual(["core/paths.ts", "io/y.ts"]);
  });
});
