/**
 * Claude Code integration: `agentsmd hook claude-code` turns one hook event (JSON on stdin) into
 * the hook's JSON answer (`hookSpecificOutput.hookEventName` + `additionalContext`), delivering the
 * AGENTS.md files Claude Code does not load itself (peers §2, §9):
 *
 * - `SessionStart` `startup`/`clear`/`fork`: the initial AGENTS.md chain of the session's cwd;
 *   `resume`: only the resume diff (Claude Code replays earlier hook output itself); `compact`: the
 *   chain again plus the path-layer files admitted before, most specific first.
 * - `PostToolUse` for Read, Write, Edit, MultiEdit, NotebookEdit, and Grep/Glob with a `path`:
 *   the bodies of newly applicable files (`session.touch`), admitted once printed; files edited
 *   since they were admitted come again.
 * - `UserPromptSubmit`: a short notice naming admitted files that changed or were deleted.
 *
 * Never duplicated: CLAUDE.md files, an AGENTS.md that a CLAUDE file of its directory links or
 * imports, and every AGENTS.md while Claude Code's own AGENTS.md support is active (≥ 2.1.277 with no
 * CLAUDE file at or above cwd, or per its `instructionFiles` setting); then the hook only tracks
 * what Claude Code loaded, re-injects nested files after compaction and sends update notices.
 *
 * State: one JSON file per conversation (`session_id`, plus `agent_id` inside a subagent) under
 * `$CLAUDE_PLUGIN_DATA/sessions`, else `$XDG_STATE_HOME/agentsmd/claude-code`, else
 * `~/.local/state/agentsmd/claude-code`; read-modify-write under a cross-process lock, replaced
 * atomically, so parallel hook processes never deliver a file twice or lose an update.
 *
 * @example
 * import { handleClaudeCodeHook } from "agentsmd/claude-code";
 * const output = await handleClaudeCodeHook(JSON.parse(stdin), { deliver: (out) => out && process.stdout.write(JSON.stringify(out)) });
 */
import { homedir } from "node:os";
import { z } from "zod";
import { createSession, parseSessionState, restoreSession, type AgentsSession, type SessionOptions } from "../../session/session.js";
import { withLock } from "../../io/state-store.js";
import { ensureDir, nodeFileSystem, readTextFile, removeFile, writeFileAtomic, type FileSystem } from "../../io/file-system.js";
import { absolute, join, nameOf, parentOf } from "../../core/paths.js";
import { findImports } from "../../load/imports.js";
import { builtinAgentsMd, CLAUDE_FILE_TOOLS, CLAUDE_MD_NAMES } from "../../presets/claude.js";
import type { SessionState } from "../../core/schema.js";
import { foreignHookHost, hookStateDir, hookStatePath, toolTargets, validateHookInput, type ClaudeHookInput } from "./input.js";
import { CLAUDE_CONTEXT_LIMIT, DEFAULT_CONTEXT_BUDGET, fit, nearestFirst, packContext, packNotice } from "./pack.js";
import { quote } from "../../core/quote.js";

export { CLAUDE_FILE_TOOLS };
export {
  ClaudeHookInputSchema,
  HookInputError,
  parseHookInput,
  readHookJson,
  foreignHookHost,
  validateHookInput,
  normalizeHookInput,
  toolTargets,
  hookStateDir,
  hookStatePath,
} from "./input.js";
export type { ClaudeHookInput } from "./input.js";
export { CLAUDE_CONTEXT_LIMIT, DEFAULT_CONTEXT_BUDGET, nearestFirst, renderPiece, packContext } from "./pack.js";
export type { PackResult } from "./pack.js";

/** First Claude Code version with built-in AGENTS.md loading (peers §2.6). */
export const BUILTIN_AGENTS_MD_SINCE = "2.1.277";

export interface ClaudeHookOutput {
  hookSpecificOutput: { hookEventName: "SessionStart" | "PostToolUse" | "UserPromptSubmit"; additionalContext: string };
}

export type AgentsMdMode = "auto" | "inject" | "native";

