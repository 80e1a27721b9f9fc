/**
 * Error classes. Every error names the file it is about and the fix, and keeps the `cause`.
 */

/** Base class: `path` is the file concerned, `fix` tells the user what to do. */
export class AgentsMdError extends Error {
  readonly path: string | undefined;
  readonly fix: string | undefined;
  constructor(message: string, options: { path?: string; fix?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.path = options.path;
    this.fix = options.fix;
  }

  /** The message, the path and the fix on separate lines, for a terminal. */
  describe(): string {
    const lines = [this.message];
    if (this.fix) lines.push(`fix: ${this.fix}`);
    return lines.join("\n");
  }
}

/** A config file, env var or option that does not validate. */
export class ConfigError extends AgentsMdError {}

/** A session state file that cannot be used. The file is never modified when this is thrown. */
export class StateError extends AgentsMdError {}

/** A file-system call failed with something other than "not there". */
export class FsError extends AgentsMdError {
  readonly code: string;
  constructor(message: string, options: { path: string; code: string; fix?: string; cause?: unknown }) {
    super(message, options);
    this.code = options.code;
  }
}

/** A path given as input (hook event, MCP argument, plugin hook, CLI argument) that cannot be a path. */
export class PathError extends AgentsMdError {}

/**
 * What `JSON.parse` disliked, without the file's bytes: V8 quotes the start of the text ("Unexpected
 * token 'x', \"secret...\" is not valid JSON"), and a state or config file's first bytes must not
 * reach a terminal or a log (docs/security.md). Keeps the position when there is one.
 */
export function jsonParseProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return `not valid JSON at byte ${position}`;
  if (/end of JSON input/.test(message)) return "not valid JSON (it ends early)";
  return "not valid JSON";
}
