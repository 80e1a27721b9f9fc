/**
 * Preload (`node --import <this file>`) that records every JavaScript file a process loads and
 * its size, one JSON line per file in `$AGENTSMD_TRACE_OUT`: ES modules through a loader hook
 * (trace-hooks.ts, which runs on the loader thread), CommonJS files through
 * `Module.prototype._compile`. Built-in modules (`node:*`) are counted separately. Only the bench
 * uses it, to report "modules loaded / bytes of JavaScript parsed" per hook call.
 */
import Module, { register } from "node:module";
import { appendFileSync } from "node:fs";

const out = process.env.AGENTSMD_TRACE_OUT;
if (out) {
  register(new URL("./trace-hooks.js", import.meta.url).href, { data: { out } });
  type Compile = (this: unknown, content: string, filename: string) => unknown;
  const proto = (Module as unknown as { prototype: { _compile: Compile } }).prototype;
  const original = proto._compile;
  proto._compile = function (this: unknown, content: string, filename: string) {
    appendFileSync(out, `${JSON.stringify({ url: `file://${filename}`, format: "commonjs", bytes: Buffer.byteLength(content) })}\n`);
    return original.call(this, content, filename);
  };
}
