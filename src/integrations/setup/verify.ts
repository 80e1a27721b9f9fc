/**
 * Checking an installed hook the way its agent would run it: read the command back from the
 * agent's configuration, run it through the shell with a tool event of that agent's own shape on
 * stdin, in a scratch project holding an AGENTS.md, and look for that file's text in the answer.
 * `setup` runs it after installing; `doctor` runs it for the user-scope hooks found installed.
 *
 * The scratch run keeps the user's files out of it: its own state directory (XDG_STATE_HOME), no
 * compile cache (AGENTSMD_COMPILE_CACHE=0), so
 * nothing is left behind.
 * A command from a repository's files is never run here: `commandProblem` only checks that the
 * program it names exists.
 */
import { spawn } from "node:child_process";
import { parse as parseShell } from "shell-quote";
import { absolute, join, nameOf } from "../../core/paths.js";
import { makeTempDir, nodeFileSystem, readJsonQuietly, removeTree, writeFileAtomic, ensureDir } from "../../io/file-system.js";
import { hookCommands } from "../../inspect/hook-entries.js";
import { commandHandlerOf } from "../host/hook-settings.js";
import { settingsPath } from "../claude-code/install.js";
import { codexHomeDir } from "../codex/install.js";
import { copilotHooksPath } from "../copilot/install.js";
import { geminiExtensionDir } from "../gemini/install.js";
import { qwenSettingsPath } from "../qwen/install.js";
import { findOnPath, type HookAgent } from "./agents.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Milliseconds a checked hook may take (the agents give it 30 s). */
const VERIFY_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The event each agent's check sends, and the answer field the agent reads. */
const PROBES: Readonly<Record<HookAgent, { event: string; tool: string; answer: "hookSpecificOutput" | "top" }>> = {
  "claude-code": { event: "PostToolUse", tool: "Read", answer: "hookSpecificOutput" },
  codex: { event: "PostToolUse", tool: "Bash", answer: "hookSpecificOutput" },
  gemini: { event: "AfterTool", tool: "read_file", answer: "hookSpecificOutput" },
  qwen: { event: "PostToolUse", tool: "read_file", answer: "hookSpecificOutput" },
  copilot: { event: "postToolUse", tool: "create", answer: "top" },
};

/** The project-directory variables each agent sets for its hooks. */
export const PROJECT_DIR_VARS: Readonly<Record<HookAgent, readonly string[]>> = {
  "claude-code": ["CLAUDE_PROJECT_DIR"],
  codex: [],
  gemini: ["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"],
  qwen: ["QWEN_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
  copilot: ["CLAUDE_PROJECT_DIR"],
};

/** A hook command agentsmd installed, as read back from the agent's configuration. */
export interface InstalledHook {
  host: HookAgent;
  /** The file it was read from. */
  file: string;
  /** The event whose command it is (the one the check sends). */
  event: string;
  command: string;
}

/**
 * The user-scope file each agent's agentsmd hooks live in.
 */
export function userHookFile(host: HookAgent, where: { home: string; env: Env }): string {
  const context = { ...where, projectDir: where.home };
  switch (host) {
    case "claude-code":
      return settingsPath("user", context);
    case "codex":
      return join(codexHomeDir(where.env, where.home), "hooks.json");
    case "gemini":
      return join(join(geminiExtensionDir(where.home, where.env), "hooks"), "hooks.json");
    case "qwen":
      return qwenSettingsPath({ ...context, scope: "user" });
    case "copilot":
      return copilotHooksPath("user", context);
  }
}

/**
 * The project-scope files agentsmd's hooks may be in (for the static check), with their agent.
 */
export function projectHookFiles(projectDir: string): Array<{ host: HookAgent; file: string }> {
  return [
    { host: "claude-code", file: join(projectDir, ".claude/settings.json") },
    { host: "claude-code", file: join(projectDir, ".claude/settings.local.json") },
    { host: "gemini", file: join(projectDir, ".gemini/settings.json") },
    { host: "qwen", file: join(projectDir, ".qwen/settings.json") },
    { host: "copilot", file: join(projectDir, ".github/hooks/agentsmd.json") },
  ];
}

/**
 * agentsmd's command for the checked event in `file`, or null when agentsmd has none there.
 */
export async function readInstalledHook(host: HookAgent, file: string): Promise<InstalledHook | null> {
  const document = await readJsonQuietly(nodeFileSystem, file);
  if (document === undefined) return null;
  const { event } = PROBES[host];
  const ours = commandHandlerOf(host);
  const pattern = host === "copilot" ? /(^|\s)hook\s+copilot\s+--event[=\s]postToolUse\s*$/ : null;
  for (const entry of hookCommands(document)) {
    if (entry.event !== event) continue;
    if (pattern ? pattern.test(entry.command) : ours({ type: "command", command: entry.command })) return { host, file, event, command: entry.command };
  }
  return null;
}

/**
 * What is wrong with the program a hook command names, without running it: a path that does not
 * exist, a name not on PATH, or the script `node` is given that does not exist. Null when it looks
 * runnable, or when the command is more than plain words (then only a run can tell).
 */
export async function commandProblem(command: string, context: { cwd: string; env: Env; vars?: Readonly<Record<string, string>> }): Promise<string | null> {
  let words: unknown[];
  try {
    words = parseShell(command, (key: string) => context.vars?.[key] ?? context.env[key] ?? "");
  } catch {
    return null;
  }
  if (words.length === 0 || !words.every((word): word is string => typeof word === "string")) return null;
  const exists = async (path: string) => (await nodeFileSystem.stat(absolute(path, context.cwd)).catch(() => null)) !== null;
  const program = words[0]!;
  if (program.includes("/")) {
    if (!(await exists(program))) return `${absolute(program, context.cwd)} does not exist`;
  } else if ((await findOnPath(program, context.env)) === null) return `${program} is not on PATH`;
  const script = words[1];
  if (/^node(js)?$/.test(nameOf(program)) && script !== undefined && !script.startsWith("-") && !(await exists(script)))
    return `${absolute(script, context.cwd)} does not exist`;
  return null;
}

/** What checking one hook found. */
export interface VerifyResult {
  host: HookAgent;
  command: string;
  /** The event sent (and the tool it names). */
  event: string;
  ok: boolean;
  ms: number;
  /** The file whose text the answer had to hold (in the scratch project). */
  expected: string;
  /** What the model would receive (the answer's context text). */
  answer?: string;
  /** Why the check failed. */
  problem?: string;
}

function eventFor(host: HookAgent, dir: string, target: string): Record<string, unknown> {
  const now = new Date().toISOString();
  const base = { session_id: "agentsmd-setup-check", transcript_path: join(dir, "transcript.jsonl"), cwd: dir };
  switch (host) {
    case "claude-code":
      return { ...base, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: target }, tool_response: {} };
    case "codex":
      return {
        ...base,
        transcript_path: null,
        hook_event_name: "PostToolUse",
        model: "gpt-5",
        permission_mode: "default",
        turn_id: "agentsmd-setup-check",
        tool_name: "Bash",
        tool_input: { command: "cat pkg/notes.txt" },
        tool_response: "",
        tool_use_id: "agentsmd-setup-check",
      };
    case "gemini":
      return { ...base, hook_event_name: "AfterTool", timestamp: now, tool_name: "read_file", tool_input: { absolute_path: target }, tool_response: {} };
    case "qwen":
      return {
        ...base,
        hook_event_name: "PostToolUse",
        timestamp: now,
        permission_mode: "default",
        tool_name: "read_file",
        tool_input: { absolute_path: target },
        tool_response: {},
      };
    case "copilot":
      return {
        sessionId: "agentsmd-setup-check",
        timestamp: Date.now(),
        cwd: dir,
        toolName: "create",
        toolArgs: { path: target, file_text: "notes\n" },
        toolResult: { resultType: "success", textResultForLlm: `Created file ${target}` },
      };
  }
}

