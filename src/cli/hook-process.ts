/**
 * The hook process: what `dist/hook/agentsmd-hook.cjs` (one pre-bundled file, built from this
 * entry by scripts/build-hook.mjs) runs. stdin and stdout go through plain descriptor calls, not
 * streams, so the process loads only the hook's own code.
 */
import "./hook-zod.js";
import { readDescriptorSync, writeDescriptorSync } from "../io/file-system.js";
import { currentDir, readAll, type CliIo } from "./io.js";
import { runHookArgv } from "./hook.js";

const MAX_STDIN = 16 * 1024 * 1024;

/**
 * The process io of a hook: synchronous stdin/stdout on descriptors 0 and 1, the stream only when
 * a descriptor would block.
 * @example await runHookProcess(["claude-code"], hookProcessIo())
 */
export function hookProcessIo(): CliIo {
  const env = process.env;
  let cwd: string | undefined;
  return {
    stdout: (text) => {
      const rest = writeDescriptorSync(1, text);
      if (rest) process.stdout.write(rest);
    },
    stderr: (text) => {
      const rest = writeDescriptorSync(2, text);
      if (rest) process.stderr.write(rest);
    },
    readStdin: async () => {
      const { bytes, complete } = readDescriptorSync(0, MAX_STDIN);
      if (complete) return bytes.toString("utf8");
      return Buffer.concat([bytes, Buffer.from(await readAll(process.stdin, MAX_STDIN - bytes.length))]).toString("utf8");
    },
    env,
    get cwd() {
      return (cwd ??= currentDir(env));
    },
  };
}

/** The full CLI, for argv the lean parser does not take (help, a wrong option). */
export type FullCli = (argv: readonly string[], io: CliIo) => Promise<number>;

/**
 * Runs `[globals] hook <host> [options]` and returns the exit code.
 * @example process.exitCode = await runHookProcess(process.argv.slice(2), hookProcessIo(), (argv, io) => import("./main.js").then((m) => m.main(argv, io)))
 */
export async function runHookProcess(argv: readonly string[], io: CliIo, fullCli: FullCli): Promise<number> {
  const code = await runHookArgv(argv, io);
  return code ?? fullCli(argv, io);
}
