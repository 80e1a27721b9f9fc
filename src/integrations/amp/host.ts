/** Amp: loads agentsmd as a plugin (a file in `~/.config/amp/plugins/`, run with `PLUGINS=all amp`). */
import type { HostDefinition, PluginCheck } from "../host/definition.js";
import { join } from "../../core/paths.js";
import { ampUserConfigDir } from "../../presets/amp.js";

/** The line Amp requires in a plugin file before it loads it (its plugin API is experimental). */
const AMP_ACKNOWLEDGEMENT = "// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now";

const ampDir = (home: string, env: Readonly<Record<string, string | undefined>>): string => join(ampUserConfigDir({ home, env }), "amp");

export const ampHost: HostDefinition = {
  id: "amp",
  name: "Amp",
  bin: "amp",
  configDir: ampDir,
  preset: "amp",
  nativeRuleFormats: [],
  plugin: {
    enable: (home, env) =>
      `write a plugin file in ${join(ampDir(home, env), "plugins")} (or a project's .amp/plugins/) that holds the line ${AMP_ACKNOWLEDGEMENT} and re-exports agentsmd's dist/plugin/amp.js, then run \`PLUGINS=all amp\``,
    // Amp loads every `*.js`/`*.ts` of `~/.config/amp/plugins/` and the workspace's `.amp/plugins/`, in Bun.
    file: {
      path: (home, env) => join(ampDir(home, env), "plugins/agentsmd.js"),
      entry: "dist/plugin/amp.js",
      specifier: "url",
      preamble: AMP_ACKNOWLEDGEMENT,
      event: "tool.result Read",
      check: (importAt) => importAt<{ check: PluginCheck }>(import.meta.url, "./plugin-check.js").then((m) => m.check),
      notes: ["Amp runs plugins only when started as `PLUGINS=all amp`; its plugin API is experimental (unproven against the binary)"],
    },
  },
  doctor: { rootEntries: [".amp"] },
};
