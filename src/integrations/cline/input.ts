/**
 * Cline CLI's hook protocol, the pure part (no I/O): the event schema, which tool arguments name
 * the paths a tool touched, and the answer's shape. Facts from Cline 3.0.65, observed with the
 * real binary against a scripted model (recorded payloads in test/integrations/cline/events/):
 *
 * - a hook is a file named for its event in a hooks directory (`~/.cline/hooks/`, the workspace's
 *   `.clinerules/hooks/`), `PostToolUse` with an extension from Cline's list (`.sh` runs with bash);
 *   its stdin is one JSON document: `hookName` (`agent_start`, `tool_call`, `tool_result`,
 *   `prompt_submit`, ...), `taskId` (one run of the agent: a resumed session gets a new one),
 *   `sessionContext.rootSessionId` (the saved session, `~/.cline/data/sessions/<id>/`, the same
 *   after a resume: the conversation), `workspaceRoots` (the workspace is cwd),
 *   `agent_id`/`parent_agent_id` (a spawned agent has a parent), and for `tool_result`
 *   `tool_result.name` and `tool_result.input` (the model's arguments, paths relative to the workspace);
 * - the answer `{"contextModification": text}` reaches the model as a user message
 *   `<hook_context source="PostToolUse" ...>` after the tool result; the same answer from
 *   `TaskStart` does not reach the model, and 3.0.65 dispatches no `PreCompact` hook.
 */
import * as z from "zod/mini";
import "../../core/zod-locale.js";
import { leaves } from "../../core/config-schema.js";
import { patchTargets, usablePath, type TargetTable, type ToolCall } from "../host/targets.js";

const { nonEmptyString, optionalString, optionalUnknown, optionalRecord, strings } = leaves();

/** The stdin document of a Cline hook; unknown fields are kept and ignored. */
export const ClineHookInputSchema = z.looseObject({
  hookName: nonEmptyString,
  taskId: nonEmptyString,
  sessionContext: z.optional(z.looseObject({ rootSessionId: optionalString })),
  workspaceRoots: strings,
  agent_id: optionalString,
  parent_agent_id: z.optional(z.nullable(z.string())),
  tool_result: z.optional(z.looseObject({ name: optionalString, input: optionalRecord, output: optionalUnknown })),
});
export type ClineHookInput = z.infer<typeof ClineHookInputSchema>;

/** `read_files` arguments: `files: [{ path, start_line?, end_line? }]` (older models send `file_paths: [...]`). */
function readFilesTargets(call: ToolCall): string[] {
  const files = call.input.files;
  const list = Array.isArray(files)
    ? files.map((file) => (typeof file === "string" ? file : (file as { path?: unknown } | null)?.path))
    : call.input.file_paths;
  return (Array.isArray(list) ? list : [list]).map((path) => usablePath(path, call.cwd)).filter((path): path is string => path !== undefined);
}

/** Which arguments of Cline's built-in tools name the touched paths (the tool names its model sees). */
export const CLINE_TOOL_TARGETS: TargetTable = {
  read_files: readFilesTargets,
  apply_patch: (call) => patchTargets(call.input.input, call.cwd),
  search_codebase: { fields: [], orCwd: true },
};

/** True when a `read_files` call read its one file whole (no line bounds). */
export function readWhole(input: Readonly<Record<string, unknown>>): boolean {
  const files = input.files;
  if (!Array.isArray(files)) return Array.isArray(input.file_paths) && input.file_paths.length === 1;
  if (files.length !== 1) return false;
  const file = files[0] as { start_line?: unknown; end_line?: unknown } | string | null;
  return typeof file === "string" || (file !== null && file.start_line == null && file.end_line == null);
}

/** The answer of a Cline hook. */
export interface ClineHookOutput {
  contextModification: string;
}