export interface ClaudeHookOptions {
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** @default env.HOME or os.homedir() */
  home?: string;
  /** Session options for the AGENTS.md session (preset, config, configFile, fs). cwd comes from the event. */
  session?: Omit<SessionOptions, "cwd" | "home" | "env">;
  /** Where state files go. @default see module doc */
  stateDir?: string;
  /**
   * `inject`: deliver AGENTS.md; `native`: Claude Code loads it itself; `auto`: decide from the
   * Claude Code version (env `AGENTSMD_CLAUDE_CODE_VERSION`, else the transcript), its
   * `instructionFiles` setting and the CLAUDE files at or above cwd.
   * @default env AGENTSMD_CLAUDE_AGENTS_MD, else "auto"
   */
  agentsMd?: AgentsMdMode;
  /** Character budget of one answer. @default 9500 */
  budget?: number;
  /**
   * Called with the answer (null: print nothing) while the session lock is held, before the state
   * is saved: a file is marked admitted only after it was handed over.
   */
  deliver?(output: ClaudeHookOutput | null): void | Promise<void>;
  /** Non-fatal problems (an unreadable or corrupt state file that was replaced). */
  onDiagnostic?(message: string): void;
}

const HookStateSchema = z
  .object({
    kind: z.literal("agentsmd/claude-code"),
    version: z.literal(1),
    /** inject: agentsmd delivers AGENTS.md; native: Claude Code loads it itself. */
    mode: z.enum(["inject", "native"]),
    modeReason: z.string(),
    /** native only: Claude Code loads an AGENTS.md even where its directory has a CLAUDE file ("claude-md-and-agents-md"). */
    nativeBoth: z.boolean().optional(),
    /** Versions announced by an update notice (-1: deleted), so a notice is not repeated. */
    notified: z.record(z.string(), z.number()),
    /** Versions named (too large to show) and not shown, so the list is not repeated. */
    named: z.record(z.string(), z.number()),
    session: z.unknown(),
  })
  .strict();
type HookState = Omit<z.infer<typeof HookStateSchema>, "session"> & { session: SessionState };

interface Piece {
  path: string;
  mtimeMs: number;
  content: string;
  /** A scoped rule of a format Claude Code does not read: always shown, whatever the AGENTS.md mode. */
  rule?: unknown;
}

