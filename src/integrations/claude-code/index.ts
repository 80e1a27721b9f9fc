/**
 * Claude Code integration: `agentsmd hook claude-code` turns one hook event (JSON on stdin) into
 * the hook's JSON answer (`hookSpecificOutput.hookEventName` + `additionalContext`), delivering the
 * AGENTS.md files Claude Code does not load itself (docs/hosts/claude-code.md):
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
 * This module is a profile on the shared host layer (../host): the event schema and tool table
 * (input.ts), what Claude Code loads itself (`native`), its answer framing and its 10,000-character
 * limit. State: one JSON file per conversation (`session_id`, plus `agent_id` inside a subagent)
 * under `$CLAUDE_PLUGIN_DATA/sessions`, else the host store's `$XDG_STATE_HOME/agentsmd/claude-code`.
 *
 * @example
 * import { handleClaudeCodeHook } from "agentsmd/claude-code";
 * const output = await handleClaudeCodeHook(JSON.parse(stdin), { deliver: (out) => out && process.stdout.write(JSON.stringify(out)) });
 */
import { handleHostEvent } from "../host/deliver.js";
import { claudeCodeProfile, type ClaudeHookOptions, type ClaudeHookOutput } from "./profile.js";
import { claudeCodeHost } from "./host.js";

// The public surface (test/public-api.test.ts pins it): the hook handler and the profile behind
// it, the event schema, the install functions. The host layer's internals (packing, targets, state
// paths, stdin reading) stay in their modules.
export { ClaudeHookInputSchema, HookInputError } from "./input.js";
export type { ClaudeHookInput } from "./input.js";
export { CLAUDE_CONTEXT_LIMIT, claudeCodeProfile } from "./profile.js";
export type { ClaudeHookOutput, ClaudeHookOptions, AgentsMdMode } from "./profile.js";

/**
 * Handles one hook event. Returns the answer (also handed to `options.deliver`), or null when
 * there is nothing to say. Throws HookInputError for input that is not a hook event.
 * @example
 * const output = await handleClaudeCodeHook({ session_id: "s1", hook_event_name: "SessionStart", cwd: "/repo", source: "startup" });
 */
export function handleClaudeCodeHook(raw: unknown, options: ClaudeHookOptions = {}): Promise<ClaudeHookOutput | null> {
  // The scoped-rule formats Claude Code reads itself are never delivered (its definition's).
  const session = { nativeRuleFormats: claudeCodeHost.nativeRuleFormats, ...options.session };
  return handleHostEvent(claudeCodeProfile({ agentsMd: options.agentsMd }), raw, { ...options, session });
}

export { addClaudeHooks, removeClaudeHooks, installClaudeCode, uninstallClaudeCode, settingsPath, CLAUDE_HOOK_EVENTS } from "./install.js";
export type { InstallScope, InstallResult } from "./install.js";
