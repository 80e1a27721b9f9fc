/**
 * Gemini CLI's own context loading, run from the installed `@google/gemini-cli-core` (pinned in
 * e2e/gemini/package.json): a long-lived child process that answers one JSON request per stdin
 * line with one JSON line on stdout. Started by oracle.ts; plain JavaScript so that plain `node`
 * runs it without a TypeScript step.
 *
 * What it calls is what Gemini CLI 0.61.0 calls, nothing re-implemented:
 * - startup: a real `Config` (the class the CLI builds), `storage.initialize()`, then
 *   `new MemoryContextManager(config).refresh()`: the two lines `Config._initialize()` runs
 *   (the rest of `_initialize` starts tools, MCP servers and the model client, which memory does
 *   not use). The memory is then read back with the Config's own getters
 *   (`getUserMemory`, `getSystemInstructionMemory`, `getSessionMemory`) and rendered with
 *   `renderUserMemory` from `prompts/snippets.js` (what `getCoreSystemPrompt` calls);
 * - `context.fileName`: `setGeminiMdFilename(names)` on a fresh name list, as the CLI's
 *   `loadCliConfig` does;
 * - just in time: `discoverJitContext(config, path)` and `appendJitContext` from
 *   `tools/jit-context.js`, what read_file, list_directory, write_file, replace and
 *   read_many_files call after they succeed.
 *
 * Requests:
 *   {"op":"start","cwd":"/abs","home":"/abs","geminiCliHome":"/abs"?,"fileName":["AGENTS.md"]?,"markers":[".git"]?}
 *     -> {"session":1,"memory":{global,extension,project,userProjectMemory},"systemMemory":...,
 *         "sessionMemory":"...","rendered":"...","systemRendered":"...","names":[...],"loadedPaths":[...]}
 *   {"op":"jit","session":1,"path":"/abs/target"} -> {"jit":"...","appended":"..."}
 *   {"op":"close","session":1} -> {}
 * Each answer carries the request's `id`; an error answers {"id","error"}.
 *
 * HOME and GEMINI_CLI_HOME are set in this process for each request (Gemini reads them on every
 * call: `os.homedir()` and its own `homedir()`), so one process serves every fixture.
 */
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGE_DIR = process.argv[2];
if (!PACKAGE_DIR) throw new Error("usage: node oracle.mjs <dir of @google/gemini-cli-core>");
const load = (rel) => import(pathToFileURL(join(PACKAGE_DIR, "dist", "src", rel)).href);

const [{ Config }, { MemoryContextManager }, { renderUserMemory }, jitContext, memoryTool, { debugLogger }] = await Promise.all([
  load("config/config.js"),
  load("context/memoryContextManager.js"),
  load("prompts/snippets.js"),
  load("tools/jit-context.js"),
  load("tools/memoryTool.js"),
  load("utils/debugLogger.js"),
]);

// Gemini's log output would mix with the answers on stdout: send it to stderr, debug lines only
// with AGENTSMD_E2E_GEMINI_DEBUG=1 (the CLI does not print them either).
for (const level of ["log", "debug", "info", "warn", "error"]) {
  if (typeof debugLogger[level] !== "function") continue;
  debugLogger[level] =
    level === "debug" && process.env.AGENTSMD_E2E_GEMINI_DEBUG !== "1"
      ? () => undefined
      : (...args) => process.stderr.write(`[gemini ${level}] ${args.map(String).join(" ")}\n`);
}

const sessions = new Map();
let nextSession = 1;

function useEnv(env) {
  process.env.HOME = env.home;
  if (env.geminiCliHome) process.env.GEMINI_CLI_HOME = env.geminiCliHome;
  else delete process.env.GEMINI_CLI_HOME;
}

async function start(request) {
  const env = { home: request.home, geminiCliHome: request.geminiCliHome };
  useEnv(env);
  memoryTool.resetGeminiMdFilename();
  if (request.fileName !== undefined) memoryTool.setGeminiMdFilename(request.fileName);
  const names = memoryTool.getAllGeminiMdFilenames();
  const config = new Config({
    sessionId: `agentsmd-e2e-${nextSession}`,
    targetDir: request.cwd,
    cwd: request.cwd,
    debugMode: false,
    model: "gemini-2.5-pro",
    ...(request.markers !== undefined ? { memoryBoundaryMarkers: request.markers } : {}),
  });
  if (!config.isTrustedFolder()) throw new Error(`${request.cwd} is not trusted: Gemini would load no workspace memory`);
  await config.storage.initialize();
  config.memoryContextManager = new MemoryContextManager(config);
  await config.memoryContextManager.refresh();
  const session = nextSession++;
  sessions.set(session, { config, env, names });
  const memory = config.getUserMemory();
  const systemMemory = config.getSystemInstructionMemory();
  return {
    session,
    names,
    memory,
    systemMemory,
    sessionMemory: config.getSessionMemory(),
    rendered: renderUserMemory(memory, names),
    systemRendered: renderUserMemory(systemMemory, names),
    loadedPaths: config.getGeminiMdFilePaths(),
  };
}

async function jit(request) {
  const state = sessions.get(request.session);
  if (!state) throw new Error(`no session ${request.session}`);
  useEnv(state.env);
  // The names are module state: put back this session's (another session may have changed them).
  memoryTool.resetGeminiMdFilename(state.names);
  const text = await jitContext.discoverJitContext(state.config, request.path);
  return { jit: text, appended: jitContext.appendJitContext("", text) };
}

const handlers = {
  start,
  jit,
  close: async (request) => (sessions.delete(request.session), {}),
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let queue = Promise.resolve();
lines.on("line", (line) => {
  if (line.trim() === "") return;
  queue = queue.then(async () => {
    let request;
    try {
      request = JSON.parse(line);
      const handler = handlers[request.op];
      if (!handler) throw new Error(`unknown op ${request.op}`);
      const result = await handler(request);
      process.stdout.write(`${JSON.stringify({ id: request.id, ...result })}\n`);
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ id: request?.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`);
    }
  });
});
lines.on("close", () => void queue.then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ ready: true, version: process.argv[3] ?? "" })}\n`);
