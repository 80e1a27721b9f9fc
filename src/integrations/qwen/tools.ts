/**
 * Qwen Code's tool table without zod: input.ts (its family definition) and quiet.ts (the quiet
 * stage, a bundle of a few KB) both read it here.
 */

/**
 * Which argument of which built-in tool names the touched path (tool ids of
 * `packages/core/src/tools/tool-names.ts`; the host layer's target-table shape).
 */
export const QWEN_TOOL_TARGETS = {
  read_file: { fields: ["file_path", "absolute_path", "path"] },
  write_file: { fields: ["file_path", "path"] },
  edit: { fields: ["file_path", "path"] },
  notebook_edit: { fields: ["notebook_path", "file_path"] },
  list_directory: { fields: ["path", "dir_path"] },
  glob: { fields: ["path"], orCwd: true },
  grep_search: { fields: ["path"], orCwd: true },
} as const satisfies Readonly<Record<string, { readonly fields: readonly string[]; readonly orCwd?: boolean }>>;
