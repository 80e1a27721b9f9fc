/**
 * The command strings of a hooks document, whichever host wrote it: Claude-style event groups
 * (`{hooks: {Event: [{matcher, hooks: [{command}]}]}}`) or Copilot-style flat entries
 * (`{command}` or `{bash}`). Pure; bounded (256 entries per list).
 */

/**
 * Every command string of a hooks document, with its event and timeout.
 */
export function hookCommands(document: unknown): Array<{ event: string; command: string; timeout?: number }> {
  const hooks = (document as { hooks?: unknown } | null | undefined)?.hooks;
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return [];
  const out: Array<{ event: string; command: string; timeout?: number }> = [];
  const visit = (event: string, entry: unknown): void => {
    if (typeof entry !== "object" || entry === null) return;
    const record = entry as Record<string, unknown>;
    if (Array.isArray(record.hooks)) for (const inner of record.hooks.slice(0, 256)) visit(event, inner);
    for (const key of ["command", "bash"]) {
      const value = record[key];
      if (typeof value === "string") out.push({ event, command: value, ...(typeof record.timeout === "number" ? { timeout: record.timeout } : {}) });
    }
  };
  for (const [event, list] of Object.entries(hooks)) if (Array.isArray(list)) for (const entry of list.slice(0, 256)) visit(event, entry);
  return out;
}
