/**
 * Linear-time glob matching for patterns a repository or a model supplies (rule globs, shell globs,
 * config `instructions`). picomatch and a glob turned into a JavaScript RegExp backtrack: `*a*a*a…`
 * against a long name costs a power of the name's length per star. Here a segment is matched by the
 * two-pointer algorithm that backtracks only to the last `*` (O(pattern × name)), and a path
 * segment-wise by the same algorithm with `**` as the star over whole segments.
 *
 * The syntax is picomatch's with `{dot: true}` where the tests pin it (test/property/glob.test.ts):
 * `*`, `?`, `[a-z]`/`[!x]`/`[^x]`/`[[:alpha:]]`, `\` escapes, `**` as a whole segment, braces
 * `{a,b}` and `{1..3}`, groups `(a|b)`, `@(a|b)` and `?(a|b)` (expanded to alternatives). The
 * extglobs that repeat or negate (`*(…)`, `+(…)`, `!(…)`) are refused: {@link GlobSyntaxError}.
 * Pure.
 */

/** A glob this matcher does not take (unbalanced, an unsupported extglob, too many alternatives). */
export class GlobSyntaxError extends Error {}

/** Most alternatives one glob's braces and groups expand to. */
const MAX_GLOB_ALTERNATIVES = 256;

const STAR = 0;
const ANY = 1;
const CHAR = 2;
const CLASS = 3;
type Unit =
  | { kind: typeof STAR }
  | { kind: typeof ANY }
  | { kind: typeof CHAR; code: number }
  | { kind: typeof CLASS; negated: boolean; test: (code: number) => boolean };
/** A segment's units, or "**" for a globstar. */
type Segment = Unit[] | "**";

export interface GlobMatchOptions {
  /** `*`, `?` and classes match a leading `.` of a name (picomatch's `dot`). @default true */
  dot?: boolean;
  /** Braces and groups are expanded; false for a shell's glob (the shell expanded its braces) and git's (none). @default true */
  expand?: boolean;
}

// ---------- braces and groups: expanded up front, bounded ----------

type Node = string | Node[][];

/** Index of the bracket closing the one at `open`, skipping escapes and classes; -1 when none. */
function closing(text: string, open: number, left: string, right: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = classEnd(text, i);
      if (end > 0) i = end;
    } else if (c === left) depth++;
    else if (c === right && --depth === 0) return i;
  }
  return -1;
}

/** Splits `text` on top-level `separator` (outside braces, groups, classes and escapes). */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") {
      const end = classEnd(text, i);
      if (end > 0) i = end;
    } else if (c === "{" || c === "(") depth++;
    else if ((c === "}" || c === ")") && depth > 0) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function range(from: string, to: string): string[] | null {
  const numeric = /^-?\d+$/;
  if (numeric.test(from) && numeric.test(to)) {
    const a = Number(from);
    const b = Number(to);
    if (Math.abs(b - a) >= MAX_GLOB_ALTERNATIVES) throw new GlobSyntaxError(`the range {${from}..${to}} has more than ${MAX_GLOB_ALTERNATIVES} values`);
    const step = a <= b ? 1 : -1;
    const out: string[] = [];
    for (let n = a; n !== b + step; n += step) out.push(String(n));
    return out;
  }
  if (/^[a-zA-Z]$/.test(from) && /^[a-zA-Z]$/.test(to)) {
    const a = from.charCodeAt(0);
    const b = to.charCodeAt(0);
    const step = a <= b ? 1 : -1;
    const out: string[] = [];
    for (let n = a; n !== b + step; n += step) out.push(String.fromCharCode(n));
    return out;
  }
  return null;
}

