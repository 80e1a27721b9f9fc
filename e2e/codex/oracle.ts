/**
 * The Codex CLI as an offline oracle for the `codex` preset.
 *
 * `codex -C <cwd> debug prompt-input hi` builds an ephemeral thread and prints the model-visible
 * input list as JSON without calling a model (no login, no network). The AGENTS.md fragment is
 * the `input_text` item whose text starts with `# AGENTS.md instructions`.
 *
 * Example:
 * ```ts
 * const text = await codexAgentsFragment({
 *   cwd: "/tmp/x/repo/sub",
 *   codexHome: "/tmp/x/codex-home",
 *   overrides: ["project_doc_max_bytes=12"],
 * });
 * // "# AGENTS.md instructions for /tmp/x/repo/sub\n\n<INSTRUCTIONS>\n...\n</INSTRUCTIONS>" or null
 * ```
 */
import path from "node:path";
import { cleanEnv, run } from "../lib/exec.js";
import { ensureInstalled } from "../lib/install.js";

/** The pinned Codex version; keep in sync with e2e/codex/package.json. */
export const CODEX_VERSION = "0.169.0";

/** Prefix by which Codex itself recognises the AGENTS.md fragment. */
export const FRAGMENT_PREFIX = "# AGENTS.md instructions";

export interface CodexOracleOptions {
  /** Absolute working directory, passed as `-C` (Codex uses it lexically). */
  cwd: string;
  /**
   * `CODEX_HOME` for this run (global AGENTS.md, config.toml); Codex writes a few files into it.
   * When omitted, `CODEX_HOME` is unset and Codex uses `$HOME/.codex`.
   */
  codexHome?: string;
  /** `key=value` config overrides, each passed as `-c key=value` after `debug`; values are TOML. */
  overrides?: readonly string[];
  /**
   * `HOME` for the run. Default: `codexHome`, so nothing under the real home is read or written.
   * Required when `codexHome` is omitted.
   */
  home?: string;
}

/** Absolute path of the installed Codex entry point (`bin/codex.js`), installing it if needed. */
export async function codexEntry(): Promise<string> {
  const dir = await ensureInstalled({ folder: "codex", pkg: "@openai/codex", version: CODEX_VERSION });
  return path.join(dir, "bin", "codex.js");
}

/** The full model-visible input list `codex debug prompt-input` prints. */
async function codexPromptInput(options: CodexOracleOptions, prompt = "hi"): Promise<unknown> {
  const home = options.home ?? options.codexHome;
  if (home === undefined) throw new Error("codexPromptInput: give `home` when `codexHome` is omitted");
  const entry = await codexEntry();
  const args = [entry, "-C", options.cwd, "debug", "prompt-input"];
  for (const o of options.overrides ?? []) args.push("-c", o);
  args.push(prompt);
  const r = await run(process.execPath, args, {
    cwd: options.cwd,
    env: cleanEnv({ CODEX_HOME: options.codexHome, HOME: home }),
    timeoutMs: 60_000,
  });
  if (r.code !== 0) {
    throw new Error(`codex debug prompt-input failed (exit ${r.code}${r.timedOut ? ", timed out" : ""}) for cwd ${options.cwd}:\n` + r.stderr.toString());
  }
  try {
    return JSON.parse(r.stdout.toString("utf8")) as unknown;
  } catch (error) {
    throw new Error(`codex debug prompt-input printed no JSON:\n${r.stdout.toString().slice(0, 2000)}`, { cause: error });
  }
}

/** Every `input_text` text in the input list that starts with `# AGENTS.md instructions`, in order. */
function agentsFragments(input: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
    } else if (node !== null && typeof node === "object") {
      const rec = node as Record<string, unknown>;
      if (rec.type === "input_text" && typeof rec.text === "string" && rec.text.startsWith(FRAGMENT_PREFIX)) {
        found.push(rec.text);
      }
      for (const value of Object.values(rec)) walk(value);
    }
  };
  walk(input);
  return found;
}

/**
 * The AGENTS.md fragment Codex would send for this cwd and CODEX_HOME, or `null` when Codex sends
 * none (no global text and no project docs). Throws if Codex sends more than one.
 */
export async function codexAgentsFragment(options: CodexOracleOptions): Promise<string | null> {
  const fragments = agentsFragments(await codexPromptInput(options));
  if (fragments.length > 1) {
    throw new Error(`codex sent ${fragments.length} AGENTS.md fragments for ${options.cwd}; expected at most one`);
  }
  return fragments[0] ?? null;
}
