/**
 * Codex's install code as the registry's `HostInstaller`: `install`/`uninstall codex [--trust]`
 * with their messages, setup's plan (trust through `codex app-server` when codex runs here), and
 * the read-back check of the installed hook.
 */
import { spawn } from "node:child_process";
import { absolute, join } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { countOf } from "../../core/words.js";
import type { Env, HostInstaller, InstallRequest, SetupApplied } from "../host/definition.js";
import { CODEX_EVENTS } from "./input.js";
import {
  CODEX_TOOL_MATCHER,
  codexHomeDir,
  codexHookFindings,
  defaultCodexHookCommand,
  installCodex,
  isAgentsmdCodexHandler,
  uninstallCodex,
} from "./install.js";

const codexHome = (request: { env: Env; home: string; projectDir: string }) => absolute(codexHomeDir(request.env, request.home), request.projectDir);

const TRUST_LINE =
  "then trust them: run `agentsmd install codex --trust` where `codex` runs, or open Codex, type /hooks and trust the three agentsmd hooks (Codex skips an untrusted hook without a word)";

/**
 * Whether the codex executable runs here (`codex --version` answers within 10 s); the reason when not.
 */
export function codexRuns(binary: string, env: Env): Promise<{ runs: boolean; reason?: string }> {
  return new Promise((resolve) => {
    const child = spawn(binary, ["--version"], { env: env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ runs: false, reason: error.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const last = stderr.trim().split("\n").pop();
      resolve(
        code === 0
          ? { runs: true }
          : { runs: false, reason: `\`${binary} --version\` ${signal ? `was killed (${signal})` : `exited ${code}`}${last ? `: ${last}` : ""}` },
      );
    });
  });
}

async function install(request: InstallRequest) {
  const trust = request.options.trust === true;
  const codexBin = typeof request.options.codexBin === "string" ? request.options.codexBin : undefined;
  const result = await installCodex({
    codexHome: codexHome(request),
    home: request.home,
    ...(request.command ? { command: `${request.command} hook codex` } : {}),
    trust,
    ...(codexBin ? { codexBin } : {}),
    env: request.env,
    cwd: request.projectDir,
  });
  const lines = [
    result.changed
      ? `agentsmd: added the Codex hooks (SessionStart, UserPromptSubmit, PostToolUse on Bash|apply_patch) to ${quote(result.hooksFile)}`
      : `agentsmd: ${quote(result.hooksFile)} already has the agentsmd hooks; nothing changed`,
    `  command: ${quote(result.command)}`,
  ];
  if (trust) {
    lines.push(
      `agentsmd: trusted ${countOf(result.trusted.length, "hook")} in ${quote(result.configFile)} (${result.trustedVia === "app-server" ? "keys and hashes from codex app-server hooks/list, confirmed trusted by it" : "hashes computed by agentsmd; no codex binary found"}):`,
    );
    for (const t of result.trusted) lines.push(`  ${quote(t.key)} = ${t.hash}`);
    if (result.hashMismatches.length > 0)
      lines.push(`  note: Codex computed another hash than agentsmd for ${countOf(result.hashMismatches.length, "hook")}; Codex's was recorded`);
  } else
    lines.push(
      "Codex runs a new hook only after you trust it: open Codex, type /hooks and trust the three agentsmd hooks,",
      "or run `agentsmd install codex --trust` to record that trust now (for exactly these hooks).",
    );
  return { changed: result.changed, command: result.command, json: result, lines, notes: [] };
}

export const codexInstaller: HostInstaller = {
  install,
  // Installed but untrusted or stale hooks: Codex skips them without a word.
  findings: ({ home, env }) => codexHookFindings({ codexHome: codexHomeDir(env, home) }),
  async uninstall(request) {
    const result = await uninstallCodex({ codexHome: codexHome(request), home: request.home, env: request.env });
    return {
      changed: result.changed.length > 0,
      json: result,
      lines: [
        result.changed.length > 0
          ? `agentsmd: took agentsmd's hooks and their trust out of ${result.changed.map((f) => quote(f)).join(" and ")} (restored byte for byte where nothing else changed)`
          : `agentsmd: no agentsmd hooks in ${quote(result.hooksFile)}; nothing changed`,
      ],
      notes: [],
    };
  },
  async setup(request) {
    const home = codexHome({ ...request, projectDir: request.cwd });
    const base = { codexHome: home, home: request.home, env: request.env, cwd: request.cwd };
    const notes: string[] = [];
    let codexBin: string | null = null;
    if (!request.uninstall) {
      if (request.binary === null) notes.push("`codex` is not on PATH, so Codex cannot be asked to trust the hooks");
      else {
        const runs = await codexRuns(request.binary, request.env);
        if (runs.runs) codexBin = request.binary;
        else notes.push(`codex does not run here (${runs.reason}), so Codex cannot be asked to trust the hooks`);
      }
    }
    const changes = [{ file: join(home, "hooks.json"), entries: CODEX_EVENTS.map((e) => (e === "PostToolUse" ? `${e} (${CODEX_TOOL_MATCHER})` : e)) }];
    if (codexBin !== null) changes.push({ file: join(home, "config.toml"), entries: CODEX_EVENTS.map((e) => `[hooks.state] trusted_hash of the ${e} hook`) });
    const dryNotes = !request.uninstall && codexBin === null ? [TRUST_LINE] : [];
    return {
      command: defaultCodexHookCommand(),
      changes,
      notes,
      dryRunNotes: dryNotes,
      async apply(): Promise<SetupApplied> {
        if (request.uninstall) return { changed: (await uninstallCodex(base)).changed.length > 0, notes: [] };
        // The hooks first, so a trust step that fails leaves them installed (and reported so).
        let changed = (await installCodex({ ...base, trust: false })).changed;
        const after: string[] = [];
        if (codexBin !== null) {
          try {
            const result = await installCodex({ ...base, trust: true, codexBin });
            changed ||= result.changed;
            const trust = { trusted: true, via: result.trustedVia ?? "app-server", keys: result.trusted.length };
            return { changed, notes: after, status: `trusted in Codex (${countOf(trust.keys, "hook")}, through ${trust.via})`, report: { trust } };
          } catch (error) {
            after.push(`\`codex app-server\` could not trust the hooks (${(error as Error).message}); they are installed without trust`);
          }
        }
        after.push(TRUST_LINE);
        return { changed, notes: after, status: "not trusted in Codex yet", report: { trust: { trusted: false } } };
      },
    };
  },
  verify: {
    userHookFile: ({ home, env }) => join(codexHomeDir(env, home), "hooks.json"),
    projectHookFiles: () => [],
    event: "PostToolUse",
    tool: "Bash",
    answer: "hookSpecificOutput",
    projectDirVars: [],
    isOurs: (command) => isAgentsmdCodexHandler({ type: "command", command }),
    payload: (dir) => ({
      session_id: "agentsmd-setup-check",
      transcript_path: null,
      cwd: dir,
      hook_event_name: "PostToolUse",
      model: "gpt-5",
      permission_mode: "default",
      turn_id: "agentsmd-setup-check",
      tool_name: "Bash",
      tool_input: { command: "cat pkg/notes.txt" },
      tool_response: "",
      tool_use_id: "agentsmd-setup-check",
    }),
  },
};
