/**
 * Checking an installed hook the way its agent would run it: read the command back from the
 * agent's configuration, run it through the shell with a tool event of that agent's own shape on
 * stdin, in a scratch project holding an AGENTS.md, and look for that file's text in the answer.
 * `setup` runs it after installing; `doctor` runs it for the user-scope hooks found installed.
 *
 * The scratch run keeps the user's files out of it: its own state directory (XDG_STATE_HOME), no
 * compile cache (AGENTSMD_COMPILE_CACHE=0), so nothing is left behind.
 * A command from a repository's files is never run here: `commandProblem` only checks that the
 * program it names exists.
 */
import { spawn } from "node:child_process";
import { parse as parseShell } from "shell-quote";
import { absolute, join, nameOf } from "../../core/paths.js";
import { makeTempDir, nodeFileSystem, readJsonQuietly, removeTree, writeFileAtomic, ensureDir } from "../../io/file-system.js";
import { hookCommands } from "../host/hook-commands.js";
import type { Env, HostVerify, InstalledHook } from "../host/definition.js";
import { findOnPath } from "./detect.js";

export type { InstalledHook };

/** Milliseconds a checked hook may take (the agents give it 30 s). */
const VERIFY_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * agentsmd's command for the checked event in `file`, or null when agentsmd has none there.
 */
export async function readInstalledHook(host: string, verify: HostVerify, file: string): Promise<InstalledHook | null> {
  const document = await readJsonQuietly(nodeFileSystem, file);
  if (document === undefined) return null;
  for (const entry of hookCommands(document)) {
    if (entry.event !== verify.event) continue;
    if (verify.isOurs(entry.command)) return { host, file, event: verify.event, command: entry.command };
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
  host: string;
  /** The command run, or for a plugin host the module file imported. */
  command: string;
  /** A plugin host: `command` is the module file, imported in-process as the host imports it. */
  module?: boolean;
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

/** The context text of an answer in the agent's answer field, or undefined. */
export function answerText(answer: HostVerify["answer"], stdout: string): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const record = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  const text =
    answer === "contextModification"
      ? record(data)?.contextModification
      : (answer === "top" ? record(data) : record(record(data)?.hookSpecificOutput))?.additionalContext;
  return typeof text === "string" ? text : undefined;
}

/** The answer field a host reads, as named to the user. */
const ANSWER_FIELD: Readonly<Record<HostVerify["answer"], string>> = {
  hookSpecificOutput: "hookSpecificOutput.additionalContext",
  top: "additionalContext",
  contextModification: "contextModification",
};

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
export async function verifyHook(
  host: string,
  verify: HostVerify,
  command: string,
  options: { env: Env; home: string; timeoutMs?: number },
): Promise<VerifyResult> {
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
    for (const name of verify.projectDirVars) env[name] = project;
    const result = await run(command, {
      cwd: project,
      env,
      stdin: JSON.stringify(verify.payload(project, target)),
      timeoutMs: options.timeoutMs ?? VERIFY_TIMEOUT_MS,
    });
    const ms = Math.round(performance.now() - started);
    const base = { host, command, event: `${verify.event} ${verify.tool}`, ms, expected: join(project, "pkg/AGENTS.md") };
    const answer = answerText(verify.answer, result.stdout.trim());
    if (answer?.includes(marker)) return { ...base, ok: true, answer };
    const why = result.timedOut
      ? `no answer within ${options.timeoutMs ?? VERIFY_TIMEOUT_MS} ms`
      : result.code !== 0
        ? `exit ${result.code ?? "signal"}${result.stderr.trim() ? `: ${result.stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`
        : answer === undefined
          ? `no ${ANSWER_FIELD[verify.answer]} in its output (${result.stdout.trim() === "" ? "empty" : `${result.stdout.trim().slice(0, 120)}`})`
          : "its answer does not hold the nested AGENTS.md's text";
    return { ...base, ok: false, ...(answer !== undefined ? { answer } : {}), problem: why };
  } finally {
    await removeTree(dir);
  }
}
