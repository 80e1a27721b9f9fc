import { link } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ADVISORY_CODES, doctor, firstInvalidUtf8, formatReport, type DoctorReport } from "../src/inspect/doctor.js";
import { createTree, makeSymlink, runCli, type Tree } from "./helpers/tree.js";
import { loadCorpus, materialise } from "./corpus/materialise.js";

const run = (tree: Tree, presets?: string[], root = tree.root) => doctor({ root, session: { home: tree.home, env: {} }, ...(presets ? { presets } : {}) });
const codes = (report: DoctorReport) => report.findings.map((finding) => finding.code);
const find = (report: DoctorReport, code: string) => report.findings.filter((finding) => finding.code === code);

describe("doctor findings", () => {
  it("reports a file an agent's budget cuts, naming the agent and its limit", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "r".repeat(40_000), "pkg/AGENTS.md": "p" });
    const report = await run(tree, ["codex", "codelia"]);
    const [cut] = find(report, "truncated");
    expect(cut).toMatchObject({ severity: "warning", path: tree.path("AGENTS.md"), agents: ["codex"] });
    expect(cut!.message).toContain("codex cuts");
    expect(cut!.message).toContain("to 32768 of 40000 bytes (its budget: 32 KiB for the whole chain, root-first)");
    const [out] = find(report, "left-out");
    expect(out).toMatchObject({ path: tree.path("pkg/AGENTS.md"), agents: ["codex"] });
  });

  it("reports a file over Claude Code's 4 MiB per-file limit", async () => {
    const tree = await createTree({ "CLAUDE.md": "c".repeat(4 * 1024 * 1024 + 1) });
    const report = await run(tree, ["claude"]);
    expect(find(report, "truncated")).toContainEqual(
      expect.objectContaining({ agents: ["claude"], message: expect.stringContaining("is 4194305 bytes: Claude Code skips the whole file over 4 MiB") }),
    );
  });

  it("reports an empty override hiding a file as an error", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.override.md": "\n", "AGENTS.md": "real rules" });
    const report = await run(tree, ["codex", "codelia"]);
    const [hidden] = find(report, "empty-override");
    expect(hidden).toMatchObject({
      severity: "error",
      path: tree.path("AGENTS.override.md"),
      agents: ["codex"],
      paths: [tree.path("AGENTS.override.md"), tree.path("AGENTS.md")],
    });
    expect(hidden!.fix).toContain("delete the empty AGENTS.override.md");
    expect(report.counts.error).toBe(1);
  });

  it("reports a CLAUDE.md that makes Claude Code ignore the AGENTS.md beside and below it", async () => {
    const tree = await createTree({ "pkg/CLAUDE.md": "claude", "pkg/AGENTS.md": "agents", "pkg/sub/AGENTS.md": "sub", "other/AGENTS.md": "other" });
    const report = await run(tree, ["claude"]);
    const [finding] = find(report, "claude-ignores-agents");
    expect(finding).toMatchObject({
      path: tree.path("pkg/CLAUDE.md"),
      paths: [tree.path("pkg/CLAUDE.md"), tree.path("pkg/AGENTS.md"), tree.path("pkg/sub/AGENTS.md")],
    });
    expect(finding!.message).toContain("the AGENTS.md beside it and 1 more below never load there");
  });

  it("does not report a CLAUDE.md that imports AGENTS.md or is a link to it", async () => {
    const tree = await createTree({ "a/CLAUDE.md": "Read @AGENTS.md first.", "a/AGENTS.md": "agents", "b/AGENTS.md": "b agents" });
    await makeSymlink(tree, "b/CLAUDE.md", "AGENTS.md");
    const report = await run(tree, ["claude"]);
    expect(find(report, "claude-ignores-agents")).toEqual([]);
  });

  it("reports files some presets read and others never will", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "a", "pkg/GEMINI.md": "g" });
    const report = await run(tree, ["codex", "gemini"]);
    const findings = find(report, "agents-disagree");
    expect(findings.map((finding) => [finding.path, finding.agents])).toEqual([
      [tree.path("AGENTS.md"), ["gemini"]],
      [tree.path("pkg/GEMINI.md"), ["codex"]],
    ]);
    expect(findings[0]!.fix).toContain("context.fileName");
  });

  it("an agent the repository does not use gets info, not a warning; applying the fix to Gemini's own settings clears it and changes nothing else", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "a", "pkg/AGENTS.md": "p" });
    const before = await run(tree);
    const disagree = find(before, "agents-disagree");
    expect(disagree.map((finding) => [finding.agents, finding.severity])).toEqual([[["gemini"], "info"]]);
    expect(before.counts.warning).toBe(0); // a one-file project is not warned about an agent it does not use
    const codexBefore = await runCli(["--home", tree.home, "--cwd", tree.path("pkg"), "--preset", "codex", "show"]);
    // The fix names Gemini's own setting first; apply it as written.
    expect(disagree[0]!.fix).toMatch(/^Gemini CLI: set context.fileName to \["GEMINI.md", "AGENTS.md"\] in ~\/.gemini\/settings.json/);
    await tree.write(`${tree.home.slice(tree.root.length + 1)}/.gemini/settings.json`, JSON.stringify({ context: { fileName: ["GEMINI.md", "AGENTS.md"] } }));
    const after = await run(tree);
    expect(find(after, "agents-disagree")).toEqual([]);
    expect(after.findings.filter((finding) => !before.findings.some((old) => old.code === finding.code && old.path === finding.path))).toEqual([]);
    expect(await runCli(["--home", tree.home, "--cwd", tree.path("pkg"), "--preset", "codex", "show"])).toEqual(codexBefore);
    const gemini = await runCli(["--home", tree.home, "--cwd", tree.path("pkg"), "--preset", "gemini", "paths"]);
    expect(gemini.stdout).toBe(`${tree.path("AGENTS.md")}\n${tree.path("pkg/AGENTS.md")}\n`);
  });

  it("reports instruction files under excluded directories", async () => {
    const tree = await createTree({ "dist/AGENTS.md": "generated?" });
    const report = await run(tree, ["codelia"]);
    expect(find(report, "excluded-dir")).toEqual([expect.objectContaining({ path: tree.path("dist/AGENTS.md"), agents: ["codelia"] })]);
  });

  it("reports symlinks leaving the root (error) and dangling ones (warning)", async () => {
    const outside = await createTree({ "shared.md": "outside text" });
    const tree = await createTree({ "AGENTS.md": "x" });
    await makeSymlink(tree, "pkg/AGENTS.md", outside.path("shared.md"));
    await makeSymlink(tree, "gone/AGENTS.md", tree.path("missing.md"));
    const report = await run(tree, ["codelia"]);
    expect(find(report, "symlink-outside-root")).toEqual([expect.objectContaining({ severity: "error", path: tree.path("pkg/AGENTS.md") })]);
    expect(find(report, "symlink-broken")).toEqual([expect.objectContaining({ severity: "warning", path: tree.path("gone/AGENTS.md") })]);
  });

  it("reports broken and cyclic imports as errors", async () => {
    const tree = await createTree({ "CLAUDE.md": "See @docs/missing.md and @a.md", "a.md": "@b.md", "b.md": "@a.md" });
    const report = await run(tree, ["claude"]);
    expect(find(report, "import-missing")).toEqual([expect.objectContaining({ severity: "error", path: tree.path("CLAUDE.md"), agents: ["claude"] })]);
    expect(find(report, "import-cycle")).toEqual([expect.objectContaining({ severity: "error", path: tree.path("b.md") })]);
    expect(find(report, "import-missing")[0]!.fix).toContain("fix the path");
  });

  it("reports invalid UTF-8 with the offset of the first bad byte", async () => {
    const tree = await createTree({ "AGENTS.md": new Uint8Array([0x61, 0x62, 0xff, 0x63]) });
    const report = await run(tree, ["codelia"]);
    expect(find(report, "invalid-utf8")).toEqual([expect.objectContaining({ severity: "error", message: expect.stringContaining("offset 2") })]);
    expect(firstInvalidUtf8(new Uint8Array([0xe2, 0x82]))).toBe(0);
    expect(firstInvalidUtf8(new TextEncoder().encode("héllo"))).toBe(-1);
  });

  it("reports identical copies, but not hard links of one file", async () => {
    const tree = await createTree({ "a/AGENTS.md": "same text", "b/AGENTS.md": "same text", "c/AGENTS.md": "other" });
    await link(tree.path("c/AGENTS.md"), tree.path("d.md"));
    await link(tree.path("c/AGENTS.md"), tree.path("AGENTS.md"));
    const report = await run(tree, ["codelia"]);
    expect(find(report, "identical-copies")).toEqual([expect.objectContaining({ paths: [tree.path("a/AGENTS.md"), tree.path("b/AGENTS.md")] })]);
  });

  it("skips gitignored directories", async () => {
    const tree = await createTree({ ".gitignore": "vendored/\n", "vendored/AGENTS.md": new Uint8Array([0xff]), "AGENTS.md": "ok" });
    const report = await run(tree, ["codelia"]);
    expect(codes(report)).toEqual([]);
    expect(report.scanned.ignoredDirs).toBe(1);
  });

  it("every CLAUDE.md a symlink to the AGENTS.md beside it is no claude-ignores-agents, and OpenCode is not said to read it", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root rules", "pkg/AGENTS.md": "pkg rules", "pkg/sub/AGENTS.md": "sub rules" });
    for (const dir of ["", "pkg/", "pkg/sub/"]) await makeSymlink(tree, `${dir}CLAUDE.md`, "AGENTS.md");
    const report = await run(tree);
    expect(find(report, "claude-ignores-agents")).toEqual([]);
    const disagree = find(report, "agents-disagree");
    // One finding for the text: AGENTS.md files, never gemini; no CLAUDE.md is named as a file OpenCode reads.
    expect(disagree.map((finding) => [finding.paths, finding.agents])).toEqual([
      [[tree.path("AGENTS.md"), tree.path("pkg/AGENTS.md"), tree.path("pkg/sub/AGENTS.md")], ["gemini"]],
    ]);
    expect(disagree[0]!.readBy).toContain("opencode");
    expect(report.findings.some((finding) => finding.path.endsWith("CLAUDE.md"))).toBe(false);
  });

  it("a CLAUDE.md linked to the root AGENTS.md reports only the AGENTS.md files no CLAUDE file carries, with a fix for their directories", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root rules", "lib/AGENTS.md": "lib rules", "pkg/AGENTS.md": "pkg rules" });
    await makeSymlink(tree, "CLAUDE.md", "AGENTS.md");
    await makeSymlink(tree, "pkg/CLAUDE.md", "AGENTS.md");
    const [finding, ...rest] = find(await run(tree, ["claude"]), "claude-ignores-agents");
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ path: tree.path("CLAUDE.md"), paths: [tree.path("CLAUDE.md"), tree.path("lib/AGENTS.md")] });
    expect(finding!.message).toContain("1 AGENTS.md file below it never loads there");
    expect(finding!.fix).toContain(`give ${tree.path("lib")} a CLAUDE.md holding "@AGENTS.md"`);
    expect(finding!.fix).not.toContain("add a line");
  });

  it("hygge's .agents/AGENTS.md is not an excluded-dir finding; a file inside an excluded directory still is", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", ".agents/AGENTS.md": "hygge's own", "node_modules/AGENTS.md": "vendored" });
    const report = await run(tree);
    expect(find(report, "excluded-dir").map((finding) => finding.path)).toEqual([tree.path("node_modules/AGENTS.md")]);
  });

  it("an AGENTS.override.md hiding a bigger AGENTS.md from Codex is reported with a fix (kanbus: 606 bytes over 16.5 KB)", async () => {
    const tree = await createTree({
      ".git/": null,
      "AGENTS.override.md": "o".repeat(606),
      "AGENTS.md": "a".repeat(16_896),
      "pkg/AGENTS.override.md": "big override ".repeat(100),
      "pkg/AGENTS.md": "small",
    });
    const report = await run(tree);
    const findings = find(report, "override-hides-bigger-file");
    expect(findings).toEqual([
      expect.objectContaining({ severity: "warning", path: tree.path("AGENTS.override.md"), paths: [tree.path("AGENTS.override.md"), tree.path("AGENTS.md")] }),
    ]);
    expect(findings[0]!.agents).toContain("codex");
    expect(findings[0]!.message).toContain("(606 bytes) replaces");
    expect(findings[0]!.message).toContain("(16896 bytes)");
    expect(findings[0]!.fix).toContain("move its text into AGENTS.md");
  });

  it("corpus: on kanbus's real layout doctor says its 606-byte AGENTS.override.md hides the 16,516-byte AGENTS.md from Codex", async () => {
    const kanbus = loadCorpus().find((repo) => repo.name === "kanbus")!;
    const tree = await createTree({});
    const root = materialise(kanbus, tree.path("kanbus"));
    const report = await doctor({ root, session: { home: tree.home, env: {} } });
    const [finding] = find(report, "override-hides-bigger-file").filter((each) => each.path === `${root}/AGENTS.override.md`);
    expect(finding).toMatchObject({ severity: "warning", paths: [`${root}/AGENTS.override.md`, `${root}/AGENTS.md`] });
    expect(finding!.agents).toContain("codex");
    expect(finding!.message).toContain("(606 bytes) replaces");
    expect(finding!.message).toContain("(16516 bytes)");
  });

  it("advisory findings are info unless the repository has a file or settings of one of their agents (here .github/copilot-instructions.md, .gemini/)", async () => {
    const plain = await createTree({ ".git/": null, "AGENTS.md": "a", "dist/AGENTS.md": "built" });
    const before = await run(plain);
    const advisory = before.findings.filter((finding) => ADVISORY_CODES.has(finding.code));
    expect(new Set(advisory.map((finding) => finding.code))).toEqual(new Set(["agents-disagree", "excluded-dir"]));
    expect(new Set(advisory.map((finding) => finding.severity))).toEqual(new Set(["info"]));
    const gemini = await createTree({ ".git/": null, "AGENTS.md": "a", ".gemini/": null });
    expect(find(await run(gemini), "agents-disagree").map((finding) => finding.severity)).toEqual(["warning"]);
    // AGENTS.override.md is never read by Copilot CLI: info, until the repository shows it uses Copilot.
    const override = { ".git/": null, "AGENTS.md": "rules", "AGENTS.override.md": "override" };
    const noCopilot = find(await run(await createTree(override), ["codex", "copilot"]), "agents-disagree");
    expect(noCopilot.map((finding) => [finding.agents, finding.severity])).toEqual([[["copilot"], "info"]]);
    const withCopilot = find(await run(await createTree({ ...override, ".github/copilot-instructions.md": "co" }), ["codex", "copilot"]), "agents-disagree");
    expect(withCopilot.filter((finding) => finding.path.endsWith("AGENTS.override.md")).map((finding) => finding.severity)).toEqual(["warning"]);
  });

  it("finds nothing in a clean tree", async () => {
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root", "pkg/AGENTS.md": "pkg" });
    const report = await run(tree, ["codelia", "codex"]);
    expect(report.findings).toEqual([]);
    expect(formatReport(report)).toContain("0 errors, 0 warnings, 0 info in 2 instruction files");
  });
});

