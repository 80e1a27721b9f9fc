/**
 * Reading a host's JSON-lines transcript (Gemini CLI's and Qwen Code's chats), the host-neutral
 * part: one line as a record, and every string a record holds. Pure (no I/O); what a host's
 * records mean stays in its own transcript module.
 */

/**
 * Every string inside a parsed JSON value, depth first (bounded by the value's own size). Without
 * recursion: a tool call's arguments nested 10,000 deep overflowed the stack, and the hook failed
 * at every later event of that conversation (docs/security.md).
 */
export function stringLeaves(value: unknown, out: string[] = []): string[] {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === "string") out.push(next);
    else if (typeof next === "object" && next !== null) {
      const items = Array.isArray(next) ? next : Object.values(next);
      for (let index = items.length - 1; index >= 0; index--) stack.push(items[index]);
    }
  }
  return out;
}

/**
 * One transcript line as a JSON object, or undefined: a blank or partial line (the text started
 * mid-line, or a write in progress), or a value that is no record.
 */
export function jsonRecord(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
