/**
 * Read-only views of the initial bundle: root, list, show, paths, schema.
 */
import type { Command } from "commander";
import { createSession } from "../../session/session.js";
import { configJsonSchema } from "../../core/schema.js";
import type { CommandContext } from "../context.js";
import { quote } from "../../core/quote.js";
import { printDiagnostics } from "../diagnostics.js";
import { countOf } from "../../core/words.js";

export function registerInspect(program: Command, context: CommandContext): void {
  program
    .command("root")
    .description("print the project root")
    .action(async (_options, command: Command) => {
      const session = await createSession(context.sessionOptions(command));
      if (context.globals(command).json) {
        context.json({ root: session.root, cwd: session.cwd, markers: session.config.root.markers, reason: session.rootReason });
      } else context.out(session.root);
      reportDiagnostics(context, session.diagnostics);
    });

  program
    .command("list")
    .description("list the files of the initial bundle")
    .action(async (_options, command: Command) => {
      const session = await createSession(context.sessionOptions(command));
      const files = session.initialFiles;
      const blocks = session.initialLoad?.blocks ?? [];
      if (context.globals(command).json) {
        context.json({ root: session.root, cwd: session.cwd, files });
      } else if (session.preset.formatList) {
        const rows = files.map((file, index) => ({ ...file, content: blocks[index]?.content ?? "" }));
        context.out(session.preset.formatList(rows, { root: session.root, cwd: session.cwd }));
      } else if (files.length === 0) {
        context.out(`no instruction files load for ${quote(session.cwd)} (root ${quote(session.root)}, preset ${session.preset.name})`);
      } else {
        for (const file of files) {
          const fate = file.truncated ? `${file.includedBytes} of ${countOf(file.sizeBytes, "byte")} (truncated)` : countOf(file.sizeBytes, "byte");
          context.out(`${file.layer.padEnd(7)} ${quote(file.path)}  ${fate}`);
        }
      }
      reportDiagnostics(context, session.diagnostics);
    });

  program
    .command("show")
    .description("print the initial message exactly as a host would inject it (a final newline is added only on a terminal)")
    .action(async (_options, command: Command) => {
      const session = await createSession(context.sessionOptions(command));
      if (context.globals(command).json) context.json({ root: session.root, cwd: session.cwd, message: session.initialMessage });
      // Piped: the exact bytes a host injects. On a terminal: a final newline so the prompt starts on its own line.
      else context.exact(session.initialMessage);
      reportDiagnostics(context, session.diagnostics);
    });

  program
    .command("paths")
    .description("print the absolute paths of the initial files, one per line")
    .action(async (_options, command: Command) => {
      const session = await createSession(context.sessionOptions(command));
      if (context.globals(command).json) context.json(session.initialFiles.map((file) => file.path));
      else for (const file of session.initialFiles) context.out(quote(file.path));
      reportDiagnostics(context, session.diagnostics);
    });

  program
    .command("schema")
    .description("print the JSON Schema of the config file")
    .action(() => context.json(configJsonSchema()));
}

/** Warnings go to stderr so stdout stays exactly the requested output. */
export function reportDiagnostics(context: CommandContext, diagnostics: ReadonlyArray<{ level: string; message: string; fix?: string | undefined }>): void {
  printDiagnostics(context.io.stderr, diagnostics);
}
