/**
 * Linear-time matching of JavaScript regular expressions a repository supplies (Continue rules'
 * `regex`): the pattern is compiled to a Thompson NFA and run as a Pike VM over the text's UTF-16
 * code units, so the cost is O(text × pattern) whatever the pattern (V8's backtracking RegExp spends
 * exponential time on `^(a+)+$` against `aaa…a!`). Supported: the syntax of a RegExp without flags,
 * less what needs backtracking: backreferences and lookaround are refused
 * ({@link RegexRefused}), as is a pattern whose program would exceed {@link MAX_REGEX_PROGRAM}.
 * Only `test` is answered (no captures). Pure.
 */

/** A pattern this engine does not run (and why, with the fix). */
export class RegexRefused extends Error {}

/** Most instructions of one compiled pattern (a counted repeat `{n,m}` copies its body). */
const MAX_REGEX_PROGRAM = 2000;

type CodeTest = (code: number) => boolean;
type Assertion = "^" | "$" | "b" | "B";
type Ast =
  | { t: "char"; test: CodeTest }
  | { t: "seq"; items: Ast[] }
  | { t: "alt"; items: Ast[] }
  | { t: "repeat"; body: Ast; min: number; max: number }
  | { t: "assert"; kind: Assertion };

const isDigit: CodeTest = (c) => c >= 48 && c <= 57;
const isWord: CodeTest = (c) => c === 95 || isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isSpace: CodeTest = (c) =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const isLineEnd: CodeTest = (c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const not =
  (test: CodeTest): CodeTest =>
  (c) =>
    !test(c);

const CLASS_ESCAPES: Record<string, CodeTest> = { d: isDigit, D: not(isDigit), w: isWord, W: not(isWord), s: isSpace, S: not(isSpace) };
const CONTROL_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, v: 11, f: 12 };

class Parser {
  #at = 0;
  constructor(readonly source: string) {}

