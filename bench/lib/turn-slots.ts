/**
 * The control configurations of bench/turn.ts, built from what agentsmd's own install writes so the
 * slots match: a no-op hook command in exactly agentsmd's hook entries (`install <host> --command`),
 * a no-op module in the file `setup <host>` writes, and the check that two installs differ in the
 * command alone. Pure: texts in, texts out.
 */

/** Where a fixture's own absolute path stood in a text, so two fixtures' files compare. */
const BASE = "<fixture>";
const COMMAND = "<command>";

function occurrences(text: string, needle: string): number {
  return needle === "" ? 0 : text.split(needle).length - 1;
}

/** One install's files: path relative to its fixture -> text, with the fixture's base and the command it ran. */
export interface InstalledFiles {
  base: string;
  command: string;
  files: Readonly<Record<string, string>>;
}

/**
 * How the no-op install's hook entries differ from agentsmd's: [] when the no-op sits in exactly
 * agentsmd's slots. Compared are the files holding either side's command: the same files, the
 * command as often in each, and the same lines around it once each side's command and fixture path
 * are put aside (the event, matcher and arguments of each entry). Other files an install touched
 * (an agent's own databases, a model server's port in a settings file) are not slots. A command that
 * occurs nowhere is a difference too (the no-op would be measured in no slot at all).
 * @example slotDifferences({ base: "/a", command: "node /x/hook.cjs", files: { "s.json": '{"c":"node /x/hook.cjs hook qwen"}' } },
 *                          { base: "/b", command: "node /b/noop.cjs", files: { "s.json": '{"c":"node /b/noop.cjs hook qwen"}' } }) // []
 */
export function slotDifferences(agentsmd: InstalledFiles, noop: InstalledFiles): string[] {
  const differences: string[] = [];
  const holding = (side: InstalledFiles) => Object.keys(side.files).filter((name) => occurrences(side.files[name]!, side.command) > 0);
  const names = [...new Set([...holding(agentsmd), ...holding(noop)])].sort();
  if (names.length === 0) return [`agentsmd's command ${JSON.stringify(agentsmd.command)} occurs in no file its install wrote`];
  for (const name of names) {
    const a = agentsmd.files[name] ?? "";
    const b = noop.files[name] ?? "";
    const countA = occurrences(a, agentsmd.command);
    const countB = occurrences(b, noop.command);
    if (countA !== countB) differences.push(`${name}: agentsmd's command ${countA} times, the no-op's ${countB} times`);
    else if (entryLines(agentsmd, a).join("\n") !== entryLines(noop, b).join("\n")) differences.push(`${name}: the entries differ beyond the command`);
  }
  return differences;
}

/** The lines holding the command and the six before each (in a pretty-printed settings file: its event and matcher), normalized. */
function entryLines(side: InstalledFiles, text: string): string[] {
  const lines = text.split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (!line.includes(side.command)) return;
    for (const near of lines.slice(Math.max(0, i - 6), i + 1)) out.push(near.split(side.command).join(COMMAND).split(side.base).join(BASE));
  });
  return out;
}

/**
 * The no-op hook: `node` reading its stdin to the end and printing nothing; it appends one line to
 * `logFile` per call, so the calls of a turn can be counted.
 * @example noopHookSource("/tmp/x/calls.log") // "const fs = require(\"node:fs\"); ..."
 */
export function noopHookSource(logFile: string): string {
  return [
    "// A hook that does nothing: reads its input, answers nothing, counts the call.",
    'const fs = require("node:fs");',
    'process.stdin.on("data", () => {});',
    `process.stdin.on("end", () => fs.appendFileSync(${JSON.stringify(logFile)}, "call\\n"));`,
    "",
  ].join("\n");
}

/**
 * The control of a plugin host: the module `setup` wrote, re-exporting `noopModule` where it
 * re-exported agentsmd's `agentsmdModule` (the same file, the same export). Throws when the
 * setup text does not name `agentsmdModule`.
 * @example noopPluginText('export { default } from "file:///p/dist/integrations/kilo/index.js";\n', "file:///p/dist/integrations/kilo/index.js", "file:///t/noop.js")
 *          // 'export { default } from "file:///t/noop.js";\n'
 */
export function noopPluginText(setupText: string, agentsmdModule: string, noopModule: string): string {
  const quoted = JSON.stringify(agentsmdModule);
  if (occurrences(setupText, quoted) !== 1) throw new Error(`the module setup wrote does not re-export ${quoted} once:\n${setupText}`);
  return setupText.replace(quoted, JSON.stringify(noopModule));
}

/** A plugin (OpenCode, Kilo: a function returning no hooks) or extension (pi: registering nothing) that does nothing. */
export function noopPluginModule(kind: "plugin" | "extension"): string {
  return kind === "plugin"
    ? "// A plugin that does nothing: no hooks.\nexport default async function noopPlugin() {\n  return {};\n}\n"
    : "// An extension that does nothing: registers nothing.\nexport default function noopExtension() {}\n";
}

/**
 * A Model Context Protocol server over stdio that offers nothing: it answers `initialize`, lists no
 * tools, prompts or resources, and refuses anything else; one line per call appended to `logFile`.
 */
export function noopMcpServerSource(logFile: string): string {
  return [
    "// An MCP server that offers nothing (the control of an MCP host).",
    'const fs = require("node:fs");',
    'let buffer = "";',
    'const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");',
    'process.stdin.on("data", (chunk) => {',
    "  buffer += chunk;",
    "  let at;",
    '  while ((at = buffer.indexOf("\\n")) >= 0) {',
    "    const line = buffer.slice(0, at).trim();",
    "    buffer = buffer.slice(at + 1);",
    "    if (!line) continue;",
    "    let request;",
    "    try { request = JSON.parse(line); } catch { continue; }",
    `    fs.appendFileSync(${JSON.stringify(logFile)}, String(request.method) + "\\n");`,
    "    if (request.id === undefined) continue;",
    '    if (request.method === "initialize") send({ id: request.id, result: { protocolVersion: request.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "noop", version: "1.0.0" } } });',
    '    else if (request.method === "tools/list") send({ id: request.id, result: { tools: [] } });',
    '    else if (request.method === "prompts/list") send({ id: request.id, result: { prompts: [] } });',
    '    else if (request.method === "resources/list") send({ id: request.id, result: { resources: [] } });',
    '    else if (request.method === "ping") send({ id: request.id, result: {} });',
    '    else send({ id: request.id, error: { code: -32601, message: "method not found" } });',
    "  }",
    "});",
    "",
  ].join("\n");
}
