/**
 * The Claude Code host profile: what Claude Code loads itself (CLAUDE files; AGENTS.md when its
 * own support is on), its answer framing and its 10,000-character limit, on the shared host layer.
 */
import * as z from "zod/mini";
import { leaves, once } from "../../core/config-schema.js";
import type { FileSystem } from "../../io/file-system.js";
import { absolute, join, nameOf, parentOf } from "../../core/paths.js";
import { findImports } from "../../load/imports.js";
import { builtinAgentsMd, CLAUDE_MD_NAMES, claudeExcludes } from "../../presets/claude.js";
import type { HostHookOptions } from "../host/deliver.js";
import type { HostProfile, NativeAnswer, NativeContext, NativeOrigin } from "../host/profile.js";
import { CLAUDE_CODE_HOST, ClaudeHookEventSchema, claudeCodeEvent, type ClaudeHookInput } from "./input.js";
import { foreignHookHost, pluginDataDir } from "./tools.js";

/** Claude Code replaces `additionalContext` over 10,000 characters by a file path and a preview. */
export const CLAUDE_CONTEXT_LIMIT = 10_000;

/** First Claude Code version with built-in AGENTS.md loading (docs/loading-rules.md#claude-code). */
const BUILTIN_AGENTS_MD_SINCE = "2.1.277";

type AnsweredEvent = "SessionStart" | "PostToolUse" | "UserPromptSubmit";

export interface ClaudeHookOutput {
  hookSpecificOutput: { hookEventName: AnsweredEvent; additionalContext: string };
}

export type AgentsMdMode = "auto" | "inject" | "native";

export interface ClaudeHookOptions extends HostHookOptions<ClaudeHookOutput> {
  /**
   * `inject`: deliver AGENTS.md; `native`: Claude Code loads it itself; `auto`: decide from the
   * Claude Code version (env `AGENTSMD_CLAUDE_CODE_VERSION`, else the transcript), its
   * `instructionFiles` setting and the CLAUDE files at or above cwd.
   * @default env AGENTSMD_CLAUDE_AGENTS_MD, else "auto"
   */
  agentsMd?: AgentsMdMode;
}

