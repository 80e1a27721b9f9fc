/**
 * `agentsmd/kilo`: a Kilo Code plugin (Kilo 7.7's plugin API is OpenCode's V1 hooks) that adds
 * the nested AGENTS.md files Kilo does not load and never repeats what it loads itself. The
 * machinery is the OpenCode family's (../host/plugin-family.ts); this module is Kilo's description:
 * - what Kilo loads: preset `kilo` (global file with `KILO_CONFIG_DIR` and the Claude Code
 *   handoff, the project name rule, `KILO_DISABLE_*` switches, its `{file:}`/`{env:}` variables);
 * - its file tools (read, edit, write, apply_patch, glob, grep) and its shell tool (bash: the
 *   paths the command reads, lists or writes, in its `workdir`);
 * - the plugin delivers after those tools, gives an edited file again, and after a compaction
 *   (`experimental.session.compacting`, `session.compacted`) offers nested files again.
 *
 * @example kilo.json
 * { "plugin": ["agentsmd/kilo"] }
 * @example .kilo/plugins/agentsmd.js
 * export { default } from "agentsmd/kilo";
 */
import type { Plugin } from "@opencode-ai/plugin";
import { KILO_FAMILY } from "../../presets/kilo.js";
import type { TargetTable } from "../host/targets.js";
import {
  FamilyAgents,
  familyToolTargets,
  fileCall,
  familyPlugin,
  patchCall,
  type FamilyPluginContext,
  type FamilyPluginHost,
  type FamilyPluginOptions,
} from "../host/plugin-family.js";

/** Kilo 7.7.7's tools whose targets trigger resolution (bash: the paths its command names). */
const KILO_TRIGGER_TOOLS: readonly string[] = ["read", "edit", "write", "apply_patch", "glob", "grep", "bash"];

/** Tool name -> the paths it touched (Kilo 7.7.7 names; bash is read from its command). */
const KILO_TOOL_TARGETS: TargetTable = {
  read: fileCall,
  edit: fileCall,
  write: fileCall,
  apply_patch: patchCall,
  glob: { fields: ["path"], orCwd: true },
  grep: { fields: ["path"], orCwd: true },
};

/** Kilo Code 7.7.7 as the family plugin sees it. */
const KILO_PLUGIN_HOST: FamilyPluginHost = {
  host: "kilo",
  configFile: "kilo.json",
  family: KILO_FAMILY,
  preset: "kilo",
  pluginPreset: "kilo-plugin",
  tools: KILO_TRIGGER_TOOLS,
  targets: KILO_TOOL_TARGETS,
  shellTool: "bash",
};

export type KiloPluginOptions = FamilyPluginOptions;

/**
 * The paths a Kilo file tool touched (bash excluded: its command is read by {@link KiloAgents}).
 * @example kiloToolTargets("read", { filePath: "src/a.ts" }, {}, "/repo") // ["/repo/src/a.ts"]
 */
export function kiloToolTargets(tool: string, args: unknown, metadata: unknown, directory: string): string[] {
  return familyToolTargets(KILO_TOOL_TARGETS, tool, args, metadata, directory);
}

/** The plugin's machinery in Kilo, exposed for tests and for hosts that embed it. */
export class KiloAgents extends FamilyAgents {
  constructor(context: FamilyPluginContext, options: KiloPluginOptions = {}) {
    super(KILO_PLUGIN_HOST, context, options);
  }
}

const kilo = familyPlugin(KILO_PLUGIN_HOST);

/** The plugin function (Kilo's `Plugin`, OpenCode's V1 shape). */
export const KiloAgentsMdPlugin: Plugin = kilo.server;

/** Kilo, as OpenCode, loads `default.server` when the default export is `{ id, server }`. */
export default kilo.module;
