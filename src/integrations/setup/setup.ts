/**
 * `agentsmd setup`: for each agent found on this machine (or named), what agentsmd will change,
 * the change itself through each host's own `install` code (user scope), and a check of each
 * installed hook run as its agent runs it (verify.ts). `--uninstall` goes back through each
 * host's `uninstall` (the files' earlier bytes, user-file.ts); a dry run changes nothing.
 *
 * Codex gets `--trust` semantics when its executable runs here (`codex app-server` reports the
 * hashes it trusts); otherwise the hooks are installed untrusted and the report says what to run.
 */
import { spawn } from "node:child_process";
import { absolute, join } from "../../core/paths.js";
import { AgentsMdError } from "../../core/errors.js";
import { CLAUDE_HOOK_EVENTS, defaultHookCommand, installClaudeCode, settingsPath, uninstallClaudeCode } from "../claude-code/install.js";
import { CODEX_TOOL_MATCHER, codexHomeDir, defaultCodexHookCommand, installCodex, uninstallCodex } from "../codex/install.js";
import { CODEX_EVENTS } from "../codex/input.js";
import { copilotHooksPath, defaultCopilotCommand, installCopilot, uninstallCopilot } from "../copilot/install.js";
import { COPILOT_EVENTS } from "../copilot/events.js";
import { COPILOT_FILE_TOOLS } from "../copilot/targets.js";
import { GEMINI_HOOK_SPECS, defaultGeminiCommand, geminiExtensionDir, installGemini, uninstallGemini } from "../gemini/install.js";
import { QWEN_HOOK_SPECS, defaultQwenCommand, installQwen, qwenSettingsPath, uninstallQwen } from "../qwen/install.js";
import type { HookSpec } from "../host/install-hooks.js";
import { AGENTS, detectAgents, isHookAgent, type AgentId, type Detected, type HookAgent } from "./agents.js";
import { readInstalledHook, userHookFile, verifyHook, type VerifyResult } from "./verify.js";

type Env = Readonly<Record<string, string | undefined>>;

/** One file setup changes and the entries it adds (or takes out). */
interface PlannedChange {
  file: string;
  entries: string[];
}

export interface AgentReport {
  id: AgentId;
  name: string;
  detected: Detected;
  /** Hooks agentsmd installs, or a plugin the agent loads. */
  kind: "hooks" | "plugin";
  /** The command the hooks run. */
  command?: string;
  changes: PlannedChange[];
  /** Plugin agents: how to enable agentsmd. */
  enable?: string;
  /** What install or uninstall changed (absent in a dry run). */
  changed?: boolean;
  /** Codex: whether the hooks are trusted, and how. */
  trust?: { trusted: boolean; via?: "app-server" | "config.toml"; keys?: number };
  verify?: VerifyResult;
  /** The install or uninstall failed: what and the fix. */
  error?: { message: string; fix?: string };
  /** Lines the user must read (what to run next). */
  notes: string[];
}

export interface SetupReport {
  action: "install" | "uninstall";
  dryRun: boolean;
  agents: AgentReport[];
  /** Every selected agent installed (or uninstalled) and, after an install, its hook answered. */
  ok: boolean;
}

export interface SetupOptions {
  home: string;
  env: Env;
  /** The directory setup runs in (`hooks/list` of Codex; no project file is written). */
  cwd: string;
  /** The agents named by the user; absent: every agent found. */
  agents?: readonly AgentId[];
  dryRun?: boolean;
  uninstall?: boolean;
  /** Milliseconds each hook check may take. */
  timeoutMs?: number;
}

const specEntries = (specs: readonly HookSpec[]): string[] => specs.map((s) => (s.matcher !== undefined ? `${s.event} (${s.matcher})` : s.event));

function codexHome(options: SetupOptions): string {
  return absolute(codexHomeDir(options.env, options.home), options.cwd);
}