/** What the Claude Code profile keeps per conversation. */
const claudeStateSchema = once(() =>
  z.strictObject({
    /** inject: agentsmd delivers AGENTS.md; native: Claude Code loads it itself. */
    mode: z.enum(["inject", "native"]),
    modeReason: leaves().string,
    /** native only: Claude Code loads an AGENTS.md even where its directory has a CLAUDE file ("claude-md-and-agents-md"). */
    nativeBoth: leaves().optionalBoolean,
  }),
);
type ClaudeState = z.infer<ReturnType<typeof claudeStateSchema>>;

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
async function claudeVersion(input: ClaudeHookInput, context: NativeContext<unknown>): Promise<string | undefined> {
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

function forcedMode(value: string | undefined): "inject" | "native" | undefined {
  return value === "inject" || value === "native" ? value : undefined;
}

async function decideMode(input: ClaudeHookInput, agentsMd: AgentsMdMode | undefined, context: NativeContext<unknown>): Promise<ClaudeState> {
  const forced = forcedMode(agentsMd ?? context.env.AGENTSMD_CLAUDE_AGENTS_MD?.trim());
  if (forced) return { mode: forced, modeReason: `forced (${forced})` };
  const version = await claudeVersion(input, context);
  if (version && compareVersions(version, BUILTIN_AGENTS_MD_SINCE) < 0) {
    return { mode: "inject", modeReason: `Claude Code ${version} has no built-in AGENTS.md loading (added in ${BUILTIN_AGENTS_MD_SINCE})` };
  }
  const cwd = absolute(input.cwd, "/");
  // A CLAUDE.md that claudeMdExcludes hides does not switch Claude Code's AGENTS.md loading off.
  const excludes = await claudeExcludes({ cwd, root: "/", home: context.home, env: context.env, fs: context.fs, agentConfig: true, raw: {} });
  const builtin = await builtinAgentsMd({ fs: context.fs, cwd, home: context.home, env: context.env, exclude: excludes?.matches });
  return {
    mode: builtin.active ? "native" : "inject",
    modeReason: builtin.reason,
    ...(builtin.mode === "claude-md-and-agents-md" ? { nativeBoth: true } : {}),
  };
}

/** File names of CLAUDE_MD_NAMES (`.claude/CLAUDE.md` is a `CLAUDE.md`). */
const CLAUDE_FILE_NAMES: ReadonlySet<string> = new Set(CLAUDE_MD_NAMES.map(nameOf));

function isClaudeFile(path: string): boolean {
  return CLAUDE_FILE_NAMES.has(nameOf(path));
}

/**
 * True when a CLAUDE file of the same directory is this file (symlink, hard link) or imports it
 * with `@path`: Claude Code then loads its text already.
 */
async function coveredByClaudeFile(fs: FileSystem, path: string): Promise<boolean> {
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

/**
 * Even with its AGENTS.md support on, Claude Code skips an AGENTS.md whose directory holds a CLAUDE
 * file (default mode; docs/loading-rules.md#claude-code); the hook delivers those, unless the CLAUDE file is that AGENTS.md
 * or one `claudeMdExcludes` hides (Claude Code then reads the AGENTS.md).
 */
async function claudeSkipsIt(path: string, context: NativeContext<ClaudeState>): Promise<boolean> {
  if (context.host.nativeBoth) return false;
  const dir = parentOf(path);
  for (const name of CLAUDE_MD_NAMES) {
    const info = await context.fs.stat(join(dir, name)).catch(() => null);
    if (!info || info.kind !== "file") continue;
    const cwd = context.event?.cwd ?? dir;
    const excludes = await claudeExcludes({ cwd, root: "/", home: context.home, env: context.env, fs: context.fs, agentConfig: true, raw: {} });
    if (excludes?.matches(join(dir, name))) continue;
    return !(await coveredByClaudeFile(context.fs, path));
  }
  return false;
}

/**
 * What Claude Code has without us: every CLAUDE file; in native mode the chain and the nested
 * files it attaches to a text Read (other tools: it attaches them on the first Read, later), but
 * never the path-layer files after a compaction; in inject mode an AGENTS.md a CLAUDE file imports.
 */
async function claudeNative(path: string, origin: NativeOrigin, context: NativeContext<ClaudeState>): Promise<NativeAnswer> {
  if (isClaudeFile(path)) return "loaded";
  if (origin === "notice") return "no";
  if (context.host.mode === "native") {
    if (origin === "restore" || (await claudeSkipsIt(path, context))) return "no";
    return origin === "tool" ? "later" : "loaded";
  }
  return (await coveredByClaudeFile(context.fs, path)) ? "loaded" : "no";
}

function answered(name: string): name is AnsweredEvent {
  return name === "SessionStart" || name === "PostToolUse" || name === "UserPromptSubmit";
}

/**
 * The Claude Code host profile (`agentsMd` forces the AGENTS.md mode).
 * @example await handleHostEvent(claudeCodeProfile({ agentsMd: "inject" }), event)
 */
export function claudeCodeProfile(options: { agentsMd?: AgentsMdMode | undefined } = {}): HostProfile<ClaudeHookInput, ClaudeState, ClaudeHookOutput> {
  return {
    host: CLAUDE_CODE_HOST,
    displayName: "Claude Code",
    input: ClaudeHookEventSchema,
    inputFix: "register `agentsmd hook claude-code` as a command hook",
    // Copilot CLI runs .claude/settings.json hooks with its own fields; Gemini CLI has its own events.
    foreign: foreignHookHost,
    normalize: claudeCodeEvent,
    budget: { limit: CLAUDE_CONTEXT_LIMIT, default: 9_500 },
    headers: {
      startup:
        "agentsmd: the AGENTS.md files below apply to this project (Claude Code does not load them itself). A file governs its directory and everything below it; deeper files are more specific.",
      compact:
        "agentsmd: the AGENTS.md files that applied before this conversation was compacted, most specific first. A file governs its directory and everything below it.",
      tool: (targets) => `agentsmd: ${targets} is governed by these AGENTS.md files, not shown before in this conversation (most specific first):`,
    },
    frame: (text, input) => ({
      hookSpecificOutput: { hookEventName: answered(input.hook_event_name) ? input.hook_event_name : "PostToolUse", additionalContext: text },
    }),
    state: { schema: claudeStateSchema, init: (input, context) => decideMode(input, options.agentsMd, context) },
    stateDir: pluginDataDir,
    native: claudeNative,
  };
}
