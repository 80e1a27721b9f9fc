/**
 * Find text inside recorded Anthropic Messages API request bodies, with its exact location:
 * which message, which block, and whether it sits inside a tool_result.
 *
 * Example:
 * ```ts
 * const hits = locateText(request.body, "MARKER-123");
 * // [{ where: "message", message: 4, role: "system", block: 0, blockType: "text", ... }]
 * ```
 */

/** One text segment of a request, and where it sits. */
export interface TextSegment {
  /** `system` = the top-level `system` prompt; `message` = inside `messages`. */
  where: "system" | "message";
  /** Index in `messages` (or in `system` when it is a block list); -1 for a plain-string system prompt. */
  message: number;
  /** Role of the message (`user`, `assistant`, `system`), or `system-prompt`. */
  role: string;
  /** Block index inside the message content; null when the content is a plain string. */
  block: number | null;
  /** `string` (plain-string content), `text`, `tool_result`, `tool_use` (JSON of its input), ... */
  blockType: string;
  /** For tool_result blocks: the index inside the tool_result's content array, or null when it is a string. */
  inner: number | null;
  /** For tool_result / tool_use blocks: the tool_use id. */
  toolUseId?: string;
  text: string;
}

/** A segment plus the offset of the needle in it. */
export interface TextLocation extends TextSegment {
  offset: number;
}

/** Every text segment of a Messages request body, in order (system prompt first). */
export function textSegments(body: any): TextSegment[] {
  const out: TextSegment[] = [];
  const system = body?.system;
  if (typeof system === "string") {
    out.push({ where: "system", message: -1, role: "system-prompt", block: null, blockType: "string", inner: null, text: system });
  } else if (Array.isArray(system)) {
    system.forEach((b: any, i: number) => {
      if (b && typeof b.text === "string") {
        out.push({ where: "system", message: i, role: "system-prompt", block: null, blockType: b.type ?? "text", inner: null, text: b.text });
      }
    });
  }
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  messages.forEach((m: any, mi: number) => {
    const role = String(m?.role ?? "?");
    const content = m?.content;
    if (typeof content === "string") {
      out.push({ where: "message", message: mi, role, block: null, blockType: "string", inner: null, text: content });
      return;
    }
    if (!Array.isArray(content)) return;
    content.forEach((b: any, bi: number) => {
      if (!b || typeof b !== "object") return;
      if (b.type === "text" && typeof b.text === "string") {
        out.push({ where: "message", message: mi, role, block: bi, blockType: "text", inner: null, text: b.text });
      } else if (b.type === "tool_result") {
        if (typeof b.content === "string") {
          out.push({ where: "message", message: mi, role, block: bi, blockType: "tool_result", inner: null, toolUseId: b.tool_use_id, text: b.content });
        } else if (Array.isArray(b.content)) {
          b.content.forEach((c: any, ci: number) => {
            if (c && typeof c.text === "string") {
              out.push({ where: "message", message: mi, role, block: bi, blockType: "tool_result", inner: ci, toolUseId: b.tool_use_id, text: c.text });
            }
          });
        }
      } else if (b.type === "tool_use") {
        out.push({ where: "message", message: mi, role, block: bi, blockType: "tool_use", inner: null, toolUseId: b.id, text: JSON.stringify(b.input ?? {}) });
      } else if (typeof b.text === "string") {
        out.push({ where: "message", message: mi, role, block: bi, blockType: String(b.type), inner: null, text: b.text });
      }
    });
  });
  return out;
}

/** Every occurrence of `needle` in the request body (overlapping occurrences are not counted twice). */
export function locateText(body: any, needle: string): TextLocation[] {
  if (needle.length === 0) throw new Error("locateText: empty needle");
  const hits: TextLocation[] = [];
  for (const seg of textSegments(body)) {
    let at = seg.text.indexOf(needle);
    while (at >= 0) {
      hits.push({ ...seg, offset: at });
      at = seg.text.indexOf(needle, at + needle.length);
    }
  }
  return hits;
}

/** How many times `needle` occurs in the request body. */
export function countText(body: any, needle: string): number {
  return locateText(body, needle).length;
}

/** A one-line description of a location, for assertion messages and FINDINGS. */
export function describeLocation(loc: TextLocation): string {
  if (loc.where === "system") return `system[${loc.message}]@${loc.offset}`;
  const block = loc.block === null ? "" : `.content[${loc.block}]`;
  const inner = loc.inner === null ? "" : `.content[${loc.inner}]`;
  return `messages[${loc.message}](${loc.role})${block}${inner}<${loc.blockType}>@${loc.offset}`;
}

/** Index of the message holding the tool_result for `toolUseId`, or -1. */
export function toolResultMessageIndex(body: any, toolUseId: string): number {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return messages.findIndex((m) => Array.isArray(m?.content) && m.content.some((b: any) => b?.type === "tool_result" && b.tool_use_id === toolUseId));
}