describe("agentsmd doctor", () => {
  it("exits 1 when a finding is an error, 0 otherwise, and prints one JSON document with --json", async () => {
    const bad = await createTree({ ".git/": null, "AGENTS.override.md": "", "AGENTS.md": "text" });
    const failed = await runCli(["--home", bad.home, "doctor", bad.root]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("error    empty-override");
    expect(failed.stderr).toContain("doctor found 1 error");

    const fine = await createTree({ ".git/": null, "AGENTS.md": "text" });
    const ok = await runCli(["--home", fine.home, "--json", "doctor", fine.root]);
    expect(ok.code).toBe(0);
    const report = JSON.parse(ok.stdout) as DoctorReport;
    expect(report.root).toBe(fine.root);
    expect(report.counts.error).toBe(0);
  });

  it("--json: every finding carries its own fix, and the exit-1 line points into the JSON, not at fix lines it never printed", async () => {
    const bad = await createTree({
      ".git/": null,
      "AGENTS.override.md": "",
      "AGENTS.md": "text",
      ".cursor/rules/bad.mdc": "---\ndescription: x\nalwaysApply: [\nglobs: a/**\n---\nBODY\n",
    });
    const failed = await runCli(["--home", bad.home, "--json", "doctor", bad.root]);
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as DoctorReport;
    expect(report.findings.map((finding) => finding.code)).toEqual(expect.arrayContaining(["empty-override", "rule-frontmatter"]));
    for (const finding of report.findings) {
      expect(finding.fix.length).toBeGreaterThan(0);
      expect(finding.fix).not.toMatch(/\b(above|see the message)\b/);
    }
    expect(failed.stderr).toContain("doctor found 2 errors");
    expect(failed.stderr).not.toContain("above");
    expect(failed.stderr).toContain('apply the "fix" of each finding with "severity": "error" in the JSON report');
    // as text, the fix lines are printed above the summary
    expect((await runCli(["--home", bad.home, "doctor", bad.root])).stderr).toContain("see the fix line of each error above");
  });

  it("enters gitignored directories with --no-gitignore", async () => {
    const tree = await createTree({ ".gitignore": "vendored/\n", "vendored/AGENTS.md": new Uint8Array([0xff]) });
    const run1 = await runCli(["--home", tree.home, "doctor", "--no-gitignore", tree.root]);
    expect(run1.code).toBe(1);
    expect(run1.stdout).toContain("invalid-utf8");
  });
});
