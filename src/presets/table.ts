/**
 * The presets in one explicit table: plain data imported by name (each carries its renderer as a
 * value), no module registers anything as a side effect. `registerPreset` adds a caller's own
 * preset, with its own renderer or a built-in one, to a separate map (tests, embedders); the
 * built-in table never changes.
 */
import { ConfigError } from "../core/errors.js";
import type { Renderer } from "../core/render.js";
import { codeliaPreset, codexPreset, type Preset } from "./preset.js";
import { ampPreset } from "./amp.js";
import { auggiePreset } from "./auggie.js";
import { claudePreset } from "./claude.js";
import { clinePreset } from "./cline.js";
import { continuePreset } from "./continue.js";
import { crushPreset } from "./crush.js";
import { droidPreset } from "./droid.js";
import { copilotPreset } from "./copilot.js";
import { geminiPreset } from "./gemini.js";
import { hyggePreset } from "./hygge.js";
import { kiloPluginPreset, kiloPreset } from "./kilo.js";
import { opencodePluginPreset, opencodePreset } from "./opencode.js";
import { piPreset } from "./pi.js";
import { qwenPreset } from "./qwen.js";

/** Every built-in preset, by name, in the order the CLI lists them. */
export const PRESETS: ReadonlyMap<string, Preset> = new Map(
  [
    codeliaPreset,
    codexPreset,
    hyggePreset,
    geminiPreset,
    opencodePreset,
    opencodePluginPreset,
    claudePreset,
    copilotPreset,
    piPreset,
    qwenPreset,
    kiloPreset,
    clinePreset,
    droidPreset,
    auggiePreset,
    continuePreset,
    crushPreset,
    ampPreset,
    kiloPluginPreset,
  ].map((preset) => [preset.name, preset]),
);

const added = new Map<string, Preset>();

/**
 * Adds a caller's own preset (its renderer a value: its own, or a built-in one such as
 * `getRenderer("codex")`). A built-in name cannot be replaced.
 */
export function registerPreset(preset: Preset): void {
  if (PRESETS.has(preset.name)) throw new ConfigError(`preset "${preset.name}" is built in`, { fix: "give your preset another name" });
  added.set(preset.name, preset);
}

/**
 * The preset named `name`, or undefined.
 * @example getPreset("codex")?.files.names // ["AGENTS.override.md", "AGENTS.md"]
 */
export function getPreset(name: string): Preset | undefined {
  return PRESETS.get(name) ?? added.get(name);
}

/**
 * Every preset name: the built-in ones, then added ones.
 * @example presetNames().includes("claude") // true
 */
export function presetNames(): string[] {
  return [...PRESETS.keys(), ...added.keys()];
}

/**
 * The renderer of the preset named `name` (renderers by name). Throws ConfigError naming the presets.
 * @example getRenderer("codex").initial({ cwd, root, blocks })
 */
export function getRenderer(name: string): Renderer {
  const preset = getPreset(name);
  if (!preset) throw new ConfigError(`no renderer named "${name}"`, { fix: `name a preset's renderer: one of ${presetNames().join(", ")}` });
  return preset.renderer;
}
