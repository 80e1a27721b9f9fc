/**
 * Gemini CLI's tool table without zod: input.ts (its family definition) and quiet.ts (the quiet
 * stage, a bundle of a few KB) both read it here.
 */

/**
 * Which argument of which built-in tool names the touched path (the shape of the host layer's
 * target table: the first field present wins; `orCwd`: a search without a path searches the
 * workspace). Gemini's own JIT loader runs after read_file, list_directory, write_file, replace
 * and read_many_files; agentsmd also answers glob and grep_search.
 */
export const GEMINI_TOOL_TARGETS = {
  read_file: { fields: ["file_path", "absolute_path", "path"] },
  write_file: { fields: ["file_path", "path"] },
  replace: { fields: ["file_path", "path"] },
  list_directory: { fields: ["dir_path", "path"] },
  read_many_files: { fields: ["include", "paths"] },
  glob: { fields: ["dir_path", "path"], orCwd: true },
  grep_search: { fields: ["dir_path", "path"], orCwd: true },
} as const satisfies Readonly<Record<string, { readonly fields: readonly string[]; readonly orCwd?: boolean }>>;
