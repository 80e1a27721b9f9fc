/**
 * `agentsmd audit` on real Qwen Code chat logs: the pinned qwen (0.24.4) runs the same two turns
 * twice against the scripted Chat Completions server (nested AGENTS.md; lib/AGENTS.md edited on
 * disk between the turns, the second turn a `--continue`), without agentsmd and after
 * `agentsmd install qwen`, and `agentsmd audit --last --agent qwen` tells them apart, finding the
 * log where Qwen keeps it. Qwen's log holds no system prompt: what Qwen loads itself and what
 * agentsmd answers at SessionStart (the edited file, at the resume) reached the model (the
 * requests show it) but cannot be proven from the log. AGENTSMD_AUDIT_RECORD=1 also copies both
 * logs to test/audit/logs/qwen/ (trimmed there by scripts/audit-trim-log.mjs: the unit fixtures).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cleanupAfterEach } from "../lib/cleanups.js";
import { assertAgentsmdBuilt, runAgentsmd } from "../lib/agentsmd.js";
import {
  classifyChatRequest,
  messageText,
  startOpenAIChatServer,
  systemTexts,
  type ChatRequestBody,
  type OpenAIChatServer,
  type ScriptStep,
} from "../lib/openai-chat-server.js";
import { REPO_ROOT } from "../lib/install.js";
import { createQwenFixture, describeQwenRun, editFile, qwenEntry, runQwen, type QwenFixture } from "./harness.js";

const FILES = {
  "QWEN.md": "# qwen\nToken AUDIT-QWEN-0: Qwen Code loads this itself.\n",
  "AGENTS.md": "# root\nToken AUDIT-ROOT-1: root rules.\n",
  "lib/AGENTS.md": "# lib\nToken AUDIT-LIB-3: lib rules.\n",
  "lib/old.ts": "export const old = 3;\n",
};
const EDITED = "# lib\nToken AUDIT-LIB-EDITED-4: lib rules, changed.\n";

const cleanups = cleanupAfterEach();

beforeAll(async () => {
  await assertAgentsmdBuilt();
  await qwenEntry();
}, 600_000);

/** Qwen's agent loop is the request with its own system prompt; its memory-extraction subagent is a side request. */
function qwenRequestKind(body: ChatRequestBody) {
  const kind = classifyChatRequest(body);
  return kind === "main" && !(systemTexts(body)[0] ?? "").startsWith("You are Qwen Code") ? "other" : kind;
}

async function turn(fx: QwenFixture, server: OpenAIChatServer, script: ScriptStep[], resume: boolean): Promise<void> {
  server.setScript(script);
  const run = await runQwen(fx, server, { prompt: "Work on the task.", resume });
  expect(run.code, describeQwenRun(run, server)).toBe(0);
  expect(server.turnsUsed, describeQwenRun(run, server)).toBe(script.length);
}

type Report = {
  log: string;
  paths: Array<{ path: string; files: Array<{ path: string; verdict: string; shown: number }> }>;
  summary: { coverage: number };
  notes: string[];
};

async function session(install: boolean) {
  const fx = await createQwenFixture(FILES);
  const server = await startOpenAIChatServer({ script: [], classify: qwenRequestKind });
  cleanups.push(
    () => fx.tree.cleanup(),
    () => server.close(),
  );
  if (install) await fx.installAgentsmd();
  const old = fx.path("lib/old.ts");
  await turn(
    fx,
    server,
    [
      { toolCalls: [{ tool: "read_file", args: { file_path: old } }] },
      { toolCalls: [{ tool: "edit", args: { file_path: old, old_string: "old = 3", new_string: "old = 4" } }] },
      { text: "done" },
    ],
    false,
  );
  await editFile(fx, "lib/AGENTS.md", EDITED);
  const editedAt = fs.statSync(fx.path("lib/AGENTS.md")).mtime.toISOString();
  await turn(
    fx,
    server,
    [{ toolCalls: [{ tool: "write_file", args: { file_path: fx.path("lib/new.ts"), content: "export const n = 5;\n" } }] }, { text: "done" }],
    true,
  );
  expect(fs.readFileSync(old, "utf8")).toBe("export const old = 4;\n");
  const last = server.mainRequests().at(-1)!.body!;
  const audit = await runAgentsmd(["audit", "--last", "--agent", "qwen", "--json"], { cwd: fx.repo, env: fx.env() });
  expect(audit.code, audit.stderr.toString()).toBe(0);
  const report = (JSON.parse(audit.stdout.toString()) as Report[])[0]!;
  if (process.env.AGENTSMD_AUDIT_RECORD === "1") {
    const out = path.join(REPO_ROOT, "test", "audit", "logs", "qwen", install ? "with-agentsmd.raw.jsonl" : "without-agentsmd.raw.jsonl");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.copyFileSync(report.log, out);
    fs.writeFileSync(out.replace(/\.raw\.jsonl$/, ".repo.txt"), `${fx.repo}\n${fx.home}\n${editedAt}\n`);
  }
  return { fx, report, system: systemTexts(last).join("\n"), request: (last.messages ?? []).map(messageText).join("\n") };
}

function verdicts(report: Report, repo: string) {
  return Object.fromEntries(
    report.paths.flatMap((entry) => entry.files.map((file) => [`${path.relative(repo, entry.path)} <- ${path.relative(repo, file.path)}`, file.verdict])),
  );
}

describe("agentsmd audit on Qwen Code 0.24.4 chat logs", () => {
  it("without agentsmd lib/AGENTS.md never reaches the model; with it, before the edit; what sits in Qwen's system prompt cannot be proven", async () => {
    const without = await session(false);
    const withIt = await session(true);
    const a = verdicts(without.report, without.fx.repo);
    const b = verdicts(withIt.report, withIt.fx.repo);
    console.log(JSON.stringify({ without: a, with: b, summaries: [without.report.summary, withIt.report.summary] }, null, 2));
    // --last found the log where Qwen keeps it
    expect(path.relative(without.fx.home, without.report.log)).toMatch(/^\.qwen\/projects\/[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/);
    // the model had Qwen's own files (its system prompt) both times; the log does not record them
    expect(without.system).toContain("AUDIT-QWEN-0");
    expect(without.system).toContain("AUDIT-ROOT-1");
    // so they are not judged, only counted in a note
    expect(a).toEqual({ "lib/old.ts <- lib/AGENTS.md": "never", "lib/new.ts <- lib/AGENTS.md": "never" });
    expect(without.report.notes.some((note) => note.includes("puts in its system prompt itself not judged"))).toBe(true);
    expect(without.request).not.toContain("AUDIT-LIB-");
    // with agentsmd: the nested file in the read's result, before the edit
    expect(b["lib/old.ts <- lib/AGENTS.md"]).toBe("before");
    // its edited text reached the model at the resume, in the system prompt (SessionStart): stale in the log
    expect(withIt.system).toContain("AUDIT-LIB-EDITED-4");
    expect(b["lib/new.ts <- lib/AGENTS.md"]).toBe("stale");
    expect(b["lib/old.ts <- AGENTS.md"]).toBeUndefined();
  }, 300_000);
});
