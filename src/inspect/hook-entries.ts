/**
 * Doctor checks on the hook entries agentsmd installs: where each host reads hooks from, and which
 * entries a host will mis-read or never run.
 *
 * - `hook-misread` (warning): an `agentsmd hook <host>` entry in a file another host reads. Claude
 *   Code reads `.claude/settings*.json`; GitHub Copilot CLI reads `.github/hooks/*.json`,
 *   `~/.copilot/hooks/*.json` and also the project's `.claude/settings.json` (Claude-style names,
 *   its own `tool_input.path`); Gemini CLI reads `.gemini/settings.json` (timeouts in milliseconds).
 * - `copilot-runs-claude-hooks` (info): the project's `.claude/settings.json` runs
 *   `agentsmd hook claude-code` inside Copilot CLI too; that hook recognises Copilot's events and
 *   stays silent, so Copilot needs `agentsmd install copilot`.
 * - `claude-hooks-project-only` (warning): agentsmd's Claude Code hooks only in the project's
 *   settings: Claude Code (2.1.328+) started in a subdirectory does not read them.
 */
import { readJsonQuietly, type FileSystem } from "../io/file-system.js";
import { join } from "../core/paths.js";
import { quote } from "../core/quote.js";
import { claudeConfigDir } from "../presets/claude.js";
import { copilotHome } from "../presets/copilot.js";

/** A doctor finding (doctor.ts `Finding`, declared here so neither module imports the other). */
export interface HookFinding {
  code: string;
  severity: "error" | "warning" | "info";
  path: string;
  agents?: string[];
  message: string;
  fix: string;
}

/** The hosts an `agentsmd hook <host>` command names. */
const HOOK_COMMAND = /(?:^|\s)hook\s+(claude-code|copilot|gemini|qwen|codex)\b/;

type Host = "claude-code" | "copilot" | "gemini";

interface HookFile {
  path: string;
  /** Hosts that run the hooks of this file, the first being the one it is written for. */
  readers: Host[];
  scope: "user" | "project";
}

const HOST_NAMES: Record<string, string> = {
  "claude-code": "Claude Code",
  copilot: "GitHub Copilot CLI",
  gemini: "Gemini CLI",
  qwen: "Qwen Code",
  codex: "Codex",
};

/** Every command string of a hooks document (Claude-style groups or Copilot's flat entries). */
export function hookCommands(document: unknown): Array<{ event: string; command: string; timeout?: number }> {
  const hooks = (document as { hooks?: unknown } | null | undefined)?.hooks;
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) return [];
  const out: Array<{ event: string; command: string; timeout?: number }> = [];
  const visit = (event: string, entry: unknown): void => {
    if (typeof entry !== "object" || entry === null) return;
    const record = entry as Record<string, unknown>;
    if (Array.isArray(record.hooks)) for (const inner of record.hooks.slice(0, 256)) visit(event, inner);
    for (const key of ["command", "bash"]) {
      const value = record[key];
      if (typeof value === "string") out.push({ event, command: value, ...(typeof record.timeout === "number" ? { timeout: record.timeout } : {}) });
    }
  };
  for (const [event, list] of Object.entries(hooks)) if (Array.isArray(list)) for (const entry of list.slice(0, 256)) visit(event, entry);
  return out;
}

async function hookFiles(fs: FileSystem, root: string, home: string, env: Readonly<Record<string, string | undefined>>): Promise<HookFile[]> {
  const files: HookFile[] = [
    { path: join(root, ".claude/settings.json"), readers: ["claude-code", "copilot"], scope: "project" },
    { path: join(root, ".claude/settings.local.json"), readers: ["claude-code"], scope: "project" },
    { path: join(claudeConfigDir(home, env), "settings.json"), readers: ["claude-code"], scope: "user" },
    { path: join(root, ".gemini/settings.json"), readers: ["gemini"], scope: "project" },
    { path: join(home, ".gemini/settings.json"), readers: ["gemini"], scope: "user" },
  ];
  for (const [dir, scope] of [
    [join(root, ".github/hooks"), "project"],
    [join(copilotHome(home, env), "hooks"), "user"],
  ] as const) {
    const entries = await fs.readdir(dir).catch(() => []);
    for (const entry of entries.slice(0, 256))
      if (entry.name.endsWith(".json") && entry.kind !== "directory") files.push({ path: join(dir, entry.name), readers: ["copilot"], scope });
  }
  return files;
}

