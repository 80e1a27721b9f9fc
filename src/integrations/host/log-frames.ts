/**
 * Framed instruction blocks inside a text that reached the model: the frames agents and agentsmd
 * put around a file's text and name it by (`Contents of PATH (...):` of Claude Code and its
 * hooks, `Instructions from: PATH` of agentsmd's renderers, `# AGENTS.md instructions for DIR`
 * with `<INSTRUCTIONS>` of Codex, `--- Context from: PATH ---` of Gemini CLI). A block tells the audit which file an
 * earlier text belonged to (for `stale`); whether a file was seen is decided by its text alone.
 * Pure.
 */
import { unquote } from "../../core/quote.js";
import { pathInputProblem } from "../../core/paths.js";

export interface TextPiece {
  text: string;
  /** The absolute path the frame names, when the piece is a framed block. */
  about?: string;
}

const FRAME =
  /(?:^|: )(?:Contents of (\/[^\n]*?|"[^\n]*?")(?: \([^\n()]*\))?:[ \t]*\n|Instructions from: (\/[^\n]*|"[^\n]*")\n|# AGENTS\.md instructions for (\/[^\n]*|"[^\n]*")\n\n<INSTRUCTIONS>\n|--- Context from: (\/[^\n]*?) ---\n)/gm;
/** Most pieces one text is split into; the rest stays in the last piece. */
const MAX_PIECES = 256;

/** The path a frame names (bare or JSON-quoted), when it is an absolute path agentsmd accepts. */
export function framedPath(raw: string): string | undefined {
  let path: string;
  try {
    path = unquote(raw.trim());
  } catch {
    return undefined;
  }
  return path.startsWith("/") && pathInputProblem(path) === null ? path : undefined;
}

/**
 * `text` split at its frames: the text before the first frame (when not blank), then one piece per
 * framed block, naming its path.
 */
export function splitFrames(text: string): TextPiece[] {
  const starts: Array<{ at: number; body: number; about: string | undefined }> = [];
  FRAME.lastIndex = 0;
  for (let match = FRAME.exec(text); match !== null && starts.length < MAX_PIECES; match = FRAME.exec(text)) {
    const at = match[0].startsWith(": ") ? match.index + 2 : match.index;
    // Codex's frame names the directory: "DIR/" stands for whichever of its files it is.
    const about = match[3] !== undefined ? framedPath(match[3]) : framedPath(match[1] ?? match[2] ?? match[4]!);
    starts.push({ at, body: match.index + match[0].length, about: match[3] !== undefined && about !== undefined ? `${about.replace(/\/+$/, "")}/` : about });
  }
  if (starts.length === 0) return [{ text }];
  const pieces: TextPiece[] = [];
  const head = text.slice(0, starts[0]!.at);
  if (head.trim() !== "") pieces.push({ text: head });
  starts.forEach((start, index) => {
    const end = index + 1 < starts.length ? starts[index + 1]!.at : text.length;
    let body = text.slice(start.body, end).replace(/\s*<\/(?:system-reminder|agents_context|INSTRUCTIONS)>\s*$/, "\n");
    // Gemini CLI closes its block: what follows the closing line is no longer the file's.
    const close = body.indexOf("\n--- End of Context from: ");
    const tail = close < 0 ? "" : body.slice(body.indexOf("\n", close + 1) + 1 || body.length);
    if (close >= 0) body = body.slice(0, close + 1);
    pieces.push(start.about === undefined ? { text: text.slice(start.at, end) } : { text: body, about: start.about });
    if (start.about !== undefined && tail.trim() !== "") pieces.push({ text: tail });
  });
  return pieces;
}
