/**
 * Hook process rows: `agentsmd hook <host>` as a whole process per event, CPU (user +
 * sys) measured in alternating pairs against a bare `node -e 0` in the same run, plus the JavaScript
 * files each call loads and their bytes (a separate traced run). Every host of HOOK_HOSTS that has
 * an event builder below gets rows; a host without one is listed as missing so it is not
 * forgotten. Needs the build (`npm run build`: dist/hook/).
 *
 * Also the replay row: a recorded sequence of tool calls (bench/replay/calls.json) run through the
 * Claude Code hook as processes, through the in-process session, and through a no-op hook (the
 * floor a process per call costs anyway).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { alternatingPairs, runProcess, traceModules, BARE_NODE, type Command, type ModuleTrace, type PairResult } from "./lib/process-cpu.js";
import { BENCH_DIR, type TreeInfo } from "./generate-tree.js";
import { HOOK_HOSTS } from "../src/integrations/hosts.js";
import { createSession } from "../src/index.js";

const REPO = dirname(BENCH_DIR);
const HOOK_BIN = join(REPO, "dist/hook/hook.cjs");
/** The launcher beside the shared bundle alone (every host): what a call cost before per-host bundles. */
const SHARED_DIR = join(REPO, "dist/hook-shared");
const SHARED_BIN = join(SHARED_DIR, "hook.cjs");
/** The package's bin (package.json `bin`): what `node_modules/.bin/agentsmd hook <host>` and a global `agentsmd` run. */
const CLI_BIN = join(REPO, "dist/cli/agentsmd.cjs");

/** What a host's events look like: one builder per host, fed the same situations. */
interface HostEvents {
  sessionStart(session: string, cwd: string): object;
  read(session: string, cwd: string, path: string): object;
  edit(session: string, cwd: string, path: string): object;
  write(session: string, cwd: string, path: string): object;
  search(session: string, cwd: string, dir: string): object;
  /** env making the host deliver (not leave AGENTS.md to the host itself) */
  env?: Record<string, string>;
  /** SessionStart answers with the chain (false: the host loads it itself, e.g. Codex) */
  startDelivers: boolean;
  /** A prompt event the host fires between tool calls of one turn (Qwen Code's empty UserPromptSubmit), when it has one. */
  continuation?(session: string, cwd: string): object;
}

const claudeCode: HostEvents = {
  sessionStart: (session_id, cwd) => ({ session_id, hook_event_name: "SessionStart", cwd, source: "startup" }),
  read: (session_id, cwd, file_path) => ({
    session_id,
    hook_event_name: "PostToolUse",
    cwd,
    tool_name: "Read",
    tool_input: { file_path },
    tool_response: { type: "text", file: { filePath: file_path, numLines: 1, totalLines: 1 } },
  }),
  edit: (session_id, cwd, file_path) => ({
    session_id,
    hook_event_name: "PostToolUse",
    cwd,
    tool_name: "Edit",
    tool_input: { file_path, old_string: "a", new_string: "b" },
  }),
  write: (session_id, cwd, file_path) => ({ session_id, hook_event_name: "PostToolUse", cwd, tool_name: "Write", tool_input: { file_path, content: "x" } }),
  search: (session_id, cwd, path) => ({ session_id, hook_event_name: "PostToolUse", cwd, tool_name: "Grep", tool_input: { pattern: "value", path } }),
  env: { AGENTSMD_CLAUDE_AGENTS_MD: "inject" },
  startDelivers: true,
};

