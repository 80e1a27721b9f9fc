/**
 * The proposal step of the conversation engine (host/conversation.ts), for a session that is
 * already open: skip what the host loaded itself -> propose (`{admit:false}`) -> render -> (the
 * caller hands the text over) -> `commit()` admits, `release()` gives the claims back. The engine
 * calls it at every event; in-process adapters (the family plugin, the MCP server) through the
 * engine's `proposeAll`, and commit once the answer is on its way to the model.
 */
import type { AgentsSession } from "../../session/session.js";
import type { NativeAnswer, NativeOrigin } from "./profile.js";

/** One file that could be delivered. */
export interface Piece {
  path: string;
  mtimeMs: number;
  /** The text to show ("" for metadata-only delivery). */
  content: string;
  origin: NativeOrigin;
  sizeBytes?: number;
  /** A scoped rule (a format the host does not read itself: the session drops the others): always shown. */
  rule?: boolean;
}

/** How the shown files become text: which of them fit (`shown`), and which are only named. */
interface Rendered {
  text: string;
  shown: ReadonlySet<string>;
  named?: readonly string[];
}

/** A proposal: `text` to hand over, then `commit()` (delivered) or `release()` (not delivered). */
export interface Proposal {
  text: string;
  /** Files the text shows. */
  shown: Piece[];
  /** Files only named (too large to show); not admitted. */
  named: Piece[];
  /** Admits what was shown or what the host has itself; drops the rest from the admitted set. */
  commit(): void;
  /** Nothing was delivered: every claim is given back. */
  release(): void;
}

export interface ProposeOptions {
  /** What the host loaded itself. @default every file "no" */
  native?(piece: Piece): NativeAnswer | Promise<NativeAnswer>;
  /** Renders the files to show, in the order given. */
  render(pieces: readonly Piece[]): Rendered;
  /** Order of the files to show. @default as given */
  order?(pieces: readonly Piece[]): Piece[];
}

/**
 * Splits `pieces` into what the host has (`loaded`), will load itself (`later`) and what to show,
 * renders the last, and returns the proposal.
 */
export async function proposePieces(session: AgentsSession, pieces: readonly Piece[], options: ProposeOptions): Promise<Proposal> {
  const admit: Piece[] = [];
  const withhold: Piece[] = [];
  const show: Piece[] = [];
  for (const piece of pieces) {
    const native = options.native && !piece.rule ? await options.native(piece) : "no";
    (native === "loaded" ? admit : native === "later" ? withhold : show).push(piece);
  }
  const ordered = options.order ? options.order(show) : show;
  const rendered = ordered.length > 0 ? options.render(ordered) : { text: "", shown: new Set<string>() };
  const shown = ordered.filter((piece) => rendered.shown.has(piece.path));
  for (const piece of ordered) (rendered.shown.has(piece.path) ? admit : withhold).push(piece);
  const namedPaths = new Set(rendered.named ?? []);
  return {
    text: rendered.text,
    shown,
    named: ordered.filter((piece) => namedPaths.has(piece.path)),
    commit: () => {
      session.admit(admit);
      session.release(withhold);
      // Withheld files are not admitted, not even from the initial load.
      session.forget(withhold);
    },
    release: () => session.release(pieces),
  };
}

/**
 * Pieces from `touch` blocks (or `resolve` files, content ""), at the origin given.
 */
export function piecesOf(
  blocks: ReadonlyArray<{ path: string; mtimeMs: number; content?: string; sizeBytes?: number; rule?: unknown }>,
  origin: NativeOrigin,
): Piece[] {
  return blocks.map((block) => ({
    path: block.path,
    mtimeMs: block.mtimeMs,
    content: block.content ?? "",
    origin,
    ...(block.sizeBytes !== undefined ? { sizeBytes: block.sizeBytes } : {}),
    ...(block.rule ? { rule: true } : {}),
  }));
}
