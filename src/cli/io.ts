import { ConfigError } from "../core/errors.js";
import { quoteControls } from "../core/quote.js";

/**
 * What a CLI command may touch: output streams, stdin, env and cwd are injected so tests run
 * `main()` in-process.
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** stdout is a terminal (colour allowed). @default false */
  isTTY?: boolean;
}

/** Exit codes of the CLI contract. */
export const EXIT = { ok: 0, problem: 1, usage: 2 } as const;

/** Reads all of stdin (bounded). */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = 16 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > maxBytes) throw new Error(`stdin is larger than ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The process cwd. When the directory was deleted under the shell (`process.cwd()` throws ENOENT),
 * the path the shell still reports in `$PWD` is used, so absolute arguments and `--cwd` keep
 * working and relative ones resolve as the user typed them.
 */
export function currentDir(env: Readonly<Record<string, string | undefined>> = process.env, cwd: () => string = () => process.cwd()): string {
  try {
    return cwd();
  } catch (error) {
    const pwd = env.PWD;
    if (pwd !== undefined && pwd.startsWith("/")) return pwd;
    throw new ConfigError(`the current directory no longer exists (${(error as { code?: string }).code ?? String(error)})`, {
      cause: error,
      fix: "cd into an existing directory, or pass --cwd DIR and absolute paths",
    });
  }
}

/** The real process streams. */
export function processIo(): CliIo {
  const env = process.env;
  let cwd: string | undefined;
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: process.stdout.isTTY === true,
    readStdin: () => readAll(process.stdin),
    env,
    // Read on first use, inside main(), so a deleted cwd is a clear error (exit 1), not a crash.
    get cwd() {
      return (cwd ??= currentDir(env));
    },
  };
}

/**
 * The same io with every stderr line quoted: names from an untrusted tree reach stderr inside
 * messages, and no terminal escape gets through. (A prototype, not a spread: `cwd` is a getter
 * that may throw and must stay lazy.)
 */
export function withQuotedStderr(given: CliIo): CliIo {
  return Object.assign(Object.create(given) as CliIo, { stderr: (text: string) => given.stderr(quoteControls(text, { keepNewlines: true })) });
}
