/**
 * Droid's tool table without zod (input.ts's schema and event mapping read it). Droid has no quiet
 * stage: its compaction is found only in its session log (profile `compaction`), which the stage
 * does not read.
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
