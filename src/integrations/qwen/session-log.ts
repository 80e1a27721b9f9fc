/**
 * Qwen Code's chat log (0.24: `$QWEN_HOME/projects/<project>/chats/<session id>.jsonl`, or under
 * `$QWEN_RUNTIME_DIR`; the hook events' `transcript_path`) as audit events, on the family's shared
 * reader (host/gemini-family-log.ts). Every line is one record with its `cwd` and `timestamp`:
 * `user` and `tool_result` records carry the message sent (`message.parts`: the prompt, hook
 * context inside it or appended to a tool's output), `assistant` records the model's function
 * calls, `system` records bookkeeping (telemetry, a compaction's summary). Not recorded: the
 * system prompt, where Qwen puts the context files it loads itself (QWEN.md, AGENTS.md from the
 * working directory up) and every SessionStart hook answer, agentsmd's included.
 */
import { join } from "../../core/paths.js";
import { familySessionLog, type FamilyLine } from "../host/gemini-family-log.js";
import { recordOf, stringOf, timeOf } from "../host/log-event.js";
import { qwenDir } from "../../presets/qwen.js";
import { QWEN_FAMILY } from "./input.js";

/** A session log's name: the session id (a UUID). */
const LOG_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

function lineOf(record: Record<string, unknown>): FamilyLine | undefined {
  if (typeof record.type !== "string") return undefined;
  const cwd = stringOf(record.cwd);
  const at = cwd !== undefined ? { cwd } : {};
  const message = recordOf(record.message);
  const parts = message !== undefined && Array.isArray(message.parts) ? message.parts : undefined;
  if (parts === undefined || record.type === "system") return { ...at, messages: [] };
  const role = record.type === "assistant" ? "model" : record.type === "user" || record.type === "tool_result" ? "user" : undefined;
  if (role === undefined) return { ...at, messages: [] };
  const id = stringOf(record.uuid);
  const time = timeOf(record.timestamp);
  return { ...at, messages: [{ role, parts, ...(id !== undefined ? { id } : {}), ...(time !== undefined ? { time } : {}) }] };
}

/** `$QWEN_RUNTIME_DIR` as Qwen resolves it (absolute or `~/`), else undefined. */
function runtimeDir(env: Readonly<Record<string, string | undefined>>, home: string): string | undefined {
  const dir = env.QWEN_RUNTIME_DIR;
  if (dir === undefined || dir === "") return undefined;
  if (dir === "~") return home;
  if (dir.startsWith("~/")) return join(home, dir.slice(2));
  return dir.startsWith("/") ? dir : undefined;
}

/** Qwen Code's logs under `~/.qwen/projects` (`$QWEN_HOME`), and `$QWEN_RUNTIME_DIR/projects` when set. */
export const qwenSessionLog = familySessionLog({
  records: { systemPrompt: false, hookContext: true, toolResults: true },
  logDirs: (env, home) => {
    const runtime = runtimeDir(env, home);
    const own = join(qwenDir(home, env), "projects");
    return runtime === undefined || join(runtime, "projects") === own ? [own] : [join(runtime, "projects"), own];
  },
  isLog: (name) => LOG_NAME.test(name),
  targets: QWEN_FAMILY.targets,
  editTools: new Set(["write_file", "edit", "notebook_edit"]),
  partialReadArgs: QWEN_FAMILY.partialReadArgs,
  line: lineOf,
  channel: (text) => (text.startsWith("<qwen:user-prompt-submit-context") ? "hook" : "user"),
  notes: [
    "Qwen Code's log does not record its system prompt: the files it loads itself at startup (QWEN.md, AGENTS.md from the working directory up) and SessionStart hook context (agentsmd's answer at a resume or compaction) show as never seen; shell commands are not read for paths (as the hook does not)",
  ],
});
