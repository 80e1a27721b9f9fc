/**
 * Preset `auggie`: what Auggie 0.36.0 (Augment Code's CLI) loads by itself, observed in the
 * `/chat-stream` requests the pinned client sends a fake of Augment's backend
 * (e2e/auggie/hooks.e2e.test.ts). Auggie builds no prompt of its own: it sends the files it read
 * as `rules` entries and Augment's server builds the model's prompt from them, so this preset is
 * what the client sends, not what the server makes of it.
 *
 * - the workspace root is the nearest `.git` above cwd (else cwd); only the root's `AGENTS.md`
 *   and `CLAUDE.md` are sent, both when both exist, AGENTS.md first; a session started in a
 *   subdirectory sends the root's files, not its own directory's;
 * - nothing when a tool touches a path: Auggie's `view` never attaches a nested file, so nested
 *   files are what `agentsmd hook auggie` adds.
 *
 * Not modelled (Augment's own formats, sent beside these): `.augment/rules/**` (`always` rules
 * sent as such, `agent_requested` ones with their description for the server to pick, `manual`
 * ones not sent), `~/.augment/rules/*.md`, the legacy `.augment-guidelines` (sent as
 * `workspace_guidelines`). Not sent by 0.36.0: `.augment/guidelines.md`, `~/.augment/AGENTS.md`,
 * an AGENTS.md or CLAUDE.md below the root.
 */
import { join } from "../core/paths.js";
import { codeliaRenderer } from "../core/render.js";
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";

/**
 * `~/.augment`, Auggie's configuration directory (its session, settings and rules).
 */
export function augmentDir(home: string): string {
  return join(home, ".augment");
}

export const auggiePreset: Preset = {
  name: "auggie",
  description: "Auggie (Augment Code CLI): AGENTS.md + CLAUDE.md at the workspace root (nearest .git) only, nothing on touch",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: ["AGENTS.md", "CLAUDE.md"], select: "all" },
  initial: { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: 50, maxBytes: 256 * 1024, exclude: DEFAULT_EXCLUDES },
  scope: SPEC_SCOPE,
  startup: { ...SPEC_STARTUP, dirs: "root" },
  text: SPEC_TEXT,
  dedupe: "path",
  renderer: codeliaRenderer,
  userLayers: () => [],
};
