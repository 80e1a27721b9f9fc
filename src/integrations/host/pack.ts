/**
 * A hook answer packed under a host's character budget: whole files most specific first, what
 * does not fit named, the update notice, and a last guard that cuts at a line end. Pure (no I/O).
 * Every path is quoted (core/quote.ts) before it reaches model-visible text.
 */
import { parentOf } from "../../core/paths.js";
import { trimEndText } from "../../core/budget.js";
import { quote } from "../../core/quote.js";

/** What an answer is kept under when the host profile does not say. */
const DEFAULT_CONTEXT_BUDGET = 9_500;

function depth(path: string): number {
  return path.split("/").length;
}

/**
 * Most specific first: deeper directories first, then by path.
 */
export function nearestFirst<T extends { path: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => depth(b.path) - depth(a.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * How one file is shown: a factual heading, then its text.
 */
export function renderPiece(piece: { path: string; content: string }): string {
  return `Contents of ${quote(piece.path)} (AGENTS.md instructions for ${quote(parentOf(piece.path))} and everything below it):\n\n${trimEndText(piece.content)}`;
}

/**
 * The targets a tool header names, quoted, within `room` characters: as many as fit, then how many
 * more. One tool call may name hundreds of paths (VS Code's `editFiles`): named whole, 300 of them
 * filled the budget before any file did.
 */
export function nameTargets(targets: readonly string[], room: number): string {
  let text = "";
  for (let index = 0; index < targets.length; index++) {
    const next = `${index === 0 ? "" : ", "}${quote(targets[index]!)}`;
    const more = targets.length - index - 1;
    if (text.length + next.length + (more > 0 ? ` and ${more} more`.length : 0) > room) {
      // Not even one name fits: the count (core/words.ts would be one more module in the hook bundle).
      return index > 0 ? `${text} and ${targets.length - index} more` : `${targets.length} path${targets.length === 1 ? "" : "s"}`;
    }
    text += next;
  }
  return text;
}

/** The share of the budget a header may take: the rest is for the files and their names. */
const HEADER_SHARE = 4;
const HEADER_CUT = " [agentsmd: header cut]";

/** A header longer than its share, cut after the last whole word that fits (a last guard: callers name targets with `nameTargets`). */
function boundedHeader(header: string, budget: number): string {
  const room = Math.floor(budget / HEADER_SHARE);
  if (header.length <= room) return header;
  const cut = header.lastIndexOf(" ", room - HEADER_CUT.length);
  return `${header.slice(0, cut > 0 ? cut : Math.max(0, room - HEADER_CUT.length))}${HEADER_CUT}`;
}

const OMITTED_HEADER = "\n\nThese instruction files also apply but were too long to include here; read them before working under their directories:";

function omittedList(paths: readonly string[], room: number): string {
  if (paths.length === 0) return "";
  let text = OMITTED_HEADER;
  for (let index = 0; index < paths.length; index++) {
    const line = `\n- ${quote(paths[index]!)}`;
    const last = index === paths.length - 1;
    // Keep room for the "... and N more" line unless this is the last path.
    if (text.length + line.length + (last ? 0 : 24) > room) return `${text}\n- ... and ${paths.length - index} more`;
    text += line;
  }
  return text;
}

export interface PackResult {
  text: string;
  /** Files shown whole. */
  shown: string[];
  /** Files named only (not admitted). */
  named: string[];
}

/**
 * Packs files into one answer under `budget` characters: whole files in the order given (callers
 * pass them most specific first), skipping any that no longer fit, then the paths of the rest. The
 * header takes at most a quarter of the budget, so an answer is never a header alone.
 */
export function packContext(
  header: string,
  pieces: ReadonlyArray<{ path: string; content: string }>,
  budget = DEFAULT_CONTEXT_BUDGET,
  alreadyNamed: ReadonlySet<string> = new Set(),
): PackResult {
  if (pieces.length === 0) return { text: "", shown: [], named: [] };
  // Room kept for naming what is left: the paths already left out plus every later one (an upper
  // bound of the final list), capped.
  const cap = Math.min(2_000, Math.floor(budget / 4));
  const cost = (path: string) => (alreadyNamed.has(path) ? 0 : quote(path).length + 3);
  const after: number[] = new Array<number>(pieces.length + 1).fill(0);
  for (let index = pieces.length - 1; index >= 0; index--) after[index] = after[index + 1]! + cost(pieces[index]!.path);
  const shown: string[] = [];
  const left: string[] = [];
  let leftCost = 0;
  let body = boundedHeader(header, budget);
  for (const [index, piece] of pieces.entries()) {
    const entry = `\n\n${renderPiece(piece)}`;
    const names = leftCost + after[index + 1]!;
    const reserve = names === 0 ? 0 : Math.min(cap, OMITTED_HEADER.length + names + 30);
    if (body.length + entry.length + reserve <= budget) {
      body += entry;
      shown.push(piece.path);
    } else {
      left.push(piece.path);
      leftCost += cost(piece.path);
    }
  }
  const toName = left.filter((path) => !alreadyNamed.has(path));
  if (shown.length === 0 && toName.length === 0) return { text: "", shown, named: [] };
  const text = body + omittedList(toName, Math.max(0, budget - body.length));
  return { text: text.length <= budget ? text : text.slice(0, budget), shown, named: toName };
}

/**
 * Last guard for a host's limit: cut at a line end and say so.
 */
export function fit(text: string, budget: number, host = "the host"): string {
  if (text.length <= budget) return text;
  const note = `\n[agentsmd: cut here to stay under ${host}'s hook output limit]`;
  const cut = text.lastIndexOf("\n", budget - note.length);
  return `${text.slice(0, cut > 0 ? cut : budget - note.length)}${note}`;
}

/** The update notice's first line. */
const NOTICE_HEADING = "agentsmd: instruction files changed since they were shown in this conversation:";

/**
 * The update notice: a heading and the lines that fit under `budget`, then "... and N more".
 */
export function packNotice(lines: readonly string[], budget: number, heading = NOTICE_HEADING): string {
  let text = heading;
  for (let index = 0; index < lines.length; index++) {
    if (text.length + lines[index]!.length + 40 > budget) return `${text}\n- ... and ${lines.length - index} more`;
    text += `\n${lines[index]}`;
  }
  return text;
}
