/**
 * `@example`s document the public API only: an example on an internal function is never compiled
 * and drifts with the code (they were cut once, and grew back). So a JSDoc `@example` is allowed on
 * a declaration a package entry exports (resolved through re-exports, as TypeScript sees it), on a
 * member of such a class or interface, and in a package entry's own module comment; anywhere else
 * this test names the place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** The package entries' source modules, from package.json "exports" (their types: a plugin's `import` is a bundle). */
function entryModules(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
  const sources = new Set<string>();
  for (const target of Object.values(pkg.exports)) {
    const types = typeof target === "string" ? undefined : target.types;
    if (types === undefined || !types.startsWith("./dist/") || !types.endsWith(".d.ts")) continue;
    sources.add(join(ROOT, types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts")));
  }
  return [...sources];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The declarations the entries export, and the classes and interfaces among them. */
function publicDeclarations(program: ts.Program, entries: readonly string[]): Set<ts.Node> {
  const checker = program.getTypeChecker();
  const declarations = new Set<ts.Node>();
  for (const file of entries) {
    const source = program.getSourceFile(file);
    const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (symbol === undefined) continue;
    for (const exported of checker.getExportsOfModule(symbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      for (const declaration of target.declarations ?? []) declarations.add(declaration);
    }
  }
  return declarations;
}

/** The declaration a JSDoc-carrying node stands for (a variable statement's first variable). */
function declarationOf(node: ts.Node): ts.Node {
  return ts.isVariableStatement(node) ? (node.declarationList.declarations[0] ?? node) : node;
}

/** `@example` in a JSDoc block attached to `node` itself (not one inherited from a parent). */
function exampleInOwnDocs(node: ts.Node): boolean {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [];
  return docs.some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === "example"));
}

function allowed(node: ts.Node, publicNodes: Set<ts.Node>, isEntry: boolean): boolean {
  const declaration = declarationOf(node);
  if (publicNodes.has(declaration)) return true;
  const parent = node.parent;
  if (ts.isClassDeclaration(parent) || ts.isInterfaceDeclaration(parent) || ts.isTypeLiteralNode(parent)) {
    const owner = ts.isTypeLiteralNode(parent) ? parent.parent : parent;
    if (publicNodes.has(owner)) return true;
  }
  // A module comment is attached to the file's first statement.
  return isEntry && node.parent !== undefined && ts.isSourceFile(node.parent) && node.parent.statements[0] === node;
}

describe("@example", () => {
  it("is written only on what a package entry exports (or an entry's module comment)", { timeout: 120_000 }, () => {
    const entries = entryModules();
    const files = sourceFiles(join(ROOT, "src"));
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    });
    const publicNodes = publicDeclarations(program, entries);
    const offenders: string[] = [];
    let examples = 0;
    for (const file of files) {
      const source = program.getSourceFile(file);
      if (source === undefined) continue;
      const isEntry = entries.includes(file);
      const visit = (node: ts.Node): void => {
        if (exampleInOwnDocs(node)) {
          examples++;
          if (!allowed(node, publicNodes, isEntry)) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
            offenders.push(`${relative(ROOT, file)}:${line + 1}`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(examples, "the walk found no @example at all: the test is not looking").toBeGreaterThan(0);
    expect(offenders, "an @example on an internal name: cut it, or export the name from a package entry on purpose").toEqual([]);
  });
});
