/**
 * `agentsmd tree [DIR]`: the scope map, pruned to instruction files, with size, estimated tokens
 * and the presets that load each file at startup. Colour only when stdout is a terminal.
 */
import type { Command } from "commander";
import { buildScopeTree, renderScopeTree } from "../../inspect/tree.js";
import type { CommandContext } from "../context.js";

/** Colour when stdout is a terminal, unless NO_COLOR is set; FORCE_COLOR forces it. */
export function useColor(io: { isTTY?: boolean; env: Readonly<Record<string, string | undefined>> }): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "") return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== "" && io.env.FORCE_COLOR !== "0") return true;
  return io.isTTY === true;
}

export function registerTree(program: Command, context: CommandContext): void {
  program
    .command("tree")
    .description("the scope map: directories pruned to instruction files, with size, estimated tokens and the presets that load each at startup")
    .argument("[dir]", "directory to map (default: --cwd or the current directory)")
    .option("--no-gitignore", "enter directories that .gitignore ignores")
    .action(async (dir: string | undefined, options: { gitignore?: boolean }, command: Command) => {
      const { cwd, preset: _preset, ...session } = context.sessionOptions(command);
      const root = dir === undefined ? cwd! : await context.directory(dir, "DIR");
      const tree = await buildScopeTree({ root, session, ...(options.gitignore === false ? { gitignore: false } : {}) });
      if (context.globals(command).json) context.json(tree);
      else context.out(renderScopeTree(tree, { color: useColor(context.io) }));
    });
}
