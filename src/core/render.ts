/**
 * Pure renderers: how a bundle of instruction files is framed for the model, one per agent format.
 */
import type { Layer } from "./schema.js";
import { trimEndText } from "./budget.js";
import { parentOf } from "./paths.js";
import { quote } from "./quote.js";

export interface RenderBlock {
  path: string;
  layer: Layer;
  /** The text as the budget left it (a cut file already ends with its truncation line). */
  content: string;
}

interface InitialRenderInput {
  cwd: string;
  root: string;
  blocks: readonly RenderBlock[];
}

export interface Renderer {
  /** The initial message, injected once; "" when there is nothing to say. */
  initial(input: InitialRenderInput): string;
  /** Bodies delivered later (inline mode), in the order given. "" for none. */
  inline(blocks: readonly RenderBlock[], context: { cwd: string; root: string }): string;
}

function instructionsFrom(blocks: readonly RenderBlock[]): string {
  return blocks.map((block) => `Instructions from: ${quote(block.path)}\n${trimEndText(block.content)}`).join("\n\n");
}

/**
 * The initial message (docs/loading-rules.md#the-initial-load): `<agents_context scope="initial">` ... `</agents_context>`.
 * @example codeliaRenderer.initial({ cwd: "/r", root: "/r", blocks: [{ path: "/r/AGENTS.md", layer: "project", content: "Be nice.\n" }] })
 * // '<agents_context scope="initial">\nInstructions from: /r/AGENTS.md\nBe nice.\n</agents_context>'
 */
export const codeliaRenderer: Renderer = {
  initial({ blocks }) {
    if (blocks.length === 0) return "";
    return `<agents_context scope="initial">\n${instructionsFrom(blocks)}\n</agents_context>`;
  },
  inline(blocks) {
    if (blocks.length === 0) return "";
    return `<agents_context scope="path">\n${instructionsFrom(blocks)}\n</agents_context>`;
  },
};

/** Codex CLI's user-instructions fragment (docs/loading-rules.md#codex), byte for byte. */
export const codexRenderer: Renderer = {
  initial({ cwd, blocks }) {
    const user = blocks.filter((block) => block.layer === "user").map((block) => block.content);
    const project = blocks.filter((block) => block.layer !== "user").map((block) => block.content);
    const global = user.join("\n\n");
    const docs = project.join("\n\n");
    if (global === "" && docs === "") return "";
    const text = global && docs ? `${global}\n\n--- project-doc ---\n\n${docs}` : global || docs;
    const heading = docs ? `# AGENTS.md instructions for ${quote(cwd)}` : "# AGENTS.md instructions";
    return `${heading}\n\n<INSTRUCTIONS>\n${text}\n</INSTRUCTIONS>`;
  },
  inline(blocks) {
    return blocks
      .map((block) => `# AGENTS.md instructions for ${quote(parentOf(block.path))}\n\n<INSTRUCTIONS>\n${block.content}\n</INSTRUCTIONS>`)
      .join("\n\n");
  },
};
