#!/usr/bin/env node
/**
 * Trims a session log recorded by the audit e2e suites (AGENTSMD_AUDIT_RECORD=1) into a unit
 * fixture of test/audit/logs/: the temp repository and home become /REPO and /HOME, records no
 * reader uses are dropped, and long texts that hold no fixture marker (system prompts, tool
 * listings) are cut to their first 200 characters, so no agent's prompt text is committed.
 *
 *   node scripts/audit-trim-log.mjs RAW.jsonl REPO HOME EDITED_AT_ISO > NAME.jsonl
 *
 * A log that is one JSON document (Cline's `<id>.messages.json`, RAW.json) stays one document, the
 * fixture time under its `fixture` key; its system prompt keeps Cline's `<env>` block (the
 * working directory) and `# Rules` section, the rest cut likewise.
 */
import { readFileSync } from "node:fs";

const [raw, repo, home, editedAt] = process.argv.slice(2);
if (!raw || !repo || !home || !editedAt) {
  console.error("usage: node scripts/audit-trim-log.mjs RAW.jsonl REPO HOME EDITED_AT_ISO");
  process.exit(2);
}
const DROP = new Set([
  "event_msg",
  "token_usage_record",
  "world_state",
  "api-request",
  "api-request-blob",
  "queue-operation",
  "atis-latch",
  "last-prompt",
  "cost-state",
  "tools-used",
  "mode",
  // Copilot CLI
  "session.usage_record",
  "session.shutdown",
  "assistant.turn_start",
  "assistant.turn_end",
]);
const MARKER = /AUDIT-|AUD-|RULE-|agentsmd:/;
/** A prompt-sized text with a marker (Copilot's system prompt with its instruction files): its marker paragraphs only. */
const paragraphs = (value) =>
  value
    .split("\n\n")
    .map((each) => (MARKER.test(each) ? each : "[trimmed]"))
    .filter((each, index, all) => each !== "[trimmed]" || all[index - 1] !== "[trimmed]")
    .join("\n\n");
const cut = (value) => {
  if (typeof value === "string") {
    if (value.length > 4000 && MARKER.test(value)) return paragraphs(value);
    return value.length > 600 && !MARKER.test(value) ? `${value.slice(0, 200)} [trimmed]` : value;
  }
  if (Array.isArray(value)) return value.map(cut);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, cut(each)]));
  return value;
};
if (raw.endsWith(".json")) {
  const doc = JSON.parse(readFileSync(raw, "utf8").split(repo).join("/REPO").split(home).join("/HOME"));
  const system = typeof doc.system_prompt === "string" ? doc.system_prompt : "";
  const kept = [system.match(/<env>[\s\S]*?<\/env>/)?.[0], system.match(/^# Rules$[\s\S]*/m)?.[0]].filter(Boolean);
  const trimmed = { ...cut(doc), fixture: { editedAt } };
  if (system !== "") trimmed.system_prompt = [`${system.slice(0, 200)} [trimmed]`, ...kept].join("\n\n");
  process.stdout.write(`${JSON.stringify(trimmed, null, 2)}\n`);
  process.exit(0);
}
let shapes = 0;
const out = [JSON.stringify({ fixture: { editedAt } })];
for (const line of readFileSync(raw, "utf8").split("\n")) {
  if (line.trim() === "") continue;
  const record = JSON.parse(line.split(repo).join("/REPO").split(home).join("/HOME"));
  if (DROP.has(record.type) || record.fixture !== undefined) continue;
  if (record.type === "api-request-shape" && shapes++ > 0) continue;
  out.push(JSON.stringify(cut(record)));
}
process.stdout.write(out.join("\n") + "\n");