  parse(): Ast {
    const ast = this.#alternation();
    if (this.#at < this.source.length) throw new RegexRefused(`unexpected ${JSON.stringify(this.source[this.#at])}`);
    return ast;
  }

  #peek(): string | undefined {
    return this.source[this.#at];
  }

  #alternation(): Ast {
    const items = [this.#sequence()];
    while (this.#peek() === "|") {
      this.#at++;
      items.push(this.#sequence());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  #sequence(): Ast {
    const items: Ast[] = [];
    for (let c = this.#peek(); c !== undefined && c !== "|" && c !== ")"; c = this.#peek()) {
      const atom = this.#atom();
      items.push(this.#quantified(atom));
    }
    return { t: "seq", items };
  }

  #quantified(atom: Ast): Ast {
    const c = this.#peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.#at));
      if (!counted) return atom; // a `{` that starts no count is the character (as RegExp without the u flag)
      min = Number(counted[1]);
      max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
      this.#at += counted[0].length - 1;
    } else return atom;
    this.#at++;
    if (this.#peek() === "?") this.#at++; // lazy: the same set of matches
    if (atom.t === "assert") return atom;
    return { t: "repeat", body: atom, min, max };
  }

  #atom(): Ast {
    const c = this.source[this.#at++]!;
    switch (c) {
      case "^":
        return { t: "assert", kind: "^" };
      case "$":
        return { t: "assert", kind: "$" };
      case ".":
        return { t: "char", test: not(isLineEnd) };
      case "[":
        return { t: "char", test: this.#class() };
      case "\\":
        return this.#escape();
      case "(": {
        if (this.#peek() === "?") {
          const kind = this.source.slice(this.#at, this.#at + 3);
          if (kind.startsWith("?:")) this.#at += 2;
          else if (kind.startsWith("?<") && kind !== "?<=" && kind !== "?<!") {
            const end = this.source.indexOf(">", this.#at);
            this.#at = end + 1;
          } else throw new RegexRefused("lookaround ((?=, (?!, (?<=, (?<!) needs backtracking");
        }
        const inner = this.#alternation();
        if (this.source[this.#at++] !== ")") throw new RegexRefused("a ( without its )");
        return inner;
      }
      default:
        return literal(c.charCodeAt(0));
    }
  }

  /** One escape outside a class: an assertion, a class escape or a character. */
  #escape(): Ast {
    const c = this.source[this.#at];
    if (c === "b" || c === "B") {
      this.#at++;
      return { t: "assert", kind: c };
    }
    if (c !== undefined && /[1-9]/.test(c)) throw new RegexRefused("a backreference (\\1 ...) needs backtracking");
    if (c === "k" && this.source.includes("(?<")) throw new RegexRefused("a named backreference (\\k<name>) needs backtracking");
    const code = this.#escapedCode(false);
    return typeof code === "number" ? literal(code) : { t: "char", test: code };
  }

  /** The character (or class) after a `\`, the backslash already consumed. */
  #escapedCode(inClass: boolean): number | CodeTest {
    const c = this.source[this.#at++];
    if (c === undefined) throw new RegexRefused("a \\ at the end of the pattern");
    if (CLASS_ESCAPES[c]) return CLASS_ESCAPES[c];
    if (CONTROL_ESCAPES[c] !== undefined) return CONTROL_ESCAPES[c];
    if (inClass && c === "b") return 8;
    if (c === "0" && !/[0-9]/.test(this.#peek() ?? "")) return 0;
    if (/[0-9]/.test(c)) throw new RegexRefused("an octal escape or backreference needs backtracking");
    const hex = (length: number) => {
      const digits = this.source.slice(this.#at, this.#at + length);
      if (digits.length !== length || !/^[0-9a-fA-F]+$/.test(digits)) return null;
      this.#at += length;
      return parseInt(digits, 16);
    };
    if (c === "x") return hex(2) ?? 120;
    if (c === "u") return hex(4) ?? 117;
    if (c === "c") {
      const letter = this.#peek();
      if (letter && /[a-zA-Z]/.test(letter)) {
        this.#at++;
        return letter.charCodeAt(0) % 32;
      }
      this.#at--; // `\c` without a letter is a backslash and a `c`
      return 92;
    }
    return c.charCodeAt(0);
  }

  #class(): CodeTest {
    let negated = false;
    if (this.#peek() === "^") {
      negated = true;
      this.#at++;
    }
    const members: CodeTest[] = [];
    const ranges: number[] = [];
    const member = (): number | CodeTest => {
      const c = this.source[this.#at++];
      if (c === undefined) throw new RegexRefused("a [ without its ]");
      return c === "\\" ? this.#escapedCode(true) : c.charCodeAt(0);
    };
    while (this.#peek() !== "]") {
      const from = member();
      if (this.#peek() === "-" && this.source[this.#at + 1] !== "]" && this.source[this.#at + 1] !== undefined) {
        this.#at++;
        const to = member();
        if (typeof from === "number" && typeof to === "number") {
          if (to < from) throw new RegexRefused("a class range runs backwards");
          ranges.push(from, to);
          continue;
        }
        // `[\d-z]`: without the u flag the `-` is a member
        for (const each of [from, 45, to]) typeof each === "number" ? ranges.push(each, each) : members.push(each);
        continue;
      }
      if (typeof from === "number") ranges.push(from, from);
      else members.push(from);
    }
    this.#at++;
    return (code) => {
      let hit = false;
      for (let r = 0; r < ranges.length && !hit; r += 2) hit = code >= ranges[r]! && code <= ranges[r + 1]!;
      if (!hit) hit = members.some((test) => test(code));
      return hit !== negated;
    };
  }
}

function literal(code: number): Ast {
  return { t: "char", test: (c) => c === code };
}

// ---------- the program ----------

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;
type Instruction =
  | { op: typeof CHAR; test: CodeTest }
  | { op: typeof SPLIT; x: number; y: number }
  | { op: typeof JMP; x: number }
  | { op: typeof ASSERT; kind: Assertion }
  | { op: typeof MATCH };

function emit(ast: Ast, program: Instruction[]): void {
  if (program.length > MAX_REGEX_PROGRAM) throw new RegexRefused(`it compiles to more than ${MAX_REGEX_PROGRAM} steps (large counted repeats)`);
  switch (ast.t) {
    case "char":
      program.push({ op: CHAR, test: ast.test });
      return;
    case "assert":
      program.push({ op: ASSERT, kind: ast.kind });
      return;
    case "seq":
      for (const item of ast.items) emit(item, program);
      return;
    case "alt": {
      const jumps: Array<{ op: typeof JMP; x: number }> = [];
      ast.items.forEach((item, index) => {
        if (index === ast.items.length - 1) return emit(item, program);
        const split = { op: SPLIT, x: program.length + 1, y: 0 } as { op: typeof SPLIT; x: number; y: number };
        program.push(split);
        emit(item, program);
        const jump = { op: JMP, x: 0 } as { op: typeof JMP; x: number };
        jumps.push(jump);
        program.push(jump);
        split.y = program.length;
      });
      for (const jump of jumps) jump.x = program.length;
      return;
    }
    case "repeat": {
      for (let i = 0; i < ast.min; i++) emit(ast.body, program);
      if (ast.max === Infinity) {
        const split = { op: SPLIT, x: program.length + 1, y: 0 } as { op: typeof SPLIT; x: number; y: number };
        const loop = program.length;
        program.push(split);
        emit(ast.body, program);
        program.push({ op: JMP, x: loop });
        split.y = program.length;
        return;
      }
      const splits: Array<{ op: typeof SPLIT; x: number; y: number }> = [];
      for (let i = ast.min; i < ast.max; i++) {
        const split = { op: SPLIT, x: program.length + 1, y: 0 } as { op: typeof SPLIT; x: number; y: number };
        splits.push(split);
        program.push(split);
        emit(ast.body, program);
      }
      for (const split of splits) split.y = program.length;
      return;
    }
  }
}

/** A compiled pattern: `test(text)` as `new RegExp(pattern).test(text)` answers, in linear time. */
export interface LinearRegex {
  /**
   * `check` is called every {@link CHECK_EVERY} characters (a deadline throws from it).
   */
  test(text: string, check?: () => void): boolean;
}

/** Characters scanned between two calls of `test`'s `check`. */
const CHECK_EVERY = 4096;

/**
 * Compiles `pattern` (RegExp syntax, no flags). Throws {@link RegexRefused} for what it does not
 * run, and the RegExp's own SyntaxError for an invalid pattern.
 */
export function compileLinearRegex(pattern: string): LinearRegex {
  new RegExp(pattern); // a pattern RegExp rejects is rejected the same way (its construction does not backtrack)
  const program: Instruction[] = [];
  emit(new Parser(pattern).parse(), program);
  program.push({ op: MATCH });
  return { test: (text, check) => run(program, text, check) };
}

function run(program: readonly Instruction[], text: string, check?: () => void): boolean {
  const size = program.length;
  const marks = new Uint32Array(size);
  let generation = 0;
  let current = new Int32Array(size);
  let next = new Int32Array(size);
  let currentCount: number;
  let nextCount: number;
  const stack = new Int32Array(2 * size + 2);
  const word = (at: number) => at >= 0 && at < text.length && isWord(text.charCodeAt(at));
  /** Adds the thread at `pc` and what its jumps, splits and assertions lead to; true on a match. */
  const add = (list: Int32Array, count: number, start: number, at: number): number => {
    let depth = 0;
    stack[depth++] = start;
    while (depth > 0) {
      const pc = stack[--depth]!;
      if (marks[pc] === generation) continue;
      marks[pc] = generation;
      const instruction = program[pc]!;
      switch (instruction.op) {
        case JMP:
          stack[depth++] = instruction.x;
          break;
        case SPLIT:
          stack[depth++] = instruction.y;
          stack[depth++] = instruction.x;
          break;
        case ASSERT: {
          const kind = instruction.kind;
          const holds = kind === "^" ? at === 0 : kind === "$" ? at === text.length : (word(at - 1) !== word(at)) === (kind === "b");
          if (holds) stack[depth++] = pc + 1;
          break;
        }
        case MATCH:
          return -1;
        default:
          list[count++] = pc;
      }
    }
    return count;
  };
  generation++;
  currentCount = add(current, 0, 0, 0);
  if (currentCount < 0) return true;
  for (let at = 0; at < text.length; at++) {
    if (check && at % CHECK_EVERY === 0 && at > 0) check();
    const code = text.charCodeAt(at);
    generation++;
    nextCount = 0;
    for (let i = 0; i < currentCount; i++) {
      const instruction = program[current[i]!] as { op: typeof CHAR; test: CodeTest };
      if (instruction.test(code)) {
        nextCount = add(next, nextCount, current[i]! + 1, at + 1);
        if (nextCount < 0) return true;
      }
    }
    // An unanchored search: a new thread starts at every position.
    nextCount = add(next, nextCount, 0, at + 1);
    if (nextCount < 0) return true;
    [current, next] = [next, current];
    currentCount = nextCount;
  }
  return false;
}

/**
 * Why a pattern never matches here (invalid, or needs backtracking), or null when it runs.
 */
export function regexProblem(pattern: string): string | null {
  try {
    compileLinearRegex(pattern);
    return null;
  } catch (error) {
    if (error instanceof RegexRefused || error instanceof SyntaxError) return error.message;
    throw error;
  }
}