/** The files and entries of a user-scope install of `host`. */
async function planned(host: HookAgent, options: SetupOptions, trust: boolean): Promise<{ command: string; changes: PlannedChange[] }> {
  const where = { projectDir: options.cwd, home: options.home, env: options.env };
  switch (host) {
    case "claude-code":
      return {
        command: await defaultHookCommand("user", options.cwd),
        changes: [{ file: settingsPath("user", where), entries: CLAUDE_HOOK_EVENTS.map((e) => (e.matcher ? `${e.event} (${e.matcher})` : e.event)) }],
      };
    case "codex": {
      const home = codexHome(options);
      const changes = [{ file: join(home, "hooks.json"), entries: CODEX_EVENTS.map((e) => (e === "PostToolUse" ? `${e} (${CODEX_TOOL_MATCHER})` : e)) }];
      if (trust) changes.push({ file: join(home, "config.toml"), entries: CODEX_EVENTS.map((e) => `[hooks.state] trusted_hash of the ${e} hook`) });
      return { command: defaultCodexHookCommand(), changes };
    }
    case "gemini": {
      const dir = geminiExtensionDir(options.home, options.env);
      return {
        command: defaultGeminiCommand(),
        changes: [
          { file: join(dir, "gemini-extension.json"), entries: ["the extension's manifest (name agentsmd)"] },
          { file: join(join(dir, "hooks"), "hooks.json"), entries: specEntries(GEMINI_HOOK_SPECS) },
        ],
      };
    }
    case "qwen":
      return { command: defaultQwenCommand(), changes: [{ file: qwenSettingsPath({ ...where, scope: "user" }), entries: specEntries(QWEN_HOOK_SPECS) }] };
    case "copilot":
      return {
        command: `${defaultCopilotCommand()} hook copilot --event EVENT`,
        changes: [
          {
            file: copilotHooksPath("user", where),
            entries: COPILOT_EVENTS.map((e) => (e === "postToolUse" ? `${e} (${COPILOT_FILE_TOOLS.join("|")})` : e)),
          },
        ],
      };
  }
}

/**
 * Whether the codex executable runs here (`codex --version` answers within 10 s); the reason when not.
 */
