import { quoteControls } from "../core/quote.js";

/**
 * A session's warnings and errors on stderr (info is not printed), so stdout stays exactly the
 * requested output. Shared by the commander commands and the lean `show` (lean.ts).
 */
export function printDiagnostics(
  stderr: (text: string) => void,
  diagnostics: ReadonlyArray<{ level: string; message: string; fix?: string | undefined }>,
): void {
  for (const diagnostic of diagnostics) {
    const fix = diagnostic.fix ? ` (${diagnostic.fix})` : "";
    if (diagnostic.level !== "info") stderr(`agentsmd: ${diagnostic.level}: ${quoteControls(`${diagnostic.message}${fix}`)}\n`);
  }
}
