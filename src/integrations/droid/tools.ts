/**
 * Droid's tool table without zod: input.ts (the schema and event mapping) and quiet.ts (the quiet
 * stage, a bundle of a few KB) both read it here.
 */
import { patchTargets, type TargetTable } from "../host/targets.js";

/** Droid's file tools (the names and arguments its model sees) -> the arguments naming paths. */
export const DROID_TOOL_TARGETS: TargetTable = {
  Read: { fields: ["file_path"] },
  Create: { fields: ["file_path"] },
  Edit: { fields: ["file_path"] },
  LS: { fields: ["directory_path"], orCwd: true },
  Grep: { fields: ["path"], orCwd: true },
  Glob: { fields: ["folder"], orCwd: true },
  ApplyPatch: (call) => patchTargets(call.input.input, call.cwd),
};
