/**
 * Crush's tool table without zod: input.ts (its schema) and quiet.ts (the quiet stage, a bundle
 * of a few KB) both read it here.
 */
import type { TargetTable } from "../host/targets.js";

/** Crush's file tools (internal/agent/tools/) -> the arguments naming paths. */
export const CRUSH_TOOL_TARGETS: TargetTable = {
  view: { fields: ["file_path"] },
  edit: { fields: ["file_path"] },
  multiedit: { fields: ["file_path"] },
  write: { fields: ["file_path"] },
  download: { fields: ["file_path"] },
  ls: { fields: ["path"], orCwd: true },
  glob: { fields: ["path"], orCwd: true },
  grep: { fields: ["path"], orCwd: true },
};