function codexRuns(binary: string, env: Env): Promise<{ runs: boolean; reason?: string }> {
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

const TRUST_LINE =
  "then trust them: run `agentsmd install codex --trust` where `codex` runs, or open Codex, type /hooks and trust the three agentsmd hooks (Codex skips an untrusted hook without a word)";

async function installOne(report: AgentReport, host: HookAgent, options: SetupOptions, codexBin: string | null): Promise<void> {
  const where = { projectDir: options.cwd, home: options.home, env: options.env };
  switch (host) {
    case "claude-code":
      report.changed = (await installClaudeCode({ ...where, scope: "user" })).changed;
      return;
    case "gemini":
      report.changed = (await installGemini({ ...where, scope: "user" })).changed;
      return;
    case "qwen":
      report.changed = (await installQwen({ ...where, scope: "user" })).changed;
      return;
    case "copilot":
      report.changed = (await installCopilot({ ...where, scope: "user" })).changed;
      return;
    case "codex": {
      const base = { codexHome: codexHome(options), home: options.home, env: options.env, cwd: options.cwd };
      // The hooks first, so a trust step that fails leaves them installed (and reported so).
      report.changed = (await installCodex({ ...base, trust: false })).changed;
      if (codexBin !== null) {
        try {
          const result = await installCodex({ ...base, trust: true, codexBin });
          report.changed ||= result.changed;
          report.trust = { trusted: true, via: result.trustedVia ?? "app-server", keys: result.trusted.length };
          return;
        } catch (error) {
          report.notes.push(`\`codex app-server\` could not trust the hooks (${(error as Error).message}); they are installed without trust`);
        }
      }
      report.trust = { trusted: false };
      report.notes.push(TRUST_LINE);
      return;
    }
  }
}

async function uninstallOne(host: HookAgent, options: SetupOptions): Promise<boolean> {
  const where = { projectDir: options.cwd, home: options.home, env: options.env };
  switch (host) {
    case "claude-code":
      return (await uninstallClaudeCode({ ...where, scope: "user" })).changed;
    case "gemini":
      return (await uninstallGemini({ ...where, scope: "user" })).changed;
    case "qwen":
      return (await uninstallQwen({ ...where, scope: "user" })).changed;
    case "copilot":
      return (await uninstallCopilot({ ...where, scope: "user" })).changed;
    case "codex":
      return (await uninstallCodex({ codexHome: codexHome(options), home: options.home, env: options.env })).changed.length > 0;
  }
}

function failure(error: unknown): { message: string; fix?: string } {
  if (error instanceof AgentsMdError) return { message: error.message, ...(error.fix ? { fix: error.fix } : {}) };
  return { message: (error as Error)?.message ?? String(error) };
}

/**
 * Detects, plans and (unless a dry run) installs or uninstalls agentsmd for each selected agent,
 * then checks each installed hook. One agent's failure is reported and the others go on.
 */
export async function runSetup(options: SetupOptions): Promise<SetupReport> {
  const detected = await detectAgents({ home: options.home, env: options.env });
  const chosen = detected.filter((d) => (options.agents ? options.agents.includes(d.id) : d.found));
  const action = options.uninstall ? "uninstall" : "install";
  const reports: AgentReport[] = [];
  for (const found of chosen) {
    const spec = AGENTS[found.id];
    const report: AgentReport = { id: found.id, name: spec.name, detected: found, kind: isHookAgent(found.id) ? "hooks" : "plugin", changes: [], notes: [] };
    reports.push(report);
    if (!found.found) report.notes.push(`${spec.name} was not found on this machine (no \`${spec.bin}\` on PATH, no ${found.configDir})`);
    if (!isHookAgent(found.id)) {
      report.enable = spec.enable!(options.home, options.env);
      report.notes.push(
        options.uninstall
          ? `agentsmd setup installs nothing into ${spec.name}; take out what you added to enable it`
          : `agentsmd setup does not install ${spec.name}'s plugin; to enable it: ${report.enable}`,
      );
      continue;
    }
    const host = found.id;
    let codexBin: string | null = null;
    if (host === "codex" && !options.uninstall) {
      if (found.binary === null) report.notes.push("`codex` is not on PATH, so Codex cannot be asked to trust the hooks");
      else {
        const runs = await codexRuns(found.binary, options.env);
        if (runs.runs) codexBin = found.binary;
        else report.notes.push(`codex does not run here (${runs.reason}), so Codex cannot be asked to trust the hooks`);
      }
    }
    const plan = await planned(host, options, codexBin !== null);
    report.command = plan.command;
    report.changes = options.uninstall
      ? plan.changes.map((c) => ({ file: c.file, entries: ["agentsmd's entries taken out (the file's earlier bytes back when nothing else changed)"] }))
      : plan.changes;
    if (options.dryRun) {
      if (host === "codex" && codexBin === null && !options.uninstall) report.notes.push(TRUST_LINE);
      continue;
    }
    try {
      if (options.uninstall) report.changed = await uninstallOne(host, options);
      else await installOne(report, host, options, codexBin);
    } catch (error) {
      report.error = failure(error);
      continue;
    }
    if (options.uninstall) continue;
    const file = userHookFile(host, options);
    const installed = await readInstalledHook(host, file);
    if (installed === null) {
      report.error = { message: `no agentsmd hook found in ${file} after the install`, fix: `run \`agentsmd install ${host}\` and check ${file}` };
      continue;
    }
    report.verify = await verifyHook(host, installed.command, {
      env: options.env,
      home: options.home,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }
  const ok = reports.every((r) => r.error === undefined && (r.verify === undefined || r.verify.ok));
  return { action, dryRun: options.dryRun === true, agents: reports, ok };
}