interface Context {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  fs: FileSystem;
  options: ClaudeHookOptions;
  budget: number;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split(".").map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < Math.max(pa.length, pb.length); index++) {
    const diff = (pa[index] ?? 0) - (pb[index] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The Claude Code version, from `AGENTSMD_CLAUDE_CODE_VERSION` or the transcript's `"version"` field. */
async function claudeVersion(input: ClaudeHookInput, context: Context): Promise<string | undefined> {
  const fromEnv = context.env.AGENTSMD_CLAUDE_CODE_VERSION?.trim();
  if (fromEnv) return fromEnv;
  if (!input.transcript_path) return undefined;
  try {
    const read = await context.fs.read(input.transcript_path, 256 * 1024);
    return /"version"\s*:\s*"(\d+\.\d+\.\d+)/.exec(Buffer.from(read.bytes).toString("utf8"))?.[1];
  } catch {
    return undefined;
  }
}

async function decideMode(input: ClaudeHookInput, context: Context): Promise<{ mode: "inject" | "native"; reason: string; both?: boolean }> {
  const forced = context.options.agentsMd ?? (context.env.AGENTSMD_CLAUDE_AGENTS_MD?.trim() as AgentsMdMode | undefined);
  if (forced === "inject" || forced === "native") return { mode: forced, reason: `forced (${forced})` };
  const version = await claudeVersion(input, context);
  if (version && compareVersions(version, BUILTIN_AGENTS_MD_SINCE) < 0) {
    return { mode: "inject", reason: `Claude Code ${version} has no built-in AGENTS.md loading (added in ${BUILTIN_AGENTS_MD_SINCE})` };
  }
  const builtin = await builtinAgentsMd({ fs: context.fs, cwd: input.cwd, home: context.home, env: context.env });
  return { mode: builtin.active ? "native" : "inject", reason: builtin.reason, both: builtin.mode === "claude-md-and-agents-md" };
}

/** File names of CLAUDE_MD_NAMES (`.claude/CLAUDE.md` is a `CLAUDE.md`). */
const CLAUDE_FILE_NAMES: ReadonlySet<string> = new Set(CLAUDE_MD_NAMES.map(nameOf));

function isClaudeFile(path: string): boolean {
  return CLAUDE_FILE_NAMES.has(nameOf(path));
}

/**
 * True when a CLAUDE file of the same directory is this file (symlink, hard link) or imports it
 * with `@path`: Claude Code then loads its text already.
 * @example await coveredByClaudeFile(nodeFileSystem, "/repo/AGENTS.md") // true when /repo/CLAUDE.md says "@AGENTS.md"
 */
export async function coveredByClaudeFile(fs: FileSystem, path: string): Promise<boolean> {
  const dir = parentOf(path);
  const info = await fs.stat(path).catch(() => null);
  for (const name of CLAUDE_MD_NAMES) {
    const candidate = join(dir, name);
    const other = await fs.stat(candidate).catch(() => null);
    if (!other || other.kind !== "file") continue;
    if (info && other.dev === info.dev && other.ino === info.ino) return true;
    try {
      const read = await fs.read(candidate, 256 * 1024);
      const text = Buffer.from(read.bytes).toString("utf8");
      for (const token of findImports(text)) {
        if (token.path.startsWith("~")) continue;
        if (absolute(token.path, parentOf(candidate)) === path) return true;
      }
    } catch {
      // unreadable: Claude Code cannot import through it either
    }
  }
  return false;
}

async function loadState(path: string, diagnostics: string[]): Promise<HookState | null> {
  let text: string | null;
  try {
    text = await readTextFile(path, 64 * 1024 * 1024);
  } catch (error) {
    diagnostics.push(`cannot read ${path}: ${(error as Error).message}; starting a new session state`);
    return null;
  }
  if (text === null) return null;
  try {
    const parsed = HookStateSchema.parse(JSON.parse(text));
    return { ...parsed, session: parseSessionState(parsed.session, `state file ${path}`) };
  } catch (error) {
    diagnostics.push(`state file ${path} is not valid (${(error as Error).message.split("\n")[0]}); starting a new session state`);
    return null;
  }
}

async function saveState(path: string, state: HookState): Promise<void> {
  await ensureDir(parentOf(path));
  await writeFileAtomic(path, `${JSON.stringify(state)}\n`);
}

/**
 * Session caps for the hook: each answer is bounded by the character budget (what does not fit is
 * named), so the per-session inline caps only guard memory. A config given by the user wins.
 */
export const HOOK_LAZY_CAPS = { maxFiles: 10_000, maxBytes: 16 * 1024 * 1024 };

function sessionOptions(input: ClaudeHookInput, context: Context, cwd = input.cwd): SessionOptions {
  const own = context.options.session ?? {};
  const config = own.config ?? (own.configFile === undefined ? { lazy: HOOK_LAZY_CAPS } : undefined);
  return { host: "claude-code", ...own, ...(config !== undefined ? { config } : {}), cwd, home: context.home, env: context.env };
}

/** The initial files of a fresh session with their text (user layer and project chain). */
function initialPieces(session: AgentsSession): Piece[] {
  const mtimes = new Map(session.initialFiles.map((file) => [file.path, file.mtimeMs]));
  return (session.initialLoad?.blocks ?? []).map((block) => ({
    path: block.path,
    mtimeMs: mtimes.get(block.path) ?? 0,
    content: block.content,
    ...(session.rules.ruleAt(block.path) ? { rule: true } : {}),
  }));
}

interface Delivery {
  text: string;
  /** Admit these (shown, or known to be loaded by Claude Code). */
  admit: Array<{ path: string; mtimeMs: number }>;
  /** Not delivered: must not count as admitted. */
  withhold: Array<{ path: string; mtimeMs: number }>;
  named: Array<{ path: string; mtimeMs: number }>;
}

/** What to do with a file in native mode (Claude Code loads AGENTS.md itself): it has it, it does not have it yet, or show it anyway. */
type NativePolicy = "admit" | "skip" | "show";

/**
 * Even with its AGENTS.md support on, Claude Code skips an AGENTS.md whose directory holds a CLAUDE
 * file (default mode; peers §2.6); the hook delivers those, unless the CLAUDE file is that AGENTS.md.
 */
async function claudeSkipsIt(path: string, state: Pick<HookState, "nativeBoth">, context: Context): Promise<boolean> {
  if (state.nativeBoth) return false;
  const dir = parentOf(path);
  for (const name of CLAUDE_MD_NAMES) {
    const info = await context.fs.stat(join(dir, name)).catch(() => null);
    if (info && info.kind === "file") return !(await coveredByClaudeFile(context.fs, path));
  }
  return false;
}

/** Splits pieces into what Claude Code has anyway and what to show, and packs the latter. */
async function deliver(
  header: string,
  pieces: ReadonlyArray<Piece & { native: NativePolicy }>,
  state: Pick<HookState, "mode" | "named" | "nativeBoth">,
  context: Context,
): Promise<Delivery> {
  const out: Delivery = { text: "", admit: [], withhold: [], named: [] };
  const show: Piece[] = [];
  for (const piece of pieces) {
    if (isClaudeFile(piece.path)) out.admit.push(piece);
    else if (state.mode === "native" && piece.native !== "show" && !(await claudeSkipsIt(piece.path, state, context)))
      (piece.native === "admit" ? out.admit : out.withhold).push(piece);
    else if (state.mode === "inject" && (await coveredByClaudeFile(context.fs, piece.path))) out.admit.push(piece);
    else show.push(piece);
  }
  const ordered = nearestFirst(show);
  const already = new Set(ordered.filter((piece) => state.named[piece.path] === piece.mtimeMs).map((piece) => piece.path));
  const packed = packContext(header, ordered, context.budget, already);
  const shown = new Set(packed.shown);
  out.text = packed.text;
  for (const piece of ordered) (shown.has(piece.path) ? out.admit : out.withhold).push(piece);
  const named = new Set(packed.named);
  out.named = ordered.filter((piece) => named.has(piece.path));
  return out;
}

function withPolicy(pieces: readonly Piece[], native: NativePolicy): Array<Piece & { native: NativePolicy }> {
  return pieces.map((piece) => ({ path: piece.path, mtimeMs: piece.mtimeMs, content: piece.content, native: piece.rule ? "show" : native }));
}

/** Records a delivery: admitted files at their version; withheld ones not admitted (not even from the initial load). */
function apply(session: AgentsSession, state: HookState, delivery: Delivery): SessionState {
  session.admit(delivery.admit);
  for (const piece of delivery.named) state.named[piece.path] = piece.mtimeMs;
  const withheld = new Set(delivery.withhold.map((piece) => piece.path));
  const snapshot = session.snapshot();
  if (withheld.size > 0) snapshot.loaded = snapshot.loaded.filter((entry) => !withheld.has(entry.path));
  return snapshot;
}

const HEADERS = {
  startup:
    "agentsmd: the AGENTS.md files below apply to this project (Claude Code does not load them itself). A file governs its directory and everything below it; deeper files are more specific.",
  compact:
    "agentsmd: the AGENTS.md files that applied before this conversation was compacted, most specific first. A file governs its directory and everything below it.",
  tool: (target: string) => `agentsmd: ${quote(target)} is governed by these AGENTS.md files, not shown before in this conversation (most specific first):`,
};

async function freshState(input: ClaudeHookInput, context: Context): Promise<{ session: AgentsSession; state: HookState }> {
  const { mode, reason, both } = await decideMode(input, context);
  const session = await createSession(sessionOptions(input, context));
  const state: HookState = {
    kind: "agentsmd/claude-code",
    version: 1,
    mode,
    modeReason: reason,
    ...(both ? { nativeBoth: true } : {}),
    notified: {},
    named: {},
    session: session.snapshot(),
  };
  return { session, state };
}

async function onSessionStart(input: ClaudeHookInput, stored: HookState | null, context: Context): Promise<{ text: string; state: HookState }> {
  const source = input.source ?? "startup";
  if (stored && (source === "resume" || source === "fork")) {
    const { session, diff } = await restoreSession(stored.session, { ...sessionOptions(input, context), admit: true });
    try {
      return { text: diff, state: { ...stored, session: session.snapshot() } };
    } finally {
      await session.close();
    }
  }
  const { session, state } = await freshState(input, context);
  try {
    if (stored && source === "compact") {
      // The conversation lost every earlier hook answer: the chain again (Claude Code restores it
      // itself when it loads AGENTS.md), plus the path-layer files admitted before, which it never restores.
      const earlier = stored.session.loaded.filter((entry) => entry.layer === "path").map((entry) => entry.path);
      const blocks = await session.touch(earlier, { admit: false });
      const pieces = [...withPolicy(initialPieces(session), "admit"), ...withPolicy(blocks, "show")];
      const delivery = await deliver(HEADERS.compact, pieces, state, context);
      return { text: delivery.text, state: { ...state, session: apply(session, state, delivery) } };
    }
    const delivery = await deliver(HEADERS.startup, withPolicy(initialPieces(session), "admit"), state, context);
    if (source === "startup" || source === "clear") await collectGarbage(context, input);
    return { text: delivery.text, state: { ...state, session: apply(session, state, delivery) } };
  } finally {
    await session.close();
  }
}

async function onPostToolUse(
  input: ClaudeHookInput,
  targets: readonly string[],
  stored: HookState | null,
  context: Context,
): Promise<{ text: string; state: HookState }> {
  let session: AgentsSession;
  let state: HookState;
  let initial: Piece[] = [];
  if (stored) {
    session = (await restoreSession(stored.session, { ...sessionOptions(input, context, stored.session.cwd), admit: false })).session;
    state = stored;
  } else {
    // No SessionStart seen for this context (a subagent, or hooks installed mid-session).
    ({ session, state } = await freshState(input, context));
    initial = initialPieces(session);
  }
  try {
    const response = input.tool_response as { type?: unknown; file?: { numLines?: unknown; totalLines?: unknown } } | undefined;
    const textRead = input.tool_name === "Read" && (response?.type === undefined || response.type === "text");
    const target = targets[0]!;
    if (textRead && session.config.files.names.includes(nameOf(target))) {
      // The model read an instruction file itself: it has that version.
      const whole = response?.file?.numLines === undefined || response.file.numLines === response.file.totalLines;
      const info = whole ? await context.fs.stat(target).catch(() => null) : null;
      if (info && info.kind === "file") session.admit([{ path: target, mtimeMs: info.mtimeMs }]);
    }
    const blocks = await session.touch(targets, { admit: false });
    // Claude Code's own AGENTS.md support attaches nested files on a text Read only.
    const delivery = await deliver(
      HEADERS.tool(targets.length === 1 ? target : targets.join(", ")),
      [...withPolicy(blocks, textRead ? "admit" : "skip"), ...withPolicy(initial, "admit")],
      state,
      context,
    );
    return { text: delivery.text, state: { ...state, session: apply(session, state, delivery) } };
  } finally {
    await session.close();
  }
}

async function onUserPromptSubmit(input: ClaudeHookInput, stored: HookState | null, context: Context): Promise<{ text: string; state: HookState | null }> {
  if (!stored) {
    const started = await onSessionStart({ ...input, source: "startup" }, null, context);
    return started;
  }
  const { session } = await restoreSession(stored.session, { ...sessionOptions(input, context, stored.session.cwd), admit: false });
  try {
    const result = await session.refresh({ admit: false });
    session.release(result.changed);
    const lines: string[] = [];
    const notified = { ...stored.notified };
    for (const file of result.changed) {
      if (isClaudeFile(file.path) || notified[file.path] === file.mtimeMs) continue;
      notified[file.path] = file.mtimeMs;
      lines.push(
        `- ${quote(file.path)} was edited; the copy in this conversation is out of date. Read it again before working under ${quote(parentOf(file.path))}.`,
      );
    }
    for (const file of result.deleted) {
      if (isClaudeFile(file.path)) continue;
      lines.push(`- ${quote(file.path)} was deleted; its instructions no longer apply.`);
      delete notified[file.path];
    }
    session.forget(result.deleted);
    const text = lines.length > 0 ? packNotice(lines, context.budget) : "";
    return { text, state: { ...stored, notified, session: session.snapshot() } };
  } finally {
    await session.close();
  }
}

/** Removes state files untouched for 30 days (best effort, at session start). */
async function collectGarbage(context: Context, input: ClaudeHookInput): Promise<void> {
  const dir = context.options.stateDir ?? hookStateDir(context.env, context.home);
  const keep = hookStatePath(input, dir);
  try {
    const entries = await context.fs.readdir(dir);
    const now = Date.now();
    for (const entry of entries) {
      if (entry.kind !== "file" || !entry.name.endsWith(".json")) continue;
      const path = join(dir, entry.name);
      if (path === keep) continue;
      const info = await context.fs.stat(path).catch(() => null);
      if (info && now - info.mtimeMs > 30 * 24 * 3600 * 1000) await removeFile(path).catch(() => undefined);
    }
  } catch {
    // nothing to clean
  }
}

/**
 * Handles one hook event. Returns the answer (also handed to `options.deliver`), or null when
 * there is nothing to say. Throws HookInputError for input that is not a hook event.
 * @example
 * const output = await handleClaudeCodeHook({ session_id: "s1", hook_event_name: "SessionStart", cwd: "/repo", source: "startup" });
 */
export async function handleClaudeCodeHook(raw: unknown, options: ClaudeHookOptions = {}): Promise<ClaudeHookOutput | null> {
  const env = options.env ?? process.env;
  if (foreignHookHost(raw, env) !== null) {
    // Another host runs this hook (Copilot CLI reads .claude/settings.json): its events are not
    // Claude Code's and its answers are read differently, so say nothing rather than half-work.
    await options.deliver?.(null);
    return null;
  }
  const parsed = validateHookInput(raw);
  const input = { ...parsed, cwd: absolute(parsed.cwd, "/") };
  const context: Context = {
    env,
    home: options.home ?? env.HOME ?? homedir(),
    fs: options.session?.fs ?? nodeFileSystem,
    options,
    budget: Math.min(options.budget ?? DEFAULT_CONTEXT_BUDGET, CLAUDE_CONTEXT_LIMIT - 1),
  };
  const event = input.hook_event_name;
  const targets = event === "PostToolUse" ? toolTargets(input) : [];
  const handled = event === "SessionStart" || event === "UserPromptSubmit" || (event === "PostToolUse" && targets.length > 0);
  if (!handled) {
    await options.deliver?.(null);
    return null;
  }
  const path = hookStatePath(input, options.stateDir ?? hookStateDir(env, context.home));
  const diagnostics: string[] = [];
  return withLock(path, async () => {
    const stored = await loadState(path, diagnostics);
    for (const message of diagnostics) options.onDiagnostic?.(message);
    const result =
      event === "SessionStart"
        ? await onSessionStart(input, stored, context)
        : event === "UserPromptSubmit"
          ? await onUserPromptSubmit(input, stored, context)
          : await onPostToolUse(input, targets, stored, context);
    const output: ClaudeHookOutput | null =
      result.text === ""
        ? null
        : {
            hookSpecificOutput: {
              hookEventName: event as ClaudeHookOutput["hookSpecificOutput"]["hookEventName"],
              additionalContext: fit(result.text, context.budget),
            },
          };
    await options.deliver?.(output);
    if (result.state) await saveState(path, result.state);
    return output;
  });
}

export { addClaudeHooks, removeClaudeHooks, installClaudeCode, uninstallClaudeCode, settingsPath, isAgentsmdHandler, CLAUDE_HOOK_EVENTS } from "./install.js";
export type { InstallScope, InstallResult } from "./install.js";
