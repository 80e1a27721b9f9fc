/**
 * `agentsmd explain PATH`: which instruction files apply to PATH under a preset, in the order the
 * model sees them, and why; `--all-presets` compares every registered preset.
 */
import type { Command } from "commander";
import { explainAllPresets, explainPath, formatExplanation, formatMatrix } from "../../inspect/explain.js";
import type { CommandContext } from "../context.js";
import { reportDiagnostics } from "./inspect.js";

export function registerExplain(program: Command, context: CommandContext): void {
  program
    .command("explain")
    .description("every instruction file that applies to PATH, in the order the model sees it, with why and what the budget did")
    .argument("<path>", "a file or directory (existing or not)")
    .option("--all-presets", "a side-by-side matrix of what each registered preset loads")
    .action(async (path: string, options: { allPresets?: boolean }, command: Command) => {
      const base = context.sessionOptions(command);
      const target = context.path(path);
      const json = context.globals(command).json === true;
      if (options.allPresets) {
        const { preset: _ignored, ...rest } = base;
        const matrix = await explainAllPresets(rest, target);
        if (json) context.json(matrix);
        else context.out(formatMatrix(matrix));
        return;
      }
      const explanation = await explainPath(base, target);
      if (json) context.json(explanation);
      else context.out(formatExplanation(explanation));
      reportDiagnostics(context, explanation.diagnostics);
    });
}
