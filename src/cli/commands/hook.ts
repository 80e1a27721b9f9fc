/**
 * `agentsmd hook <host>` in commander: help text and usage errors only. A plain hook call never
 * gets here (`main()` sends it to the lean entry, ../hook.ts); what commander accepts and the lean
 * parser did not (for instance `--state-dir=DIR` after a flag it does not know) runs the same `runHook`.
 */
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { runHook } from "../../hook/run.js";
import { HOOK_HOSTS, type HookHostEntry } from "../../integrations/hosts.js";

function registerHost(hook: Command, name: string, entry: HookHostEntry, context: CommandContext): void {
  const command = hook
    .command(name)
    .description(entry.description)
    .option("--state-dir <dir>", "directory of the per-conversation state files (default: the host's, else $XDG_STATE_HOME/agentsmd/<host>)");
  for (const flag of entry.flags ?? []) command.option(flag.flags, flag.description);
  command.action(async (options: Record<string, string | undefined>, command: Command) => {
    const flags: Record<string, string | undefined> = {};
    for (const flag of entry.flags ?? []) flags[flag.name] = options[flag.name];
    // --cwd was checked by main's preAction hook already, so runHook answers 0 here.
    await runHook({ host: name, globals: context.globals(command), stateDir: options.stateDir, flags }, context.io);
  });
}

export function registerHook(program: Command, context: CommandContext): void {
  const hook = program.command("hook").description("agent host hooks: read the host's hook JSON on stdin, print the answer on stdout");
  for (const [name, entry] of Object.entries(HOOK_HOSTS)) registerHost(hook, name, entry, context);
}
