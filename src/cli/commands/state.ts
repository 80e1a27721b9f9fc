/**
 * Commands against a persisted session: resolve, touch, resume. The state file is locked across
 * processes and replaced atomically.
 */
import type { Command } from "commander";
import { createSession, restoreSession, type AgentsSession } from "../../session/session.js";
import { readStateFile, withLock, writeStateFile } from "../../io/state-store.js";
import { StateError } from "../../core/errors.js";
import type { ResolvedAgents, SessionState } from "../../core/schema.js";
import { dirname } from "node:path";
import { nodeFileSystem } from "../../io/file-system.js";
import { quote } from "../../core/quote.js";
import type { CommandContext } from "../context.js";
import { reportDiagnostics } from "./inspect.js";
import { resolveConfig } from "../../load/config.js";
import { isDeepStrictEqual } from "node:util";
import { homedir } from "node:os";
import { homeFromEnv } from "../../core/paths.js";

/**
 * The path of a `--state` file whose directory exists: a typo'd directory is refused, never created
 * (with its whole chain) to hold a state nobody will find again.
 */
async function stateFilePath(context: CommandContext, stateFile: string): Promise<string> {
  const path = context.path(stateFile);
  const dir = dirname(path);
  const info = await nodeFileSystem.stat(dir).catch(() => null);
  if (info?.kind !== "directory")
    throw new StateError(`the directory of --state ${path} does not exist: ${dir}`, {
      path: dir,
      fix: `create it first (mkdir -p ${quote(dir)}) or pass a --state file in an existing directory`,
    });
  return path;
}

/**
 * A state keeps the preset it was created with: a different `--preset` is refused rather than
 * silently ignored.
 */
function checkPreset(command: Command, context: CommandContext, path: string, state: SessionState): void {
  const asked = context.globals(command).preset;
  if (asked === undefined || asked === state.preset) return;
  throw new StateError(`state file ${path} holds a session of preset ${quote(state.preset)}, not ${quote(asked)}`, {
    path,
    fix: `drop --preset (or pass --preset ${quote(state.preset)}) to go on with this session, or pass a new --state file (or delete this one) to start fresh with preset ${quote(asked)}`,
  });
}

/**
 * A state keeps the configuration it was created with: a `--config` file whose settings differ from
 * the state's is refused rather than silently ignored (the same settings go on).
 */
async function checkConfig(command: Command, context: CommandContext, path: string, state: SessionState): Promise<void> {
  const options = context.sessionOptions(command);
  if (options.configFile === undefined) return;
  // The state keeps the settings it was created from; both are resolved as a session would.
  const base = { cwd: state.cwd, env: options.env ?? {}, preset: state.preset, home: options.home ?? homeFromEnv(options.env ?? {}, homedir) };
  const [asked, kept] = await Promise.all([
    resolveConfig({ ...base, configFile: options.configFile }),
    resolveConfig({ ...base, fileConfig: { path: "session state", config: state.config } }),
  ]);
  if (isDeepStrictEqual(asked.config, kept.config)) return;
  throw new StateError(`state file ${path} holds a session created with other settings than --config ${options.configFile}`, {
    path,
    fix: `drop --config to go on with this session's settings, or pass a new --state file (or delete this one) to start fresh with ${quote(options.configFile)}`,
  });
}

/** Opens the session of a state file (created on first use), runs `fn`, saves. */
async function withStateSession<T>(context: CommandContext, command: Command, stateFile: string, fn: (session: AgentsSession) => Promise<T>): Promise<T> {
  const path = await stateFilePath(context, stateFile);
  return withLock(path, async () => {
    const state = await readStateFile(path);
    if (state) {
      checkPreset(command, context, path, state);
      await checkConfig(command, context, path, state);
    }
    const options = context.sessionOptions(command);
    const explicitCwd = context.globals(command).cwd !== undefined;
    const session = state
      ? (await restoreSession(state, { ...options, ...(explicitCwd ? {} : { cwd: state.cwd }), admit: false })).session
      : await createSession(options);
    const result = await fn(session);
    await writeStateFile(path, session.snapshot());
    reportDiagnostics(context, session.diagnostics);
    await session.close();
    return result;
  });
}

export function registerState(program: Command, context: CommandContext): void {
  program
    .command("resolve")
    .description("against a persisted session: the AGENTS.md files newly applicable to PATH (docs/loading-rules.md#progressive-resolution)")
    .argument("<paths...>", "target paths (files or directories, existing or not)")
    .requiredOption("--state <file>", "session state file (created on first use)")
    .action(async (paths: string[], options: { state: string }, command: Command) => {
      const found = await withStateSession(context, command, options.state, async (session) => {
        const all: ResolvedAgents = { files: [] };
        for (const path of paths) all.files.push(...(await session.resolve(context.path(path))).files);
        return { all, text: session.reminder(all) };
      });
      if (context.globals(command).json) context.json(found.all);
      else context.out(found.text);
    });

  program
    .command("touch")
    .description(
      "inline mode: the bodies of instruction files newly applicable to PATH, exactly as a host would add them (a final newline is added only on a terminal)",
    )
    .argument("<paths...>", "target paths")
    .requiredOption("--state <file>", "session state file (created on first use)")
    .action(async (paths: string[], options: { state: string }, command: Command) => {
      const result = await withStateSession(context, command, options.state, async (session) => {
        const blocks = await session.touch(paths.map((path) => context.path(path)));
        return { blocks, text: session.renderInline(blocks) };
      });
      if (context.globals(command).json) {
        context.json({ blocks: result.blocks.map(({ path, layer, content, truncated }) => ({ path, layer, content, truncated })) });
      } else context.exact(result.text);
    });

  program
    .command("resume")
    .description("the session.resume.diff reminder for the current cwd/root/markers (empty when nothing changed)")
    .requiredOption("--state <file>", "session state file")
    .action(async (options: { state: string }, command: Command) => {
      const path = await stateFilePath(context, options.state);
      const diff = await withLock(path, async () => {
        const state = await readStateFile(path);
        if (!state) throw new StateError(`state file ${path} does not exist`, { path, fix: "run `agentsmd resolve --state FILE` first to create a session" });
        checkPreset(command, context, path, state);
        await checkConfig(command, context, path, state);
        const { session, diff } = await restoreSession(state, context.sessionOptions(command));
        await writeStateFile(path, session.snapshot());
        reportDiagnostics(context, session.diagnostics);
        return diff;
      });
      if (context.globals(command).json) context.json({ diff });
      else context.out(diff);
    });
}
