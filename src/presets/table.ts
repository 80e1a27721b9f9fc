/**
 * The presets and their renderers, in one explicit table: plain data imported by name, no module
 * registers anything as a side effect. `registerPreset` adds a caller's own preset to a separate
 * map (tests, embedders); the built-in table never changes.
 */
import { ConfigError } from "../core/errors.js";
import { codeliaRenderer, codexRenderer, type Renderer } from "../core/render.js";
import { codeliaPreset, codexPreset, type Preset } from "./preset.js";
import { claudePreset, claudeRenderer } from "./claude.js";
import { copilotPreset, copilotRenderer } from "./copilot.js";
import { geminiPreset, geminiRenderer } from "./gemini.js";
import { hyggePreset, hyggeRenderer } from "./hygge.js";
import { opencodePluginPreset, opencodePreset, opencodeRenderer } from "./opencode.js";
import { piPreset, piRenderer } from "./pi.js";
import { qwenPreset, qwenRenderer } from "./qwen.js";

/** Every built-in preset, by name, in the order the CLI lists them. */
export const PRESETS: ReadonlyMap<string, Preset> = new Map(
  [codeliaPreset, codexPreset, hyggePreset, geminiPreset, opencodePreset, opencodePluginPreset, claudePreset, copilotPreset, piPreset, qwenPreset].map(
    (preset) => [preset.name, preset],
  ),
);

/** Every renderer a preset names (`Preset.renderer`), by name. */
export const RENDERERS: ReadonlyMap<string, Renderer> = new Map([
  ["codelia", codeliaRenderer],
  ["codex", codexRenderer],
  ["hygge", hyggeRenderer],
  ["gemini", geminiRenderer],
  ["opencode", opencodeRenderer],
  ["claude", claudeRenderer],
  ["copilot", copilotRenderer],
  ["pi", piRenderer],
  ["qwen", qwenRenderer],
]);

const added = new Map<string, Preset>();

/**
 * Adds a caller's own preset (it may name a built-in renderer). A built-in name cannot be replaced.
 * @example registerPreset({ ...codeliaPreset, name: "mine", files: { names: ["NOTES.md"], select: "first" } });
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
 * The renderer named `name` (a preset's `renderer`). Throws ConfigError naming the known ones.
 * @example getRenderer("codex").initial({ cwd, root, blocks })
 */
export function getRenderer(name: string): Renderer {
  const renderer = RENDERERS.get(name);
  if (!renderer) throw new ConfigError(`no renderer named "${name}"`, { fix: `a preset's renderer must be one of: ${[...RENDERERS.keys()].join(", ")}` });
  return renderer;
}
