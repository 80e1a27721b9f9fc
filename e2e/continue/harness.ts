/**
 * Continue CLI's pinned `cn` and how the suite runs it: `cn -p --auto --config <config.yaml>` with
 * one `openai` model whose `apiBase` is a scripted Chat Completions server. Shared by the continue
 * suite and bench/turn.ts.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureInstalled } from "../lib/install.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The pinned version (e2e/continue/package.json). */
export const CN_VERSION = JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies["@continuedev/cli"] as string;

/** `cn`'s entry script (run with node), installing the pinned package on first use. */
export async function cnBin(): Promise<string> {
  return path.join(await ensureInstalled({ folder: "continue", pkg: "@continuedev/cli", version: CN_VERSION }), "dist", "cn.js");
}

/** A ~/.continue/config.yaml with one chat model at `baseURL`. */
export function continueConfigText(baseURL: string): string {
  const config = ["name: e2e", "version: 1.0.0", "schema: v1", "models:", "  - name: e2e", "    provider: openai", "    model: e2e-model"];
  config.push(`    apiBase: ${baseURL}`, "    apiKey: e2e-key", "    roles: [chat]", "");
  return config.join("\n");
}
