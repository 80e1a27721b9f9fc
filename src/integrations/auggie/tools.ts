/**
 * What Auggie's events are, without zod: its tool table and the workspace a hook runs for.
 * input.ts (the schema) and quiet.ts (the quiet stage, a bundle of a few KB) both read them here.
 */
import { patchTargets, type TargetTable } from "../host/targets.js";

/** Auggie's file tools (the names and arguments its model sees) -> the arguments naming paths. */
export const AUGGIE_TOOL_TARGETS: TargetTable = {
  view: { fields: ["path"] },
  "save-file": { fields: ["path"] },
  "str-replace-editor": { fields: ["path"] },
  apply_patch: (call) => patchTargets(call.input.input, call.cwd),
};

/** The workspace root Auggie ran the hook for, as sent: its first (hooks run there; tool paths are relative to it). */
export const firstRoot = (roots: readonly string[]): string => roots[0] ?? "/";
