/**
 * Preset `amp`: Amp (`@ampcode/cli`, formerly `@sourcegraph/amp`), as read in the last pure-JS
 * build, `@sourcegraph/amp` 0.0.1777897475-g2324e1 (its dist/main.js; later versions are a native
 * binary this project cannot run), and ampcode.com's manual.
 *
 * - Names, one file per directory, the first present of: AGENTS.md, Agents.md, agents.md,
 *   AGENT.md, Agent.md, agent.md, CLAUDE.md.
 * - Startup: the workspace root (the directory amp starts in) and every directory above it, no
 *   root marker; then `~/.config/amp/` and `~/.config/` (`$XDG_CONFIG_HOME`).
 * - On a file tool (Read, edit_file, create_file, apply_patch, and Bash commands that read, search
 *   or list), Amp itself adds the first such file of every directory from the file's up to the
 *   workspace root (the root excluded), once per thread: the "subtree" files. Nested files are
 *   Amp's own; agentsmd/amp delivers only what Amp does not (docs/hosts/amp.md).
 * - `@`-mentions in those files (globs too) are Amp's own; agentsmd never expands imports for it.
 *
 * Not reproduced: Amp skips `/`, `/home`, `/Users`, `/proc`, `/sys` and `/dev` themselves in the
 * walk up, and reads its system-wide directories (`/etc`-like, per platform).
 *
 * Unproven against the binary: no Amp binary runs here (docs/hosts/amp.md, "Evidence").
 */
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset, type PresetEnv } from "./preset.js";
import type { RenderBlock, Renderer } from "../core/render.js";
import { join, xdgDir } from "../core/paths.js";
import { quote } from "../core/quote.js";

/** Amp's instruction file names, in its order (the first present in a directory is the one). */
export const AMP_NAMES: readonly string[] = ["AGENTS.md", "Agents.md", "agents.md", "AGENT.md", "Agent.md", "agent.md", "CLAUDE.md"];

/**
 * The user's configuration directory Amp reads (`$XDG_CONFIG_HOME`, else `~/.config`).
 */
export function ampUserConfigDir({ home, env }: PresetEnv): string {
  return xdgDir(env, "XDG_CONFIG_HOME", home, ".config");
}

function contents(blocks: readonly RenderBlock[]): string {
  return blocks.map((block) => `Contents of ${quote(block.path)}:\n\n<instructions>\n${block.content}\n</instructions>`).join("\n\n");
}

/** Amp's framing of an instruction file ("Contents of PATH" and an `<instructions>` block). */
export const ampRenderer: Renderer = {
  initial: ({ blocks }) => contents(blocks),
  inline: (blocks) => contents(blocks),
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const ampPreset: Preset = {
  name: "amp",
  description: "Amp: one of AGENTS.md, AGENT.md, CLAUDE.md (and case variants) per directory from cwd up; ~/.config/amp and ~/.config",
  root: { markers: [], stopAtFsRoot: true },
  files: { names: AMP_NAMES, select: "first" },
  initial: { maxFiles: UNLIMITED, maxBytes: UNLIMITED },
  resolver: { enabled: true, maxFilesPerResolve: UNLIMITED },
  lazy: { maxFiles: UNLIMITED, maxBytes: UNLIMITED, exclude: DEFAULT_EXCLUDES },
  scope: { ...SPEC_SCOPE, noMarker: "fs-root" },
  startup: { ...SPEC_STARTUP, keep: "root-first" },
  text: { ...SPEC_TEXT, skipBlank: false },
  dedupe: "path",
  renderer: ampRenderer,
  // Amp expands `@`-mentions itself.
  imports: { enabled: false, locked: true },
  userLayers: (context) =>
    [join(ampUserConfigDir(context), "amp"), ampUserConfigDir(context)].map((dir) => ({
      candidates: AMP_NAMES.map((name) => join(dir, name)),
      select: "first-non-empty" as const,
      trim: false,
      keepEmpty: true,
    })),
};
