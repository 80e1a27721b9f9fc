/**
 * The audit report on a terminal: per path (grouped by directory), each instruction file with its
 * verdict; the summary; what the log cannot prove; the fix when something was missed. Every name
 * from the log or the repository is quoted (core/quote.ts). Pure.
 */
import { quote } from "../core/quote.js";
import { isInside, parentOf } from "../core/paths.js";
import { countOf } from "../core/words.js";
import type { Verdict } from "./engine.js";
import type { AuditReport } from "./audit.js";

const VERDICT_WORDS: Record<Verdict, string> = {
  before: "seen before",
  after: "seen only after",
  never: "never seen",
  stale: "stale (changed on disk, new text never shown)",
  "changed-since": "changed on disk since (cannot tell)",
};

/** `path` below `dir`, without the leading slash. */
function below(path: string, dir: string): string {
  return path.slice(dir === "/" ? 1 : dir.length + 1);
}

function shown(path: string, report: Pick<AuditReport, "root" | "home">): string {
  if (path === report.root) return ".";
  if (isInside(path, report.root)) return quote(below(path, report.root));
  if (isInside(path, report.home)) return quote(`~/${below(path, report.home)}`);
  return quote(path);
}

/**
 * The report as text.
 */
export function formatAudit(report: AuditReport): string {
  const lines: string[] = [`${report.displayName} session ${quote(report.log)}`, `project ${quote(report.root)}`, ""];
  const groups = new Map<string, AuditReport["paths"]>();
  for (const entry of report.paths) {
    const dir = parentOf(entry.path);
    groups.set(dir, [...(groups.get(dir) ?? []), entry]);
  }
  let missed = false;
  for (const [dir, entries] of groups) {
    lines.push(`${shown(dir, report)}/`);
    for (const entry of entries) {
      lines.push(`  ${quote(below(entry.path, dir))} (${entry.edited ? "edited" : "read"}: ${entry.tools.map(quote).join(", ")})`);
      if (entry.files.length === 0) lines.push("    no instruction file applies");
      for (const file of entry.files) {
        if (file.verdict !== "before" && entry.edited) missed = true;
        const repeat = file.duplicates > 0 ? `, shown ${file.shown} times` : "";
        lines.push(
          `    ${file.verdict === "before" ? "ok  " : "MISS"} ${shown(file.path, report)}  ${VERDICT_WORDS[file.verdict]} (${file.by === "agent" ? `${report.displayName} loads it` : "agentsmd delivers it"}${repeat})`,
        );
      }
    }
  }
  if (report.paths.length === 0) lines.push("no path inside the project was touched");
  if (report.outside > 0) lines.push(`${countOf(report.outside, "touched path")} outside the project (not examined)`);
  const s = report.summary;
  lines.push(
    "",
    `coverage: ${s.coverage}% of edited paths had all their instructions before the first edit (${s.coveredEdits} of ${s.editedPaths})`,
    `touched: ${countOf(s.touchedPaths, "path")}, edited: ${s.editedPaths}`,
    `instructions delivered: ${countOf(s.deliveredBytes, "byte")}; repeated unchanged: ${countOf(s.duplicates, "time")} (${countOf(s.duplicateBytes, "byte")})`,
  );
  const unrecorded = [
    report.records.systemPrompt ? undefined : "the system prompt",
    report.records.hookContext ? undefined : "hook context",
    report.records.toolResults ? undefined : "tool results",
  ].filter((each): each is string => each !== undefined);
  if (unrecorded.length > 0) lines.push(`not recorded by ${report.displayName}'s log: ${unrecorded.join(", ")} (instructions there cannot be proven seen)`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (missed) lines.push("", `fix: ${report.fix}  (delivers each directory's instructions when the agent touches it)`);
  return lines.join("\n") + "\n";
}
