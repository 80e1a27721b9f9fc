import { describe, expect, it } from "vitest";
import { createTree } from "./helpers/tree.js";
import { doctor } from "../src/inspect/doctor.js";

const claudeHooks = (command: string) => JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command, timeout: 30 }] }] } });

async function findings(files: Record<string, string>) {
  const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root\n", ...files });
  const report = await doctor({
    root: tree.path("r"),
    session: { home: tree.path(".test-home"), env: { HOME: tree.path(".test-home") } },
    presets: ["codelia"],
  });
  return { tree, findings: report.findings.filter((finding) => /hook/.test(finding.code)) };
}

describe("doctor: hook entries", () => {
  it("warns when agentsmd's Claude Code hooks are only in the project's settings, and notes that Copilot CLI runs them too", async () => {
    const { tree, findings: found } = await findings({ "r/.claude/settings.json": claudeHooks("agentsmd hook claude-code") });
    expect(found.map((finding) => [finding.code, finding.severity])).toEqual([
      ["claude-hooks-project-only", "warning"],
      ["copilot-runs-claude-hooks", "info"],
    ]);
    expect(found[0]!.path).toBe(tree.path("r/.claude/settings.json"));
    expect(found[0]!.fix).toContain("agentsmd install claude-code");
  });

  it("is quiet about the project file when the user settings have the hooks too", async () => {
    const { findings: found } = await findings({
      "r/.claude/settings.json": claudeHooks("agentsmd hook claude-code"),
      ".test-home/.claude/settings.json": claudeHooks("/usr/bin/node /x/bin.js hook claude-code"),
    });
    expect(found.map((finding) => finding.code)).toEqual(["copilot-runs-claude-hooks"]);
  });

  it("reports entries a host mis-reads: claude-code in Copilot's hook files, copilot in Claude's settings, claude-code in Gemini's settings", async () => {
    const { tree, findings: found } = await findings({
      "r/.github/hooks/mine.json": JSON.stringify({ version: 1, hooks: { postToolUse: [{ type: "command", bash: "agentsmd hook claude-code" }] } }),
      ".test-home/.claude/settings.json": claudeHooks("agentsmd hook copilot --event postToolUse"),
      "r/.gemini/settings.json": claudeHooks("agentsmd hook claude-code"),
      ".test-home/.copilot/hooks/agentsmd.json": JSON.stringify({
        version: 1,
        hooks: { postToolUse: [{ type: "command", bash: "agentsmd hook copilot --event postToolUse" }] },
      }),
    });
    const misread = found.filter((finding) => finding.code === "hook-misread");
    expect(misread.map((finding) => finding.path).sort()).toEqual(
      [tree.path("r/.github/hooks/mine.json"), tree.path(".test-home/.claude/settings.json"), tree.path("r/.gemini/settings.json")].sort(),
    );
    expect(misread.find((finding) => finding.path.endsWith(".gemini/settings.json"))!.message).toContain("milliseconds");
  });
});
