/**
 * Preset `cline`: what Cline CLI 3.0.65 loads by itself, observed in the system prompt the pinned
 * binary sends a scripted model (e2e/cline/agents.e2e.test.ts):
 *
 * - the workspace is cwd (no walk up to a `.git`): only `<cwd>/AGENTS.md` ("Workspace AGENTS.md"),
 *   so a session started in a subdirectory never sees the repository root's file;
 * - the global `~/.agents/AGENTS.md` ("Global AGENTS.md"), before the workspace file;
 * - nothing when a tool touches a path below cwd: nested files are what `agentsmd hook cline` adds;
 * - framed under `# Rules` as `## Global AGENTS.md` / `## Workspace AGENTS.md`, text trimmed.
 *
 * Not modelled: `.clinerules/` rule files, `~/Documents/Cline/Rules/` (every `*.md` there, an
 * `AGENTS.md` among them, is a global rule), `.agents/` and skills.
 */
import { join } from "../core/paths.js";
import { quote } from "../core/quote.js";
import type { RenderBlock, Renderer } from "../core/render.js";
import { SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, DEFAULT_EXCLUDES, type Preset } from "./preset.js";

/**
 * Cline's global AGENTS.md.
 */
function clineGlobalAgentsMd(home: string): string {
  return join(join(home, ".agents"), "AGENTS.md");
}

/**
 * `~/.cline`, Cline's configuration directory (`CLINE_DIR` when set).
 */
export function clineDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const override = env.CLINE_DIR?.trim();
  return override ? override : join(home, ".cline");
}

function section(block: RenderBlock, label: string): string | null {
  const text = block.content.trim();
  return text === "" ? null : `## ${label}\n${text}`;
}

/**
 * Cline's rule sections: the global file, then the workspace file, each under its heading.
 */
function clineSections(blocks: readonly RenderBlock[]): string {
  const ordered = [...blocks.filter((block) => block.layer === "user"), ...blocks.filter((block) => block.layer !== "user")];
  return ordered
    .map((block) => section(block, block.layer === "user" ? "Global AGENTS.md" : "Workspace AGENTS.md"))
    .filter((text): text is string => text !== null)
    .join("\n\n");
}

const clineRenderer: Renderer = {
  initial: ({ blocks }) => clineSections(blocks),
  inline: (blocks) =>
    blocks
      .map((block) => section(block, `AGENTS.md ${quote(block.path)}`))
      .filter((text): text is string => text !== null)
      .join("\n\n"),
};

export const clinePreset: Preset = {
  name: "cline",
  description: "Cline CLI: ~/.agents/AGENTS.md and <cwd>/AGENTS.md only (the workspace is cwd), nothing on touch",
  root: { markers: [], stopAtFsRoot: true },
  files: { names: ["AGENTS.md"], select: "first" },
  initial: { maxFiles: 1, maxBytes: Number.MAX_SAFE_INTEGER },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: 50, maxBytes: 256 * 1024, exclude: DEFAULT_EXCLUDES },
  scope: { ...SPEC_SCOPE, noMarker: "cwd" },
  startup: SPEC_STARTUP,
  text: { ...SPEC_TEXT, trim: true },
  dedupe: "path",
  renderer: clineRenderer,
  userLayers: ({ home }) => [{ candidates: [clineGlobalAgentsMd(home)], select: "first-non-empty", trim: true }],
};
