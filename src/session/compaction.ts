/**
 * Compaction context (docs/loading-rules.md#compaction): the instruction files in force, rendered for a summariser,
 * cut to a token budget. Pure: the session reads the bodies, this module chooses and renders.
 */
import type { Layer } from "../core/schema.js";
import { trimEndText } from "../core/budget.js";
import { segmentsBelow } from "../core/paths.js";
import { quote } from "../core/quote.js";

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/**
 * The default token counter: `ceil(UTF-8 bytes / 4)`. BPE tokenizers average about 4 bytes per
 * token on English prose and Markdown; text in other scripts costs more tokens per byte, so pass
 * the model's own counter when the budget is tight.
 * @example estimateTokens("abcdefgh") // 2
 */
export function estimateTokens(text: string): number {
  return tokensForBytes(Buffer.byteLength(text, "utf8"));
}

/**
 * The same estimate from a byte count (`tree` sizes files without reading them): `ceil(bytes / 4)`.
 */
export function tokensForBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}

export interface CompactionFile {
  path: string;
  layer: Layer;
  content: string;
}

export interface CompactionContextOptions {
  /** Token budget of the whole text, truncation line included. @default 1000 */
  maxTokens?: number;
  /** Token counter. @default {@link estimateTokens} (ceil(bytes / 4)) */
  countTokens?: TokenCounter;
  /** Layers to include. @default ["user", "project", "path", "config"] */
  layers?: readonly Layer[];
  /** Paths to leave out (the host keeps them in context itself). @default none */
  exclude?: readonly string[];
}

export interface CompactionContext {
  /** The text to hand to the summariser ("" when no file is in force). */
  text: string;
  /** Tokens of `text` by the counter used. */
  tokens: number;
  /** Files shown, root first; `partial` when only their start fit. */
  included: Array<{ path: string; layer: Layer; partial: boolean }>;
  /** Files in force that did not fit (named in the truncation line with the partial ones). */
  omitted: string[];
}

/** Default compaction budget in tokens. */
export const DEFAULT_COMPACTION_TOKENS = 1000;

const OPEN = '<agents_context scope="compaction">';
const CLOSE = "</agents_context>";
const INTRO = "These instruction files (AGENTS.md) are in force for this session. Keep them in the summary: they still apply after it.";

/** Depth of a file for "most specific first": user files are the least specific. */
function depth(file: CompactionFile): number {
  if (file.layer === "user") return -1;
  return segmentsBelow(file.path, "/").length;
}

/** Root first: user layer, then by depth, then by path. */
function rootFirst(a: CompactionFile, b: CompactionFile): number {
  return depth(a) - depth(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * The truncation line: names every file to re-read in full.
 */
function compactionTruncationLine(paths: readonly string[], maxTokens: number): string {
  return `[agentsmd: instruction files cut to fit ${maxTokens} tokens; read these again in full: ${paths.map(quote).join(", ")}]`;
}

function render(shown: ReadonlyArray<{ file: CompactionFile; content: string }>, cut: readonly string[], maxTokens: number): string {
  const blocks = [...shown]
    .sort((a, b) => rootFirst(a.file, b.file))
    .map(({ file, content }) => `Instructions from: ${quote(file.path)}\n${trimEndText(content)}`);
  const lines = [OPEN, INTRO, ...(blocks.length ? [blocks.join("\n\n")] : [])];
  if (cut.length > 0) lines.push(compactionTruncationLine(cut, maxTokens));
  lines.push(CLOSE);
  return lines.join("\n");
}

/**
 * Chooses and renders the files for a compaction: the most specific files claim the budget first,
 * the text shows them root first, and a file that does not fit whole is cut at a line boundary
 * (or left out) and named in a visible truncation line.
 * @example
 * const { text } = buildCompactionContext([{ path: "/r/AGENTS.md", layer: "project", content: "Use pnpm." }], { maxTokens: 200 });
 */
export function buildCompactionContext(files: readonly CompactionFile[], options: CompactionContextOptions = {}): CompactionContext {
  const maxTokens = options.maxTokens ?? DEFAULT_COMPACTION_TOKENS;
  const count = options.countTokens ?? estimateTokens;
  const layers = new Set(options.layers ?? ["user", "project", "path", "config"]);
  const excluded = new Set(options.exclude ?? []);
  const inForce = files.filter((file) => layers.has(file.layer) && !excluded.has(file.path));
  if (inForce.length === 0) return { text: "", tokens: 0, included: [], omitted: [] };

  const all = inForce.map((file) => ({ file, content: file.content }));
  const whole = render(all, [], maxTokens);
  const wholeTokens = count(whole);
  if (wholeTokens <= maxTokens) {
    return {
      text: whole,
      tokens: wholeTokens,
      included: [...inForce].sort(rootFirst).map((file) => ({ path: file.path, layer: file.layer, partial: false })),
      omitted: [],
    };
  }

  // Reserve room for the longest truncation line (every file named) so the result always fits.
  const everyPath = [...inForce].sort((a, b) => depth(b) - depth(a)).map((file) => file.path);
  const fits = (shown: ReadonlyArray<{ file: CompactionFile; content: string }>) => count(render(shown, everyPath, maxTokens)) <= maxTokens;
  const shown: Array<{ file: CompactionFile; content: string }> = [];
  const partial = new Set<string>();
  const mostSpecificFirst = [...inForce].sort((a, b) => depth(b) - depth(a) || (a.path < b.path ? -1 : 1));
  for (const file of mostSpecificFirst) {
    if (fits([...shown, { file, content: file.content }])) {
      shown.push({ file, content: file.content });
      continue;
    }
    // Cut at a line boundary: the longest prefix of whole lines that fits.
    const lines = file.content.split("\n");
    let low = 0;
    let high = lines.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits([...shown, { file, content: lines.slice(0, mid).join("\n") }])) low = mid;
      else high = mid - 1;
    }
    if (low > 0 && lines.slice(0, low).join("\n").trim() !== "") {
      shown.push({ file, content: lines.slice(0, low).join("\n") });
      partial.add(file.path);
      break;
    }
  }
  const shownPaths = new Set(shown.map((entry) => entry.file.path));
  const cut = everyPath.filter((path) => !shownPaths.has(path) || partial.has(path));
  const text = render(shown, cut, maxTokens);
  return {
    text,
    tokens: count(text),
    included: shown
      .map((entry) => entry.file)
      .sort(rootFirst)
      .map((file) => ({ path: file.path, layer: file.layer, partial: partial.has(file.path) })),
    omitted: everyPath.filter((path) => !shownPaths.has(path)),
  };
}
