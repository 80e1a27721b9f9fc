/**
 * `agentsmd/opencode`: an OpenCode plugin (V1 hooks of `@opencode-ai/plugin` 1.18.33) that adds
 * exactly what OpenCode 1.x lacks and never repeats what it loads itself. The machinery is the
 * family's (../host/plugin-family.ts, shared with `agentsmd/kilo`); this module is OpenCode's description:
 * its tool names and what they touch, its switches and global candidates (preset `opencode`).
 *
 * @example opencode.json (OpenCode loads the package's `./server` export, this module)
 * { "plugin": ["agentsmd"] }
 * { "plugin": [["agentsmd", { "mode": "paths", "maxFiles": 100 }]] }
 */
import type { Plugin } from "@opencode-ai/plugin";
import { OPENCODE_FAMILY } from "../../presets/opencode.js";
import { hostStateDir } from "../host/store.js";
import type { TargetTable } from "../host/targets.js";
import {
  FamilyAgents,
  FamilyPluginOptionsSchema,
  familyPlugin,
  familyToolTargets,
  fileCall,
  patchCall,
  type FamilyPluginContext,
  type FamilyPluginHost,
  type FamilyPluginOptions,
} from "../host/plugin-family.js";

/** Tools whose targets trigger resolution (OpenCode 1.18.33 names; `list`, `patch`, `multiedit` from other builds). */
const OPENCODE_TRIGGER_TOOLS: readonly string[] = ["read", "edit", "write", "apply_patch", "patch", "multiedit", "glob", "grep", "list"];

/** Tool name -> the paths it touched (OpenCode 1.18.33 names; `list`, `patch`, `multiedit` from other builds). */
const OPENCODE_TOOL_TARGETS: TargetTable = {
  read: fileCall,
  edit: fileCall,
  write: fileCall,
  multiedit: fileCall,
  apply_patch: patchCall,
  patch: patchCall,
  glob: { fields: ["path"], orCwd: true },
  grep: { fields: ["path"], orCwd: true },
  list: { fields: ["path"], orCwd: true },
};

/** OpenCode 1.18.33 as the family plugin sees it. */
const OPENCODE_PLUGIN_HOST: FamilyPluginHost = {
  host: "opencode",
  configFile: "opencode.json",
  family: OPENCODE_FAMILY,
  preset: "opencode",
  pluginPreset: "opencode-plugin",
  tools: OPENCODE_TRIGGER_TOOLS,
  targets: OPENCODE_TOOL_TARGETS,
};

export const OpenCodePluginOptionsSchema = FamilyPluginOptionsSchema;
export type OpenCodePluginOptions = FamilyPluginOptions;
export type OpenCodePluginContext = FamilyPluginContext;

/**
 * The host store's directory: `$XDG_STATE_HOME/agentsmd/opencode`, else `~/.local/state/agentsmd/opencode`.
 * @example defaultStateDir("/home/me", {}) // "/home/me/.local/state/agentsmd/opencode"
 */
export function defaultStateDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  return hostStateDir("opencode", env, home);
}

/**
 * The paths a tool call touched: file paths for read/edit/write/multiedit, every file of a patch,
 * the searched directory for glob/grep/list.
 * @example toolTargets("grep", { pattern: "x", path: "src" }, {}, "/repo") // ["/repo/src"]
 */
export function toolTargets(tool: string, args: unknown, metadata: unknown, directory: string): string[] {
  return familyToolTargets(OPENCODE_TOOL_TARGETS, tool, args, metadata, directory);
}

/** The plugin's machinery in OpenCode, exposed for tests and for hosts that embed it. */
export class OpenCodeAgents extends FamilyAgents {
  constructor(context: OpenCodePluginContext, options: OpenCodePluginOptions = {}) {
    super(OPENCODE_PLUGIN_HOST, context, options);
  }
}

const opencode = familyPlugin(OPENCODE_PLUGIN_HOST);

/**
 * The plugin function (`Plugin` from `@opencode-ai/plugin`).
 * @example
 * // .opencode/plugin/agentsmd.js
 * export { default } from "agentsmd/opencode";
 */
export const AgentsMdPlugin: Plugin = opencode.server;

/** OpenCode 1.18.33 loads only `default.server` when the default export is `{ id, server }`. */
export default opencode.module;
