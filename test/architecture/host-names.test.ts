/**
 * A host is one folder: outside `src/integrations/<host>/` and the registry, no module names a
 * registered host, as a string literal ("codex", 'codex', `codex`) or a path segment
 * ("../codex/install.js"). Code that needs a host's facts reads its definition from the registry.
 * A violation fails here with file:line.
 *
 * Allowed (documented): `src/presets/`, `src/load/` and `src/core/`: presets (an agent's loading
 * algorithm, selectable by name for any host), rule formats and import markers have names of
 * their own that share words with host ids ("codex" the preset, "copilot" the rule format).
 * Comments are not code. `KNOWN` lists what other work still untangles; an entry that no longer
 * occurs fails too, so the list only shrinks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/bin.js";
import { hostDefinitions } from "../../src/integrations/registry.js";

const SRC = join(REPO, "src");
const ALLOWED_DIRS = ["presets/", "load/", "core/"];

/** "file: host" pairs still to remove. */
const KNOWN: readonly string[] = [
  // Claude Code's hook recognises the events of the hosts that also run its settings (the shared host layer's work).
  "integrations/claude-code/tools.ts: copilot",
  "integrations/claude-code/tools.ts: gemini",
  "integrations/copilot/profile.ts: claude-code",
  // `agentsmd mcp` is a command of its own (the MCP server), not a host dispatch; Continue CLI's config runs it.
  "cli/main.ts: mcp",
  "cli/commands/mcp.ts: mcp",
  "integrations/continue/install.ts: mcp",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The code of a line: none for a comment line, the part before a trailing `//` comment. */
function codeOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith("*") || trimmed.startsWith("/*") || trimmed.startsWith("//")) return "";
  return line.replace(/\s\/\/\s.*$/, "");
}

/**
 * Where `ids` are named in the modules of `root`, outside each host's folder, the registry and the
 * allowed folders: "file:line: id".
 */
export function hostNamings(root: string, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(root)) {
    const module = relative(root, file).split(sep).join("/");
    if (module === "integrations/registry.ts" || ALLOWED_DIRS.some((dir) => module.startsWith(dir))) continue;
    const lines = readFileSync(file, "utf8").split("\n");
    for (const id of ids) {
      if (module.startsWith(`integrations/${id}/`)) continue;
      const literal = new RegExp(`(["'\`])${id}\\1|/${id}/`);
      lines.forEach((line, index) => {
        if (literal.test(codeOf(line))) out.push(`${module}:${index + 1}: ${id}`);
      });
    }
  }
  return out;
}

describe("host names", () => {
  it("no module outside a host's folder and the registry names the host", () => {
    const found = hostNamings(
      SRC,
      hostDefinitions().map((host) => host.id),
    );
    const known = new Set(KNOWN);
    const fileHost = (entry: string) => entry.replace(/:\d+:/, ":");
    expect(found.filter((entry) => !known.has(fileHost(entry)))).toEqual([]);
    // An entry of KNOWN that no longer occurs: take it out.
    expect(KNOWN.filter((entry) => !found.some((each) => fileHost(each) === entry))).toEqual([]);
  });

  it("finds a literal and a path segment, and skips comments", () => {
    const lines = [
      'const a = "fakehost";',
      'import { x } from "../fakehost/y.js";',
      ' * names fakehost in a comment: "fakehost"',
      'const b = 1; // "fakehost"',
    ];
    expect(lines.map((line) => new RegExp(`(["'\`])fakehost\\1|/fakehost/`).test(codeOf(line)))).toEqual([true, true, false, false]);
  });
});