function parse(text: string): Node[] {
  const nodes: Node[] = [];
  let literal = "";
  /** Where `literal` ends in an escaped character (`\*(` is no extglob). */
  let escapedAt = -1;
  const flush = () => {
    if (literal) nodes.push(literal);
    literal = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      literal += text.slice(i, i + 2);
      escapedAt = literal.length;
      i++;
    } else if (c === "[") {
      const end = classEnd(text, i);
      if (end < 0) literal += c;
      else {
        literal += text.slice(i, end + 1);
        i = end;
      }
    } else if (c === "{") {
      const end = closing(text, i, "{", "}");
      if (end < 0) {
        literal += c;
        continue;
      }
      const body = text.slice(i + 1, end);
      const items = splitTop(body, ",");
      const dots = items.length === 1 ? /^([^.]+)\.\.([^.]+)$/.exec(body) : null;
      const values = dots ? range(dots[1]!, dots[2]!) : null;
      if (items.length === 1 && !values) {
        literal += text.slice(i, end + 1); // `{b}` is the text `{b}`
      } else {
        flush();
        nodes.push((values ?? items).map((item) => (values ? [item] : parse(item))));
      }
      i = end;
    } else if (c === "(") {
      const prefix = escapedAt === literal.length ? undefined : literal.at(-1);
      if (prefix === "*" || prefix === "+" || prefix === "!") {
        throw new GlobSyntaxError(`the extglob ${prefix}(…) (repetition or negation) is not supported; list the names, or use * and **`);
      }
      const end = closing(text, i, "(", ")");
      if (end < 0) throw new GlobSyntaxError("a ( without its )");
      const optional = prefix === "?";
      if (prefix === "@" || prefix === "?") literal = literal.slice(0, -1);
      flush();
      const items = splitTop(text.slice(i + 1, end), "|").map(parse);
      nodes.push(optional ? [[], ...items] : items);
      i = end;
    } else literal += c;
  }
  flush();
  return nodes;
}

function expand(nodes: readonly Node[]): string[] {
  let out = [""];
  for (const node of nodes) {
    if (typeof node === "string") {
      out = out.map((prefix) => prefix + node);
      continue;
    }
    const tails = node.flatMap((alternative) => expand(alternative));
    if (out.length * tails.length > MAX_GLOB_ALTERNATIVES)
      throw new GlobSyntaxError(`its braces and groups expand to more than ${MAX_GLOB_ALTERNATIVES} globs`);
    out = out.flatMap((prefix) => tails.map((tail) => prefix + tail));
  }
  return out;
}

// ---------- segments ----------

const POSIX_CLASSES: Record<string, (code: number) => boolean> = {
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  digit: (c) => c >= 48 && c <= 57,
  alnum: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  upper: (c) => c >= 65 && c <= 90,
  lower: (c) => c >= 97 && c <= 122,
  space: (c) => c === 32 || (c >= 9 && c <= 13),
  xdigit: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
  word: (c) => c === 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
};

/** Index of the `]` closing a class opened at `open` (a `]` first in the class is a member); -1 when none. */
function classEnd(text: string, open: number): number {
  let i = open + 1;
  if (text[i] === "!" || text[i] === "^") i++;
  if (text[i] === "]") i++;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[" && text[i + 1] === ":") {
      const end = text.indexOf(":]", i + 2);
      if (end > 0) i = end + 1;
    } else if (c === "]") return i;
  }
  return -1;
}

function classUnit(body: string): Unit {
  let negated = false;
  let i = 0;
  if (body[0] === "!" || body[0] === "^") {
    negated = true;
    i = 1;
  }
  const ranges: number[] = [];
  const named: Array<(code: number) => boolean> = [];
  while (i < body.length) {
    if (body[i] === "[" && body[i + 1] === ":") {
      const end = body.indexOf(":]", i + 2);
      const name = body.slice(i + 2, end);
      const test = POSIX_CLASSES[name];
      if (!test) throw new GlobSyntaxError(`the class [:${name}:] is not supported`);
      named.push(test);
      i = end + 2;
      continue;
    }
    let from = body.charCodeAt(i);
    if (body[i] === "\\" && i + 1 < body.length) from = body.charCodeAt(++i);
    i++;
    let to = from;
    if (body[i] === "-" && i + 1 < body.length) {
      i++;
      to = body.charCodeAt(i);
      if (body[i] === "\\" && i + 1 < body.length) to = body.charCodeAt(++i);
      i++;
      if (to < from) throw new GlobSyntaxError("a class range runs backwards");
    }
    ranges.push(from, to);
  }
  const test = (code: number) => {
    for (let r = 0; r < ranges.length; r += 2) if (code >= ranges[r]! && code <= ranges[r + 1]!) return true;
    return named.some((member) => member(code));
  };
  return { kind: CLASS, negated, test };
}

