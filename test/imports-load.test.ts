import { describe, expect, it } from "vitest";
import { createTree, openSession } from "./helpers/tree.js";

describe("imports in the initial load and in touch", () => {
  it("are off by default: the text keeps its @path", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "Rules: @docs/rules.md", "docs/rules.md": "No tabs." });
    const session = await openSession(tree);
    expect(session.initialMessage).toContain("Rules: @docs/rules.md");
    expect(session.initialMessage).not.toContain("No tabs.");
  });

  it("expand in place when imports.enabled is set, and the imported bytes count against initial.maxBytes", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "Rules: @docs/rules.md", "docs/rules.md": "No tabs." });
    const session = await openSession(tree, { config: { imports: { enabled: true } } });
    const rules = tree.path("docs/rules.md");
    expect(session.initialMessage).toContain(`Rules: [agentsmd: imported from ${rules}]\nNo tabs.\n[agentsmd: end of import from ${rules}]`);
    const file = session.initialFiles[0]!;
    expect(file.sizeBytes).toBe(21);
    expect(file.includedBytes).toBeGreaterThan(21 + 8);
    expect(session.initialLoad!.imports.get(tree.path("AGENTS.md"))).toEqual([{ path: rules, from: tree.path("AGENTS.md"), depth: 1, bytes: 8 }]);

    const small = await openSession(tree, { config: { imports: { enabled: true }, initial: { maxBytes: 40 + tree.path("AGENTS.md").length + 60 } } });
    expect(small.initialFiles[0]!.truncated).toBe(true);
    expect(small.initialMessage).toContain("[agentsmd: truncated");
  });

  it("report a missing import and keep it literal", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "See @docs/gone.md" });
    const session = await openSession(tree, { config: { imports: { enabled: true } } });
    expect(session.initialMessage).toContain("See @docs/gone.md");
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "import-missing", path: tree.path("AGENTS.md") }));
  });

  it("are on in claude: an @AGENTS.md shim in CLAUDE.md brings AGENTS.md in", async () => {
    const tree = await createTree({ ".git/": null, "CLAUDE.md": "@AGENTS.md", "AGENTS.md": "Shared rules." });
    const session = await openSession(tree, { preset: "claude" });
    expect(session.initialMessage).toContain(`[agentsmd: imported from ${tree.path("AGENTS.md")}]\nShared rules.\n`);
    const off = await openSession(tree, { preset: "claude", config: { imports: { enabled: false } } });
    expect(off.initialMessage).not.toContain("Shared rules.");
  });

  it("stay off in codex even when configured, with a warning", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "Rules: @docs/rules.md", "docs/rules.md": "No tabs." });
    const session = await openSession(tree, { preset: "codex", config: { imports: { enabled: true } } });
    expect(session.initialMessage).toContain("Rules: @docs/rules.md");
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: "imports-locked" }));
  });

  it("expand in files delivered by touch, charged to the lazy budget", async () => {
    const tree = await createTree({ ".git/": null, "pkg/AGENTS.md": "Pkg: @notes.md", "pkg/notes.md": "n".repeat(100), "pkg/x.ts": "" });
    const session = await openSession(tree, { config: { imports: { enabled: true } } });
    const [block] = await session.touch([tree.path("pkg/x.ts")]);
    expect(block!.content).toContain("n".repeat(100));

    // The expanded text (file + import + markers) is what the cap is checked against: it does not fit.
    await tree.write("pkg/notes.md", "n".repeat(30));
    const capped = await openSession(tree, { config: { imports: { enabled: true }, lazy: { maxBytes: 60 } } });
    expect(await capped.touch([tree.path("pkg/x.ts")])).toEqual([]);
    expect(capped.diagnostics).toContainEqual(expect.objectContaining({ code: "lazy-cap" }));

    // An import larger than what is left stays literal; the file itself is delivered.
    await tree.write("pkg/notes.md", "n".repeat(100));
    const literal = await openSession(tree, { config: { imports: { enabled: true }, lazy: { maxBytes: 60 } } });
    const [only] = await literal.touch([tree.path("pkg/x.ts")]);
    expect(only!.content).toBe("Pkg: @notes.md");
    expect(literal.diagnostics).toContainEqual(expect.objectContaining({ code: "import-over-budget" }));
  });
});
