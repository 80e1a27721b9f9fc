/**
 * Preset `pi`: the pi coding agent (`@earendil-works/pi-coding-agent`, formerly
 * `@mariozechner/pi-coding-agent`; read in 0.87.1, `loadProjectContextFiles` in
 * dist/core/resource-loader.js and `renderProjectContext` in dist/core/system-prompt.js).
 *
 * - Global: the first regular file of AGENTS.override.md, AGENTS.md, AGENTS.MD, CLAUDE.md,
 *   CLAUDE.MD in pi's agent dir (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`); an empty file counts.
 * - Project: every directory from `/` down to cwd (no root marker), the first regular file of the
 *   same names in each; whole files, no budget; a leading BOM is dropped.
 * - Rendered once, at session start, in the system prompt's `<project_context>` section: global
 *   first, then root -> cwd, each as `<project_instructions path="...">\n<text>\n</project_instructions>`.
 * - Nothing on touch: pi leaves nested files to extensions (`agentsmd/pi` delivers them).
 *
 * Not reproduced: the linked-worktree rule (a worktree nested inside its main checkout skips the
 * main checkout's file of the same name).
 *
 * Proven against pi's own `loadProjectContextFiles` by e2e/pi/preset.e2e.test.ts.
 */
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset, type PresetEnv } from "./preset.js";
import { type RenderBlock, type Renderer } from "../core/render.js";
import { join } from "../core/paths.js";
import { quote } from "../core/quote.js";

/** pi's context file names, in priority order (one file per directory). */
export const PI_NAMES: readonly string[] = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/**
 * pi's agent dir: `$PI_CODING_AGENT_DIR` (a leading `~` is the home), else `~/.pi/agent`.
 */
export function piAgentDir({ home, env }: PresetEnv): string {
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir && dir.length > 0) {
    if (dir === "~") return home;
    if (dir.startsWith("~/")) return join(home, dir.slice(2));
    return dir;
  }
  return join(join(home, ".pi"), "agent");
}

function projectInstructions(blocks: readonly RenderBlock[]): string[] {
  return blocks.map((block) => `<project_instructions path="${quote(block.path)}">\n${block.content}\n</project_instructions>`);
}

/**
 * pi's framing. `initial`: the system prompt's `<project_context>` section, byte for byte.
 * `inline` (what `agentsmd/pi` appends to a tool result): the same blocks, introduced as files
 * for the paths just touched.
 */
export const piRenderer: Renderer = {
  initial({ blocks }) {
    if (blocks.length === 0) return "";
    return `<project_context>\n${["Project-specific instructions and guidelines:", ...projectInstructions(blocks)].join("\n\n")}\n</project_context>`;
  },
  inline(blocks) {
    if (blocks.length === 0) return "";
    const intro = "Project-specific instructions and guidelines for the paths just used (they apply to everything under each file's directory):";
    return `<project_context>\n${[intro, ...projectInstructions(blocks)].join("\n\n")}\n</project_context>`;
  },
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const piPreset: Preset = {
  name: "pi",
  description: "pi: global file in ~/.pi/agent + one of AGENTS.override.md, AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD per directory from / to cwd",
  root: { markers: [], stopAtFsRoot: true },
  files: { names: PI_NAMES, select: "first" },
  initial: { maxFiles: UNLIMITED, maxBytes: UNLIMITED },
  resolver: { enabled: true, maxFilesPerResolve: UNLIMITED },
  lazy: { maxFiles: UNLIMITED, maxBytes: UNLIMITED, exclude: DEFAULT_EXCLUDES },
  scope: { ...SPEC_SCOPE, noMarker: "fs-root" },
  startup: { ...SPEC_STARTUP, keep: "root-first" },
  text: { ...SPEC_TEXT, skipBlank: false },
  dedupe: "path",
  renderer: piRenderer,
  userLayers: (context) => [
    {
      candidates: PI_NAMES.map((name) => join(piAgentDir(context), name)),
      select: "first-non-empty",
      trim: false,
      keepEmpty: true,
    },
  ],
};
