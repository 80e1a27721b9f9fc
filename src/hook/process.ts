/**
 * The hook process: what `dist/hook/agentsmd-hook.cjs` (one pre-bundled file, built from this
 * entry by scripts/build-hook.mjs) runs. stdin and stdout go through plain descriptor calls, not
 * streams, so the process loads only the hook's own code.
 */
import "./zod.js";
import { currentDir, readAll, type CliIo } from "../cli/io.js";
import { runHookArgv } from "./run.js";
import { runLeanArgv } from "../cli/lean.js";
import { DEADLINE_ENV, STALL_GRACE_MS, deadlineMsOf } from "../core/deadline.js";
import { commandOf } from "../cli/argv.js";
import { MAX_STDIN, readDescriptorSync, writeDescriptorSync, type StdinRead } from "../io/descriptors.js";

/** The io of a hook process. */
export interface HookProcessIo extends CliIo {
  /** A write went to a stream (its descriptor would block): the process must let it drain before it exits. */
  readonly streamed: boolean;
}

/**
 * The process io of a hook: synchronous stdin/stdout on descriptors 0 and 1, the stream only when
 * a descriptor would block. `stdin`: what the launcher's quiet stage already read of descriptor 0.
 */
export function hookProcessIo(stdin?: StdinRead): HookProcessIo {
  const env = process.env;
  let cwd: string | undefined;
  let streamed = false;
  return {
    stdout: (text) => {
      const rest = writeDescriptorSync(1, text);
      if (rest) {
        streamed = true;
        process.stdout.write(rest);
      }
    },
    stderr: (text) => {
      const rest = writeDescriptorSync(2, text);
      if (rest) {
        streamed = true;
        process.stderr.write(rest);
      }
    },
    get streamed() {
      return streamed;
    },
    readStdin: async () => {
      // As far as it goes without blocking; the rest, if any, from the stream.
      const first = stdin ?? readDescriptorSync(0, MAX_STDIN);
      if ("error" in first) throw first.error;
      const { bytes, complete } = first;
      if (complete) return bytes.toString("utf8");
      return Buffer.concat([bytes, Buffer.from(await readAll(process.stdin, MAX_STDIN - bytes.length))]).toString("utf8");
    },
    env,
    get cwd() {
      return (cwd ??= currentDir(env));
    },
    // Asked by `show` only (a hook never is): the stream is made on first use.
    get isTTY() {
      return process.stdout.isTTY === true;
    },
  };
}

/** The full CLI, for argv the lean parser does not take (help, a wrong option). */
export type FullCli = (argv: readonly string[], io: CliIo) => Promise<number>;

/**
 * Runs `[globals] hook <host> [options]` or a lean `show` (lean.ts) and returns the exit code.
 */
export async function runHookProcess(argv: readonly string[], io: CliIo, fullCli: FullCli): Promise<number> {
  // The deadline is cooperative (checked by the loops that grow); a hook call stalled on I/O past
  // it, with some grace, ends here: no answer, so nothing was marked delivered.
  const limitMs = commandOf(argv) === "hook" ? deadlineMsOf(io.env) : Infinity;
  const stalled =
    limitMs === Infinity
      ? undefined
      : setTimeout(() => {
          io.stderr(
            `agentsmd hook: no answer within the ${limitMs} ms deadline (${DEADLINE_ENV}) and ${STALL_GRACE_MS} ms more: stopped; nothing was marked delivered\n`,
          );
          process.exit(0);
        }, limitMs + STALL_GRACE_MS);
  stalled?.unref();
  try {
    const code = (await runHookArgv(argv, io)) ?? (await runLeanArgv(argv, io));
    return code ?? (await fullCli(argv, io));
  } finally {
    clearTimeout(stalled);
  }
}