/**
 * Adds the hook-entry findings for a project at `root`.
 */
export async function checkHookEntries(
  fs: FileSystem,
  root: string,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  add: (finding: HookFinding) => void,
): Promise<void> {
  let claudeProject: string | null = null;
  let claudeUser = false;
  for (const file of await hookFiles(fs, root, home, env)) {
    const document = await readJsonQuietly(fs, file.path);
    if (document === undefined) continue;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: `document` is unknown
    const plugins = (document as { enabledPlugins?: unknown } | null)?.enabledPlugins;
    if (
      file.readers[0] === "claude-code" &&
      file.scope === "user" &&
      plugins &&
      typeof plugins === "object" &&
      Object.keys(plugins).some((id) => id.startsWith("agentsmd"))
    )
      claudeUser = true;
    const reported = new Set<string>();
    for (const { command, timeout } of hookCommands(document)) {
      const host = HOOK_COMMAND.exec(command)?.[1];
      if (host === undefined || reported.has(host)) continue;
      if (host === "claude-code" && file.readers[0] === "claude-code") {
        if (file.scope === "user") claudeUser = true;
        else claudeProject ??= file.path;
      }
      // agentsmd's Claude Code hook recognises Copilot's events and stays silent: reported as info below.
      const others = file.readers.filter(
        (reader) => reader !== host && !(host === "claude-code" && reader === "copilot" && file.readers.includes("claude-code")),
      );
      if (others.length === 0) continue;
      reported.add(host);
      const readers = others.map((reader) => HOST_NAMES[reader]).join(" and ");
      const plural = others.length === 1 ? "s" : "";
      const milliseconds =
        others.includes("gemini") && timeout !== undefined && timeout < 1000 ? ` (and Gemini CLI reads timeout ${timeout} as milliseconds)` : "";
      add({
        code: "hook-misread",
        severity: "warning",
        path: file.path,
        agents: others,
        message: `${quote(file.path)} runs \`agentsmd hook ${host}\`, but ${readers} read${plural} this file and run${plural} it with ${others.length === 1 ? "its" : "their"} own events, not ${HOST_NAMES[host]}'s${milliseconds}`,
        fix: `remove that entry; install agentsmd for each host in its own place: \`agentsmd install ${host}\`${others[0] !== host ? ` and \`agentsmd install ${others[0]}\`` : ""}`,
      });
    }
    if (
      file.readers.includes("copilot") &&
      file.readers[0] === "claude-code" &&
      hookCommands(document).some(({ command }) => HOOK_COMMAND.exec(command)?.[1] === "claude-code")
    )
      add({
        code: "copilot-runs-claude-hooks",
        severity: "info",
        path: file.path,
        agents: ["copilot"],
        message: `GitHub Copilot CLI also runs the \`agentsmd hook claude-code\` entries of ${quote(file.path)}; that hook recognises Copilot's events and stays silent there`,
        fix: "run `agentsmd install copilot` so Copilot CLI gets nested AGENTS.md files through its own hook",
      });
  }
  if (claudeProject !== null && !claudeUser)
    add({
      code: "claude-hooks-project-only",
      severity: "warning",
      path: claudeProject,
      agents: ["claude"],
      message: `agentsmd's Claude Code hooks are only in ${quote(claudeProject)}: Claude Code (2.1.328 and later) started in a subdirectory of ${quote(root)} does not read that file, so nothing is delivered there`,
      fix: "run `agentsmd install claude-code` (user scope, works from every directory) or load the plugin folder (`claude --plugin-dir <agentsmd>/claude-plugin`)",
    });
}
