/**
 * Preset `droid`: what Factory Droid 0.215.0 loads by itself at startup, observed in the first
 * request the pinned binary sends a scripted model (e2e/droid/hooks.e2e.test.ts):
 *
 * - `AGENTS.md` and `CLAUDE.md` of every directory from cwd up to the project root (both when
 *   both exist; Droid lists the nearest directory first, CLAUDE.md before AGENTS.md);
 * - the global `~/.factory/AGENTS.md` ("Personal Global Instructions");
 * - later, the nested files of a path its Read tool read ("Additional project instructions
 *   discovered along the accessed path"), which `agentsmd hook droid` leaves to Droid.
 *
 * Not modelled: Droid's budgets (80 k characters at startup, 40 k for discovery, per Factory's
 * guide), its framing (`% cat <path>` and `<coding_guidelines>`), `.factory/` rules and skills.
 */
import { join } from "../core/paths.js";
import { codeliaRenderer } from "../core/render.js";
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";

/**
 * `~/.factory`, Droid's configuration directory.
 */
export function factoryDir(home: string): string {
  return join(home, ".factory");
}

export const droidPreset: Preset = {
  name: "droid",
  description: "Factory Droid: AGENTS.md + CLAUDE.md from the git root to cwd, ~/.factory/AGENTS.md, nested files on Read",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: ["CLAUDE.md", "AGENTS.md"], select: "all" },
  initial: { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: 80_000 },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: 50, maxBytes: 40_000, exclude: DEFAULT_EXCLUDES },
  scope: SPEC_SCOPE,
  startup: SPEC_STARTUP,
  text: SPEC_TEXT,
  dedupe: "path",
  renderer: codeliaRenderer,
  userLayers: ({ home }) => [{ candidates: [join(factoryDir(home), "AGENTS.md")], select: "first-non-empty", trim: true }],
};
