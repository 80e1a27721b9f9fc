/** Auggie (Augment Code's CLI): a PostToolUse hook in its settings.json (`install auggie`). */
import type { HostDefinition } from "../host/definition.js";
import { augmentDir } from "../../presets/auggie.js";

export const auggieHost: HostDefinition = {
  id: "auggie",
  name: "Auggie",
  bin: "auggie",
  configDir: (home) => augmentDir(home),
  preset: "auggie",
  nativeRuleFormats: [],
  hook: {
    description: "Auggie hook for PostToolUse (install with `agentsmd install auggie`)",
    load: () => import("./profile.js").then((module) => module.runAuggieHook),
    // quiet.ts's spelling: PostToolUse, `conversation_id`, tool paths relative to the first of `workspace_roots`; state in XDG's directory.
    quiet: {
      load: () => import("./quiet.js").then((module) => module.quietHost),
      gate: { toolEvent: '"PostToolUse"', conversation: "conversation_id", base: "workspace_roots" },
    },
  },
  install: {
    summary: "a PostToolUse hook in an Auggie settings.json",
    scopes: ["user", "project"],
    files: { user: "~/.augment/settings.json", project: "<cwd>/.augment/settings.json" },
    load: (importAt) => importAt<typeof import("./installer.js")>(import.meta.url, "./installer.js").then((module) => module.auggieInstaller),
  },
  doctor: { rootEntries: [".augment"] },
};
