/**
 * Differential tests: random trees on the real file system, checked against a naive model of the
 * spec (root by nearest marker, initial chain root -> cwd, resolver = chain root -> target dir minus
 * what was delivered, capped per call).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTree, openSession } from "./helpers/tree.js";

type Kind = "none" | "text" | "empty" | "blank";

interface Model {
  /** Tree-relative dirs ("" is the base), each with its AGENTS.md kind and whether it holds a .git. */
  dirs: Map<string, { kind: Kind; marker: boolean }>;
}

const segment = fc.constantFrom("a", "b", "c");
const relDir = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
const kind = fc.constantFrom<Kind>("none", "none", "text", "text", "empty", "blank");

const modelArb = fc
  .array(
    fc.tuple(
      relDir,
      kind,
      fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
    ),
    { maxLength: 10 },
  )
  .chain((entries) => fc.tuple(kind, fc.boolean()).map(([rootKind, rootMarker]) => ({ entries, rootKind, rootMarker })))
  .map(({ entries, rootKind, rootMarker }) => {
    const dirs = new Map<string, { kind: Kind; marker: boolean }>([["", { kind: rootKind, marker: rootMarker }]]);
    for (const [rel] of entries) {
      const parts = rel.split("/");
      for (let i = 1; i <= parts.length; i++) {
        const prefix = parts.slice(0, i).join("/");
        if (!dirs.has(prefix)) dirs.set(prefix, { kind: "none", marker: false });
      }
    }
    for (const [rel, fileKind, marker] of entries) dirs.set(rel, { kind: fileKind, marker });
    return { dirs } satisfies Model;
  });

const CONTENT: Record<Exclude<Kind, "none">, string> = { text: "rules", empty: "", blank: " \n\t\n" };

const parentRel = (rel: string) => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "");
/** rel and its ancestors up to "", nearest first. */
function ancestorsRel(rel: string): string[] {
  const out = [rel];
  while (rel !== "") {
    rel = parentRel(rel);
    out.push(rel);
  }
  return out;
}
const inside = (rel: string, root: string) => root === "" || rel === root || rel.startsWith(`${root}/`);

describe("differential: random trees against a naive model", () => {
  it("root, initial files, initial message and every resolve agree with the model", async () => {
    await fc.assert(
      fc.asyncProperty(
        modelArb,
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("dir", "file", "new-file", "new-dir-file")), { maxLength: 12 }),
        fc.integer({ min: 1, max: 3 }),
        async (model, cwdPick, picks, perResolve) => {
          const dirList = [...model.dirs.keys()].sort();
          const spec: Record<string, string | null> = { "repo/": null };
          for (const [rel, { kind: fileKind, marker }] of model.dirs) {
            const base = rel === "" ? "repo" : `repo/${rel}`;
            spec[`${base}/`] = null;
            if (fileKind !== "none") spec[`${base}/AGENTS.md`] = CONTENT[fileKind];
            if (marker) spec[`${base}/.git`] = "gitdir: x";
            spec[`${base}/file.ts`] = "";
          }
          const tree = await createTree(spec);
          const abs = (rel: string) => (rel === "" ? tree.path("repo") : tree.path(`repo/${rel}`));
          const cwdRel = dirList[cwdPick % dirList.length]!;

          // Model: root.
          const rootRel = ancestorsRel(cwdRel).find((rel) => model.dirs.get(rel)!.marker) ?? cwdRel;
          const chainOf = (rel: string) =>
            ancestorsRel(rel)
              .filter((each) => inside(each, rootRel))
              .reverse();
          const agents = (rel: string) => `${abs(rel)}/AGENTS.md`;
          const initialRels = chainOf(cwdRel).filter((rel) => model.dirs.get(rel)!.kind === "text");

          const session = await openSession(tree, { cwd: abs(cwdRel), config: { resolver: { maxFilesPerResolve: perResolve }, cache: { revalidateMs: 0 } } });
          expect(session.root).toBe(abs(rootRel));
          expect(session.initialFiles.map((file) => file.path)).toEqual(initialRels.map(agents));
          expect(session.initialMessage).toBe(
            initialRels.length === 0
              ? ""
              : `<agents_context scope="initial">\n${initialRels.map((rel) => `Instructions from: ${agents(rel)}\nrules`).join("\n\n")}\n</agents_context>`,
          );

          // Model: delivered files; blank files of the initial chain count as delivered (nothing to read).
          const delivered = new Set(
            chainOf(cwdRel)
              .filter((rel) => ["text", "blank"].includes(model.dirs.get(rel)!.kind))
              .map(agents),
          );
          for (const [index, targetKind] of picks) {
            const rel = dirList[index % dirList.length]!;
            const target =
              targetKind === "dir"
                ? abs(rel)
                : targetKind === "file"
                  ? `${abs(rel)}/file.ts`
                  : targetKind === "new-file"
                    ? `${abs(rel)}/new.ts`
                    : `${abs(rel)}/newdir/x.ts`;
            const targetDirRel = targetKind === "dir" || targetKind === "file" || targetKind === "new-file" ? rel : `${rel === "" ? "" : `${rel}/`}newdir`;
            const expected = inside(targetDirRel, rootRel)
              ? chainOf(targetDirRel)
                  .filter((each) => model.dirs.has(each) && ["text", "blank"].includes(model.dirs.get(each)!.kind))
                  .map(agents)
                  .filter((path) => !delivered.has(path))
                  .slice(0, perResolve)
              : [];
            const found = await session.resolve(target);
            expect(found.files.map((file) => file.path)).toEqual(expected);
            for (const path of expected) delivered.add(path);
          }
          await session.close();
          await tree.cleanup();
        },
      ),
      { numRuns: 60 },
    );
  });
});
