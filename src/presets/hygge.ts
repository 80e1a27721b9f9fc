/**
 * Preset `hygge` (cfbender/hygge; docs/loading-rules.md#hygge): user layers, all root files, subdirectories only
 * through touch, its own framing and source tokens.
 */
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";
import { type RenderBlock, type Renderer } from "../core/render.js";
import { isInside, join } from "../core/paths.js";
import { quote } from "../core/quote.js";

const ROOT_NAMES = [".agents/AGENTS.md", "AGENTS.md", "AGENTS.local.md", "CLAUDE.md", "CLAUDE.local.md"];

/** hygge's source token for a block, and the label it prints (root-relative for project files). */
function hyggeSource(block: RenderBlock, root: string): { token: string; label: string } {
  if (block.layer === "user") {
    const token = block.path.endsWith("/.agents/AGENTS.md") ? "user/.agents" : block.path.endsWith("/hygge/AGENTS.md") ? "user/hygge" : "user/.claude";
    return { token, label: block.path };
  }
  const label = isInside(block.path, root) && block.path !== root ? block.path.slice(root.length + (root.endsWith("/") ? 0 : 1)) : block.path;
  if (block.layer === "path") return { token: "project/subdir", label };
  return { token: label === ".agents/AGENTS.md" ? "project/.agents" : "project/root", label };
}

function frame(header: string, blocks: readonly RenderBlock[], root: string): string {
  if (blocks.length === 0) return "";
  const body = blocks
    .map((block) => {
      const { token, label } = hyggeSource(block, root);
      return `<!-- source: ${token}: ${quote(label)} -->\n${block.content ? `${block.content}\n` : ""}`;
    })
    .join("\n---\n\n");
  return `${header}\n\n${body}`.replace(/\n+$/, "");
}

const hyggeRenderer: Renderer = {
  initial: ({ root, blocks }) => frame("## Project context", blocks, root),
  // Lazy blocks are always subdirectory blocks in hygge.
  inline: (blocks, { root }) =>
    frame(
      "## Additional project context (loaded for this turn)",
      blocks.map((block) => ({ ...block, layer: "path", content: block.content.trim() })),
      root,
    ),
};

export const hyggePreset: Preset = {
  name: "hygge",
  description: "hygge: user layers + every root file at startup, subdirectories only on touch (50 files / 256 KiB per session)",
  root: { markers: ["AGENTS.md", "CLAUDE.md", ".git", ".agents", ".hygge"], stopAtFsRoot: false },
  files: { names: ROOT_NAMES, select: "all" },
  initial: { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: {
    maxFiles: 50,
    maxBytes: 256 * 1024,
    exclude: [...new Set([...DEFAULT_EXCLUDES, ".agents", ".hygge"])],
    groups: [["AGENTS.md"], ["CLAUDE.md", "CLAUDE.local.md"]],
  },
  scope: { ...SPEC_SCOPE, noMarker: "none", touchOrder: "nearest-first" },
  startup: { ...SPEC_STARTUP, dirs: "root", keep: "root-first" },
  text: { ...SPEC_TEXT, skipBlank: false, trim: true },
  dedupe: "path",
  renderer: hyggeRenderer,
  formatList(rows, { root }) {
    if (rows.length === 0) return "No project context files found.";
    const table = [["SOURCE", "PATH", "BYTES", "LINES"]];
    for (const row of rows) {
      const { token, label } = hyggeSource(row, root);
      const lines = row.content === "" ? 0 : row.content.split("\n").length;
      table.push([token, quote(label), String(row.sizeBytes), String(lines)]);
    }
    const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
    return table.map((cells) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n");
  },
  userLayers: ({ home, env }) => {
    const xdg = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(home, ".config");
    return [join(home, ".agents/AGENTS.md"), join(xdg, "hygge/AGENTS.md"), join(home, ".claude/CLAUDE.md")].map((path) => ({
      candidates: [path],
      select: "all" as const,
      trim: true,
      keepEmpty: true,
    }));
  },
};