const quoteSh = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`;
const codexTool = (session_id: string, cwd: string, tool_name: string, command: string) => ({
  session_id,
  cwd,
  hook_event_name: "PostToolUse",
  tool_name,
  tool_input: { command },
  tool_response: "",
});
/** Codex: the shell tool (cat, rg) and apply_patch, as Codex 0.169.0 sends them. */
const codex: HostEvents = {
  sessionStart: (session_id, cwd) => ({ session_id, cwd, hook_event_name: "SessionStart", source: "startup" }),
  read: (session, cwd, path) => codexTool(session, cwd, "Bash", `cat ${quoteSh(path)}`),
  edit: (session, cwd, path) => codexTool(session, cwd, "apply_patch", `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch\n`),
  write: (session, cwd, path) => codexTool(session, cwd, "apply_patch", `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch\n`),
  search: (session, cwd, dir) => codexTool(session, cwd, "Bash", `rg value ${quoteSh(dir)}`),
  startDelivers: false,
};

const copilotTool = (sessionId: string, cwd: string, toolName: string, toolArgs: object) => ({
  sessionId,
  timestamp: 1795469978642,
  cwd,
  toolName,
  toolArgs,
  toolResult: { resultType: "success", textResultForLlm: "" },
});
/** GitHub Copilot CLI 1.0.102: camelCase payloads without an event name (inferred; install passes --event). */
const copilot: HostEvents = {
  sessionStart: (sessionId, cwd) => ({ sessionId, timestamp: 1795469978365, cwd, source: "new", initialPrompt: "go" }),
  read: (session, cwd, path) => copilotTool(session, cwd, "view", { path }),
  edit: (session, cwd, path) => copilotTool(session, cwd, "edit", { path, old_str: "a", new_str: "b" }),
  write: (session, cwd, path) => copilotTool(session, cwd, "create", { path, file_text: "x" }),
  search: (session, cwd, dir) => copilotTool(session, cwd, "grep", { pattern: "value", paths: [dir] }),
  // Copilot loads the chain itself (preset copilot): SessionStart answers nothing.
  startDelivers: false,
};

const snakeTool = (hook_event_name: string) => (session_id: string, cwd: string, tool_name: string, tool_input: object) => ({
  session_id,
  hook_event_name,
  cwd,
  transcript_path: "",
  tool_name,
  tool_input,
  tool_response: { llmContent: "" },
});
const geminiTool = snakeTool("AfterTool");
/** Gemini CLI 0.61.0: AfterTool with its tool ids (e2e/gemini-cli/FINDINGS.md). */
const gemini: HostEvents = {
  // A session's first BeforeAgent delivers the start (its SessionStart delivers nothing: docs/hosts/gemini.md).
  sessionStart: (session_id, cwd) => ({ session_id, hook_event_name: "BeforeAgent", cwd, transcript_path: "", prompt: "go" }),
  read: (session, cwd, file_path) => geminiTool(session, cwd, "read_file", { file_path }),
  edit: (session, cwd, file_path) => geminiTool(session, cwd, "replace", { file_path, old_string: "a", new_string: "b" }),
  write: (session, cwd, file_path) => geminiTool(session, cwd, "write_file", { file_path, content: "x" }),
  search: (session, cwd, dir_path) => geminiTool(session, cwd, "grep_search", { pattern: "value", dir_path }),
  // Gemini loads GEMINI.md itself; the chain's AGENTS.md files come from agentsmd at the start.
  startDelivers: true,
};
const qwenTool = snakeTool("PostToolUse");
/** Qwen Code 0.24.4: PostToolUse with its tool ids (e2e/qwen/FINDINGS.md). */
const qwen: HostEvents = {
  sessionStart: (session_id, cwd) => ({ session_id, hook_event_name: "SessionStart", cwd, transcript_path: "", source: "startup", model: "m" }),
  read: (session, cwd, file_path) => qwenTool(session, cwd, "read_file", { file_path }),
  edit: (session, cwd, file_path) => qwenTool(session, cwd, "edit", { file_path, old_string: "a", new_string: "b" }),
  write: (session, cwd, file_path) => qwenTool(session, cwd, "write_file", { file_path, content: "x" }),
  search: (session, cwd, path) => qwenTool(session, cwd, "grep_search", { pattern: "value", path }),
  // Qwen Code loads AGENTS.md from the root to cwd itself (preset qwen): SessionStart answers nothing.
  startDelivers: false,
  // Fired with an empty prompt before every tool-result continuation (e2e/qwen/FINDINGS.md).
  continuation: (session_id, cwd) => ({ session_id, hook_event_name: "UserPromptSubmit", cwd, transcript_path: "", prompt: "" }),
};

const clineEventOf = (taskId: string, cwd: string, fields: object) => ({ taskId, workspaceRoots: [cwd], agent_id: "a", parent_agent_id: null, ...fields });
const clineTool = (taskId: string, cwd: string, name: string, input: object) =>
  clineEventOf(taskId, cwd, { hookName: "tool_result", tool_result: { id: "t", name, input, output: [] } });
const patch = (path: string, verb: "Update" | "Add") =>
  verb === "Update" ? `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch\n` : `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch\n`;
/** Cline 3.x hooks (src/integrations/cline/input.ts): its tool names; `agent_start` carries nothing the model sees. */
const cline: HostEvents = {
  // A task's first prompt starts the conversation (no start answer reaches the model: docs/hosts/cline.md).
  sessionStart: (taskId, cwd) => clineEventOf(taskId, cwd, { hookName: "prompt_submit" }),
  read: (taskId, cwd, path) => clineTool(taskId, cwd, "read_files", { files: [{ path }] }),
  edit: (taskId, cwd, path) => clineTool(taskId, cwd, "apply_patch", { input: patch(path, "Update") }),
  write: (taskId, cwd, path) => clineTool(taskId, cwd, "apply_patch", { input: patch(path, "Add") }),
  search: (taskId, cwd) => clineTool(taskId, cwd, "search_codebase", { query: "value" }),
  startDelivers: false,
};
const droidTool = snakeTool("PostToolUse");
/** Factory Droid: Claude-style events with its own tool names (src/integrations/droid/input.ts). */
const droid: HostEvents = {
  sessionStart: (session_id, cwd) => ({ session_id, hook_event_name: "SessionStart", cwd, transcript_path: "", source: "startup" }),
  // Droid attaches the nested files of a path its Read touched itself: an Edit is where agentsmd delivers.
  read: (session, cwd, file_path) => droidTool(session, cwd, "Edit", { file_path, old_str: "a", new_str: "b" }),
  edit: (session, cwd, file_path) => droidTool(session, cwd, "Edit", { file_path, old_str: "a", new_str: "b" }),
  write: (session, cwd, file_path) => droidTool(session, cwd, "Create", { file_path, content: "x" }),
  search: (session, cwd, path) => droidTool(session, cwd, "Grep", { pattern: "value", path }),
  // Droid loads AGENTS.md from the root to cwd itself: SessionStart answers nothing there.
  startDelivers: false,
};

const crushTool = (session_id: string, cwd: string, tool_name: string, tool_input: object) => ({ event: "PreToolUse", session_id, cwd, tool_name, tool_input });
/** Crush (built from its source, src/integrations/crush/input.ts): PreToolUse with its tool names. */
const crush: HostEvents = {
  // Crush drops a SessionStart answer (where it runs one): the session opens at its first tool event.
  sessionStart: (session_id, cwd) => ({ event: "SessionStart", session_id, cwd }),
  read: (session, cwd, file_path) => crushTool(session, cwd, "view", { file_path }),
  edit: (session, cwd, file_path) => crushTool(session, cwd, "edit", { file_path, old_string: "a", new_string: "b" }),
  write: (session, cwd, file_path) => crushTool(session, cwd, "write", { file_path, content: "x" }),
  search: (session, cwd, path) => crushTool(session, cwd, "grep", { pattern: "value", path }),
  startDelivers: false,
};

const auggieTool = (conversation_id: string, cwd: string, tool_name: string, tool_input: object) => ({
  hook_event_name: "PostToolUse",
  conversation_id,
  workspace_roots: [cwd],
  tool_name,
  tool_input,
  tool_output: "",
});
/** Auggie (src/integrations/auggie/input.ts): PostToolUse only; a conversation's first event is its first tool call. */
const auggie: HostEvents = {
  // No start event: the first tool call of a conversation (a view of the workspace) stands for it.
  sessionStart: (session, cwd) => auggieTool(session, cwd, "view", { path: cwd, type: "directory" }),
  read: (session, cwd, path) => auggieTool(session, cwd, "view", { path, type: "file" }),
  edit: (session, cwd, path) => auggieTool(session, cwd, "str-replace-editor", { path, command: "str_replace", old_str: "a", new_str: "b" }),
  write: (session, cwd, path) => auggieTool(session, cwd, "save-file", { path, file_content: "x" }),
  search: (session, cwd, dir) => auggieTool(session, cwd, "view", { path: dir, type: "directory" }),
  // Auggie sends the workspace root's files itself (preset auggie).
  startDelivers: false,
};

/** Host -> its events; a host in HOOK_HOSTS missing here is reported. */
const HOST_EVENTS: Readonly<Record<string, HostEvents>> = { "claude-code": claudeCode, codex, copilot, gemini, qwen, cline, droid, auggie, crush };

export interface HookRow {
  host: string;
  event: string;
  via: "dist/hook/hook.cjs" | "dist/cli/agentsmd.cjs" | "shared bundle";
  /** the hook processes' CPU against `node -e 0` (the target's measure) */
  cpu?: PairResult;
  trace?: Pick<ModuleTrace, "modules" | "bytes" | "builtins">;
  target?: number;
  met?: boolean;
  error?: string;
}

/** The hook's environment: its own home, state and compile cache under `dir`. */
function hookEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    XDG_STATE_HOME: join(dir, "state"),
    XDG_CACHE_HOME: join(dir, "cache"),
    ...extra,
  };
}

const fmt = (n: number) => n.toFixed(0);

/** The targets, as ratios to `node -e 0` in the same run: a tool call's hook, and a session's first. */
const TOOL_TARGET = 1.3;
const START_TARGET = 1.6;

/**
 * The hook rows: per host, SessionStart (a new conversation each sample), PostToolUse on a seen
 * path (delivered before: the answer is empty) and on an unseen path (a new file each sample).
 */
export async function hookRows(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }): Promise<{ rows: HookRow[]; missing: string[] }> {
  const rows: HookRow[] = [];
  const missing = Object.keys(HOOK_HOSTS).filter((host) => !HOST_EVENTS[host]);
  if (!existsSync(HOOK_BIN)) {
    o.log(`  hook           skipped: ${HOOK_BIN} missing (npm run build)`);
    return { rows, missing };
  }
  // The shared bundle alone beside a launcher (in dist/, so node_modules still resolves).
  mkdirSync(SHARED_DIR, { recursive: true });
  for (const name of ["hook.cjs", "agentsmd-hook.cjs"]) copyFileSync(join(dirname(HOOK_BIN), name), join(SHARED_DIR, name));
  const pairs = o.quick ? 7 : 21;
  const warmup = o.quick ? 4 : 10;
  for (const host of Object.keys(HOOK_HOSTS)) {
    const events = HOST_EVENTS[host];
    if (!events) continue;
    const dir = mkdtempSync(join(tmpdir(), `agentsmd-bench-hook-${host}-`));
    mkdirSync(join(dir, "home"), { recursive: true });
    const env = hookEnv(dir, events.env);
    const command = (event: object, via: HookRow["via"] = "dist/hook/hook.cjs"): Command => ({
      argv: [process.execPath, via === "dist/hook/hook.cjs" ? HOOK_BIN : via === "shared bundle" ? SHARED_BIN : CLI_BIN, "hook", host],
      input: JSON.stringify(event),
      env,
    });
    const cwd = tree.root;
    const seenSession = `bench-seen-${host}`;
    // Set up the seen conversation (untimed).
    for (const event of [events.sessionStart(seenSession, cwd), events.read(seenSession, cwd, tree.deepFile)]) runProcess(command(event));
    let unseen = 0;
    const situations: Array<{
      event: string;
      target: number;
      make: (i: number) => object;
      expect?: (out: string) => void;
      via?: HookRow["via"];
    }> = [
      {
        event: "SessionStart",
        target: START_TARGET,
        make: (i) => events.sessionStart(`bench-start-${host}-${i}-${Date.now()}`, cwd),
        expect: (out) => {
          if (events.startDelivers && !out.includes("AGENTS.md")) throw new Error(`SessionStart delivered nothing: ${out.slice(0, 200)}`);
        },
      },
      {
        event: "PostToolUse seen",
        target: TOOL_TARGET,
        make: () => events.read(seenSession, cwd, tree.deepFile),
        expect: (out) => {
          if (out.trim() !== "") throw new Error(`a seen path answered: ${out.slice(0, 200)}`);
        },
      },
      {
        event: "PostToolUse unseen",
        target: TOOL_TARGET,
        make: () => events.read(seenSession, cwd, tree.touchPaths[unseen++ % tree.touchPaths.length]!),
      },
      ...(events.continuation
        ? [
            {
              event: "prompt continuation",
              target: TOOL_TARGET,
              make: () => events.continuation!(seenSession, cwd),
              expect: (out: string) => {
                if (out.trim() !== "") throw new Error(`a continuation answered: ${out.slice(0, 200)}`);
              },
            },
          ]
        : []),
      { event: "PostToolUse seen", target: TOOL_TARGET, make: () => events.read(seenSession, cwd, tree.deepFile), via: "dist/cli/agentsmd.cjs" },
      { event: "PostToolUse seen", target: TOOL_TARGET, make: () => events.read(seenSession, cwd, tree.deepFile), via: "shared bundle" },
    ];
    for (const s of situations) {
      const row: HookRow = { host, event: s.event, via: s.via ?? "dist/hook/hook.cjs", target: s.target };
      rows.push(row);
      try {
        // Untimed calls of the same kind first: the compile cache then holds this path's code.
        for (let i = 0; i < warmup; i++) runProcess(command(s.make(pairs + 1 + i), row.via));
        row.cpu = alternatingPairs(pairs, (i) => command(s.make(i), row.via), { check: s.expect ? (run) => s.expect!(run.stdout) : undefined });
        // Traced without the code cache: the bundle then loads through require (seen by the trace)
        // instead of vm.Script; the same file and bytes either way.
        const traced = command(s.make(pairs), row.via);
        const trace = traceModules({ ...traced, env: { ...traced.env, AGENTSMD_COMPILE_CACHE: "0" } });
        row.trace = { modules: trace.modules, bytes: trace.bytes, builtins: trace.builtins };
        row.met = row.cpu.ratio <= s.target;
        o.log(
          `  hook           ${host} ${s.event.padEnd(18)} via ${row.via.padEnd(18)} cpu ${fmt(row.cpu.cpuMs)} ms vs node -e 0 ${fmt(row.cpu.baseMs)} ms = ${row.cpu.ratio.toFixed(2)}x (target ${s.target}x)  ${trace.modules} JS files, ${(trace.bytes / 1024).toFixed(0)} KB`,
        );
      } catch (error) {
        row.error = error instanceof Error ? error.message : String(error);
        o.log(`  hook           ${host} ${s.event} ERROR ${row.error.split("\n")[0]}`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
  for (const host of missing) o.log(`  hook           ${host}: no event builder in bench/hook.ts (add one)`);
  return { rows, missing };
}

// ---------------------------------------------------------------- replay

/** One recorded tool call, paths relative to the tree root. */
interface ReplayCall {
  tool: "Read" | "Edit" | "Write" | "Grep";
  path: string;
}

const REPLAY_FILE = join(BENCH_DIR, "replay", "calls.json");

/**
 * The recorded sequence (bench/replay/calls.json, made once by `recordReplay` and committed): an
 * agent working in a few areas of the tree at a time: reads, edits of files it read, writes of new
 * files next to them, searches of their directories.
 */
function loadReplay(tree: TreeInfo): ReplayCall[] {
  if (!existsSync(REPLAY_FILE)) throw new Error(`${REPLAY_FILE} missing: node bench/.build/bench/hook.js --record`);
  const calls = JSON.parse(readFileSync(REPLAY_FILE, "utf8")) as ReplayCall[];
  const missing = calls.filter((c) => c.tool === "Read" && !existsSync(join(tree.root, c.path)));
  if (missing.length > 0) throw new Error(`replay paths missing from the tree (${missing.length}, e.g. ${missing[0]!.path}): regenerate the default tree`);
  return calls;
}

/** Makes the recorded sequence from the tree (seeded, deterministic). */
function recordReplay(tree: TreeInfo, count = 1000, seed = 15): ReplayCall[] {
  let state = seed >>> 0;
  const rand = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const calls: ReplayCall[] = [];
  const rel = (p: string) => relative(tree.root, p);
  const areas = tree.touchPaths.slice(0, 400);
  let area = pick(areas);
  let written = 0;
  while (calls.length < count) {
    if (rand() < 0.08) area = pick(areas); // move on to another part of the tree
    const dir = dirname(area);
    const r = rand();
    if (r < 0.5) calls.push({ tool: "Read", path: rel(rand() < 0.6 ? area : pick(areas)) });
    else if (r < 0.7) calls.push({ tool: "Edit", path: rel(area) });
    else if (r < 0.8) calls.push({ tool: "Write", path: rel(join(dir, `replay-new-${written++}.ts`)) });
    else calls.push({ tool: "Grep", path: rel(rand() < 0.5 ? dir : dirname(dir)) });
  }
  return calls;
}

export interface ReplayResult {
  calls: number;
  /** total CPU of the hook processes, ms */
  hookCpuMs: number;
  /** total CPU of the no-op hook processes (node reading stdin), ms: the floor */
  floorCpuMs: number;
  /** CPU of the same calls through one in-process session (session.touch), ms */
  inProcessCpuMs: number;
  /** hook / floor */
  ratio: number;
  delivered: number;
}

/** The no-op hook: a node process that reads its stdin and answers nothing. */
const NOOP_HOOK = [process.execPath, "-e", "require('fs').readFileSync(0)"];

/**
 * Runs the replay through the Claude Code hook (processes), a no-op hook (processes, the floor)
 * and an in-process session. Edits append a line to the file (restored after); writes create new
 * files (removed after). The hook and the floor alternate call by call.
 */
export async function replay(tree: TreeInfo, o: { quick: boolean; log: (s: string) => void }): Promise<ReplayResult | null> {
  if (!existsSync(HOOK_BIN)) return null;
  const all = loadReplay(tree);
  const calls = o.quick ? all.slice(0, 60) : all;
  const dir = mkdtempSync(join(tmpdir(), "agentsmd-bench-replay-"));
  mkdirSync(join(dir, "home"), { recursive: true });
  const originals = new Map<string, Buffer>();
  const created = new Set<string>();
  const touchDisk = (call: ReplayCall) => {
    const path = join(tree.root, call.path);
    if (call.tool === "Edit") {
      if (!originals.has(path)) originals.set(path, readFileSync(path));
      appendFileSync(path, "// edited\n");
    } else if (call.tool === "Write" && !existsSync(path)) {
      writeFileSync(path, "export {};\n");
      created.add(path);
    }
  };
  const event = (session: string, call: ReplayCall) => {
    const path = join(tree.root, call.path);
    return call.tool === "Read"
      ? claudeCode.read(session, tree.root, path)
      : call.tool === "Edit"
        ? claudeCode.edit(session, tree.root, path)
        : call.tool === "Write"
          ? claudeCode.write(session, tree.root, path)
          : claudeCode.search(session, tree.root, path);
  };
  const env = hookEnv(dir, claudeCode.env);
  try {
    const session = "bench-replay";
    const hookCommand = (event: object): Command => ({ argv: [process.execPath, HOOK_BIN, "hook", "claude-code"], input: JSON.stringify(event), env });
    runProcess(hookCommand(claudeCode.sessionStart(session, tree.root)));
    const cpu = { hook: 0, floor: 0 };
    let delivered = 0;
    for (const [i, call] of calls.entries()) {
      touchDisk(call);
      const runs = {
        hook: () => runProcess(hookCommand(event(session, call))),
        floor: () => runProcess({ ...BARE_NODE, argv: NOOP_HOOK, input: JSON.stringify(event(session, call)), env }),
      };
      // Alternating order, so neither always runs on a warmer machine.
      for (const which of i % 2 === 0 ? (["hook", "floor"] as const) : (["floor", "hook"] as const)) {
        const run = runs[which]();
        if (which === "hook") {
          if (run.status !== 0 || run.stderr) throw new Error(`hook failed on ${call.tool} ${call.path}: ${run.stderr.slice(0, 300)}`);
          if (run.stdout.trim()) delivered++;
        }
        cpu[which] += run.cpuMs;
      }
    }
    const hookCpu = cpu.hook;
    const floorCpu = cpu.floor;
    // The same calls through one in-process session (files already in their edited state).
    const before = process.cpuUsage();
    const s = await createSession({ cwd: tree.root, env: {} });
    for (const call of calls) await s.touch([join(tree.root, call.path)]);
    await s.close();
    const used = process.cpuUsage(before);
    const result: ReplayResult = {
      calls: calls.length,
      hookCpuMs: hookCpu,
      floorCpuMs: floorCpu,
      inProcessCpuMs: (used.user + used.system) / 1000,
      ratio: hookCpu / floorCpu,
      delivered,
    };
    o.log(
      `  replay         ${calls.length} tool calls: hook ${(hookCpu / 1000).toFixed(2)} s CPU = ${result.ratio.toFixed(2)}x the no-op hook's ${(floorCpu / 1000).toFixed(2)} s; in-process session ${result.inProcessCpuMs.toFixed(0)} ms; ${delivered} answers with files`,
    );
    return result;
  } finally {
    for (const [path, bytes] of originals) writeFileSync(path, bytes);
    for (const path of created) rmSync(path, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith(join("bench", "hook.js")) && process.argv.includes("--record")) {
  const { generateTree } = await import("./generate-tree.js");
  const tree = await generateTree();
  mkdirSync(dirname(REPLAY_FILE), { recursive: true });
  writeFileSync(REPLAY_FILE, JSON.stringify(recordReplay(tree), null, 0).replace(/\},\{/g, "},\n{") + "\n");
  console.log(`recorded ${REPLAY_FILE}`);
}
