/**
 * Loader hooks of trace-modules.ts (they run on Node's loader thread): one JSON line per loaded
 * module URL with the byte size of its source.
 */
import { appendFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

let out = "";

export function initialize(data: { out: string }): void {
  out = data.out;
}

type LoadResult = { format?: string; source?: string | ArrayBuffer | ArrayBufferView | null };
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

export async function load(url: string, context: unknown, next: NextLoad): Promise<LoadResult> {
  const result = await next(url, context);
  let bytes = 0;
  const source = result.source;
  if (typeof source === "string") bytes = Buffer.byteLength(source);
  else if (source && typeof source === "object") bytes = (source as ArrayBufferView | ArrayBuffer).byteLength;
  else if (url.startsWith("file:")) bytes = statSync(fileURLToPath(url)).size;
  if (out) appendFileSync(out, `${JSON.stringify({ url, format: result.format ?? "", bytes })}\n`);
  return result;
}
