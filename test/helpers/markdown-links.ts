/**
 * Links between the repository's markdown pages, as data (pure): each relative link with its
 * target file and anchor, and each page's anchors as GitHub makes them from headings.
 *
 * @example
 * markdownLinks("# A\n[b](b.md#c)") // [{ line: 2, path: "b.md", anchor: "c" }]
 */

export interface MarkdownLink {
  line: number;
  /** The link's path part ("" for a link within the page). */
  path: string;
  anchor: string;
}

/** The text with fenced blocks blanked (line numbers kept): links and headings there are code. */
function withoutFences(text: string): string[] {
  let inFence = false;
  return text.split("\n").map((line) => {
    if (/^```/.test(line)) {
      inFence = !inFence;
      return "";
    }
    return inFence ? "" : line;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
}

export function markdownAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of withoutFences(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(headingAnchor(heading[1]!));
  }
  return anchors;
}

/** Relative links (no scheme), outside code spans and fenced blocks. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  withoutFences(text).forEach((line, index) => {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const hash = target.indexOf("#");
      links.push({ line: index + 1, path: hash < 0 ? target : target.slice(0, hash), anchor: hash < 0 ? "" : target.slice(hash + 1) });
    }
  });
  return links;
}