function compileSegment(text: string): Segment {
  if (text === "**") return "**";
  const units: Unit[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) units.push({ kind: CHAR, code: text.charCodeAt(++i) });
    else if (c === "*") {
      if (units.at(-1)?.kind !== STAR) units.push({ kind: STAR });
    } else if (c === "?") units.push({ kind: ANY });
    else if (c === "[") {
      const end = classEnd(text, i);
      if (end < 0) units.push({ kind: CHAR, code: 91 });
      else {
        units.push(classUnit(text.slice(i + 1, end)));
        i = end;
      }
    } else units.push({ kind: CHAR, code: text.charCodeAt(i) });
  }
  return units;
}

function unitMatches(unit: Unit, code: number): boolean {
  if (unit.kind === ANY) return true;
  if (unit.kind === CHAR) return unit.code === code;
  if (unit.kind === CLASS) return unit.test(code) !== unit.negated;
  return false;
}

/**
 * One name against one segment's units: the two-pointer algorithm, back to the last `*` only.
 * O(units × name): a later star never needs an earlier one to take more.
 */
function segmentMatches(units: readonly Unit[], name: string, dot: boolean): boolean {
  if (!dot && name.charCodeAt(0) === 46 && !(units[0]?.kind === CHAR && units[0].code === 46)) return false;
  let u = 0;
  let n = 0;
  let starU = -1;
  let starN = 0;
  while (n < name.length) {
    const unit = units[u];
    if (unit?.kind === STAR) {
      starU = u++;
      starN = n;
    } else if (unit && unitMatches(unit, name.charCodeAt(n))) {
      u++;
      n++;
    } else if (starU >= 0) {
      u = starU + 1;
      n = ++starN;
    } else return false;
  }
  while (units[u]?.kind === STAR) u++;
  return u === units.length;
}

/** A path's segments against the pattern's: the same algorithm with `**` over whole segments. */
function pathMatches(pattern: readonly Segment[], names: readonly string[], dot: boolean): boolean {
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < names.length) {
    const segment = pattern[p];
    if (segment === "**") {
      starP = p++;
      starN = n;
    } else if (segment && segmentMatches(segment, names[n]!, dot)) {
      p++;
      n++;
    } else if (starP >= 0 && (dot || names[starN]!.charCodeAt(0) !== 46)) {
      p = starP + 1;
      n = ++starN;
    } else return false;
  }
  while (pattern[p] === "**") p++;
  return p === pattern.length;
}

function compileAlternative(glob: string): Segment[] {
  const segments: Segment[] = [];
  for (const text of glob.split("/")) {
    const segment = compileSegment(text);
    if (segment === "**" && segments.at(-1) === "**") continue;
    segments.push(segment);
  }
  // picomatch: a trailing `/**` also matches its parent (`a/**` matches `a`), unless the segment
  // before it ends in `*` (`*/**` and `a*/**` need one more segment).
  const last = segments.length - 1;
  const before = segments[last - 1];
  if (last >= 1 && segments[last] === "**" && before !== "**" && before?.at(-1)?.kind === STAR) segments.splice(last, 0, [{ kind: STAR }]);
  return segments;
}

/**
 * Compiles a glob into a matcher of `/`-separated relative paths, in time linear in the pattern
 * times the path. Throws {@link GlobSyntaxError} for a glob it does not take.
 */
export function compileGlob(glob: string, options: GlobMatchOptions = {}): (path: string) => boolean {
  const dot = options.dot !== false;
  let body = glob;
  while (body.startsWith("./")) body = body.slice(2); // as picomatch
  const alternatives = (options.expand === false ? [body] : expand(parse(body))).map(compileAlternative);
  return (path) => {
    if (path.length === 0) return false;
    // picomatch's own first test: the path is the glob's text (a name with glob characters in it).
    if (path === glob) return true;
    const names = path.split("/");
    return alternatives.some((segments) => pathMatches(segments, names, dot));
  };
}

/**
 * A matcher of one name (no `/`) against one segment pattern, linear like {@link compileGlob};
 * `**` is `*` here. With `dot: false` a leading `.` must be matched by a literal `.`, as a shell does.
 */
export function compileSegmentGlob(pattern: string, options: GlobMatchOptions = {}): (name: string) => boolean {
  const dot = options.dot !== false;
  const texts = options.expand === false ? [pattern] : expand(parse(pattern));
  const alternatives = texts.map((text) => {
    const segment = compileSegment(text);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: without it the array is { kind: number }[]
    return segment === "**" ? [{ kind: STAR } as Unit] : segment;
  });
  return (name) => alternatives.some((units) => segmentMatches(units, name, dot));
}