/** The context text of an answer in the agent's answer field, or undefined. */
function answerText(host: HookAgent, stdout: string): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const holder = PROBES[host].answer === "top" ? data : (data as { hookSpecificOutput?: unknown } | null)?.hookSpecificOutput;
  const text = (holder as { additionalContext?: unknown } | null | undefined)?.additionalContext;
  return typeof text === "string" ? text : undefined;
}

function run(
  command: string,
  options: { cwd: string; env: Env; stdin: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      if (stdout.length < MAX_ANSWER_BYTES) stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString("utf8");
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.stdin);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: error.message, timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/**
 * Runs `command` as `host` would after a tool read a file below a nested AGENTS.md, and checks
 * that the answer carries that file's text.
 */
export async function verifyHook(host: HookAgent, command: string, options: { env: Env; home: string; timeoutMs?: number }): Promise<VerifyResult> {
  const dir = await makeTempDir("agentsmd-verify-");
  const started = performance.now();
  try {
    const project = join(dir, "project");
    const marker = `agentsmd setup check ${nameOf(dir)}: the instructions for pkg/`;
    await ensureDir(join(project, ".git"));
    await ensureDir(join(project, "pkg"));
    await writeFileAtomic(join(project, "AGENTS.md"), "# Project\n");
    await writeFileAtomic(join(project, "pkg/AGENTS.md"), `${marker}\n`);
    // Claude Code's own AGENTS.md loading skips a directory that has a CLAUDE.md: there the hook must deliver it.
    await writeFileAtomic(join(project, "pkg/CLAUDE.md"), "Notes for pkg/.\n");
    await writeFileAtomic(join(project, "pkg/notes.txt"), "notes\n");
    const target = join(project, "pkg/notes.txt");
    const env: Record<string, string | undefined> = {
      ...options.env,
      HOME: options.home,
      XDG_STATE_HOME: join(dir, "state"),
      AGENTSMD_COMPILE_CACHE: "0",
    };
    for (const name of PROJECT_DIR_VARS[host]) env[name] = project;
    const result = await run(command, {
      cwd: project,
      env,
      stdin: JSON.stringify(eventFor(host, project, target)),
      timeoutMs: options.timeoutMs ?? VERIFY_TIMEOUT_MS,
    });
    const ms = Math.round(performance.now() - started);
    const base = { host, command, event: `${PROBES[host].event} ${PROBES[host].tool}`, ms, expected: join(project, "pkg/AGENTS.md") };
    const answer = answerText(host, result.stdout.trim());
    if (answer?.includes(marker)) return { ...base, ok: true, answer };
    const why = result.timedOut
      ? `no answer within ${options.timeoutMs ?? VERIFY_TIMEOUT_MS} ms`
      : result.code !== 0
        ? `exit ${result.code ?? "signal"}${result.stderr.trim() ? `: ${result.stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`
        : answer === undefined
          ? `no ${PROBES[host].answer === "top" ? "additionalContext" : "hookSpecificOutput.additionalContext"} in its output (${result.stdout.trim() === "" ? "empty" : `${result.stdout.trim().slice(0, 120)}`})`
          : "its answer does not hold the nested AGENTS.md's text";
    return { ...base, ok: false, ...(answer !== undefined ? { answer } : {}), problem: why };
  } finally {
    await removeTree(dir);
  }
}
