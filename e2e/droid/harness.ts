/**
 * Factory Droid's pinned binary and how the suites run it: `droid exec -m custom:<model> --auto high`
 * against a scripted Chat Completions server named by a `customModels` entry of ~/.factory/settings.json.
 * Shared by the droid suites and bench/turn.ts.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureInstalled } from "../lib/install.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The pinned version (e2e/droid/package.json). */
export const DROID_VERSION = JSON.parse(await readFile(path.join(HERE, "package.json"), "utf8")).dependencies["@factory/cli-linux-x64"] as string;
export const DROID_MODEL = "e2e-model";

/** The native binary, installing the pinned package on first use. */
export async function droidBin(): Promise<string> {
  return path.join(await ensureInstalled({ folder: "droid", pkg: "@factory/cli-linux-x64", version: DROID_VERSION }), "bin", "droid");
}

/** The ~/.factory/settings.json text that points Droid's one custom model at `baseURL`. */
export function droidSettingsText(baseURL: string): string {
  const model = { model: DROID_MODEL, displayName: "e2e", baseUrl: baseURL, apiKey: "e2e-key", provider: "generic-chat-completion-api", maxOutputTokens: 4096 };
  return `${JSON.stringify({ customModels: [model] }, null, 2)}\n`;
}

/** The arguments of one non-interactive task with that model. */
export const DROID_EXEC_ARGS: readonly string[] = ["exec", "-m", `custom:${DROID_MODEL}`, "--auto", "high", "Work on the task."];
