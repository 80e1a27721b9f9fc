/**
 * `agentsmd audit` on Kilo Code's own session database (e2e/lib/family-audit.ts): without agentsmd
 * the nested pkg/AGENTS.md never reaches the model before the new file (Kilo attaches it only to a
 * read's result); with the plugin it comes with the `ls pkg` result before the write, and its
 * changed text again in the second turn. Needs `npm run build`.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { assertBuilt } from "../lib/agentsmd.js";
import { REPO_ROOT } from "../lib/install.js";
import { familyFixtures } from "../lib/opencode-family.js";
import { auditedSession, verdictsOf, type FamilyAuditHost } from "../lib/family-audit.js";
import { KILO_HOST, KILO_VERSION } from "./harness.js";

const PLUGIN_DIST = join(REPO_ROOT, "dist", "plugin", "kilo.js");
const newFixture = familyFixtures(KILO_HOST, [() => assertBuilt(PLUGIN_DIST)]);

const HOST: FamilyAuditHost = {
  host: "kilo",
  app: "kilo",
  database: "kilo.db",
  look: (_fx, dir) => ({ toolCalls: [{ tool: "bash", args: { command: `ls ${dir}`, description: "list" } }] }),
  plugin: { plugins: { "agentsmd.js": `export { default } from ${JSON.stringify(pathToFileURL(PLUGIN_DIST).href)};\n` } },
  timeoutMs: 360_000,
};

describe(`agentsmd audit on Kilo ${KILO_VERSION} sessions`, () => {
  test("without agentsmd: pkg/AGENTS.md never seen before the new file; the root AGENTS.md (system prompt, not stored) not judged", async () => {
    const { report } = await auditedSession(HOST, newFixture, false);
    console.log(JSON.stringify({ without: verdictsOf(report), summary: report.summary, notes: report.notes }));
    // The looked-into directory counts as a touched path (read only), the new file as the edit.
    expect(verdictsOf(report)).toEqual({ "pkg <- pkg/AGENTS.md": "never", "pkg/new.ts <- pkg/AGENTS.md": "never" });
    expect(report.summary).toMatchObject({ editedPaths: 1, coveredEdits: 0, coverage: 0 });
    expect(report.notes.join("\n")).toContain("1 instruction file Kilo Code puts in its system prompt itself not judged");
  }, 600_000);

  test("with the plugin: pkg/AGENTS.md before each write, its changed text again in the second turn", async () => {
    const { report } = await auditedSession(HOST, newFixture, true);
    console.log(JSON.stringify({ with: verdictsOf(report), summary: report.summary }));
    // The directory's instructions come with the look's own result (after that touch) and changed since.
    expect(verdictsOf(report)).toEqual({
      "pkg <- pkg/AGENTS.md": "changed-since",
      "pkg/new.ts <- pkg/AGENTS.md": "before",
      "pkg/b.ts <- pkg/AGENTS.md": "before",
    });
    expect(report.summary).toMatchObject({ editedPaths: 2, coveredEdits: 2, coverage: 100, duplicates: 0 });
  }, 900_000);
});
