/**
 * The agents `agentsmd setup` knows: their executables, their configuration directories, and
 * whether agentsmd installs hooks into them (`install <host>`) or they load agentsmd as a plugin
 * (a line saying how). Detection reads PATH and stats directories; it changes nothing.
 */
import { delimiter } from "node:path";
import { join } from "../../core/paths.js";
import { nodeFileSystem, type FileSystem } from "../../io/file-system.js";
import { claudeConfigDir } from "../../presets/claude.js";
import { copilotHome } from "../../presets/copilot.js";
import { geminiDir } from "../../presets/gemini.js";
import { kiloConfigDir } from "../../presets/kilo.js";
import { opencodeConfigDir } from "../../presets/opencode.js";
import { piAgentDir } from "../../presets/pi.js";
import { qwenDir } from "../../presets/qwen.js";
import { codexHomeDir } from "../codex/install.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The agents with hooks agentsmd installs. */
export const HOOK_AGENTS = ["claude-code", "codex", "gemini", "copilot", "qwen"] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];
/** The agents that load agentsmd as a plugin (no `install` of theirs). */
const PLUGIN_AGENTS = ["opencode", "kilo", "pi"] as const;
type PluginAgent = (typeof PLUGIN_AGENTS)[number];
export type AgentId = HookAgent | PluginAgent;
export const AGENT_IDS: readonly AgentId[] = [...HOOK_AGENTS, ...PLUGIN_AGENTS];

export interface AgentSpec {
  id: AgentId;
  name: string;
  /** The executable's name on PATH. */
  bin: string;
  /** The agent's configuration directory. */
  dir(home: string, env: Env): string;
  /** Plugin agents: how to enable agentsmd (one line). */
  enable?(home: string, env: Env): string;
}

export const AGENTS: Readonly<Record<AgentId, AgentSpec>> = {
  "claude-code": { id: "claude-code", name: "Claude Code", bin: "claude", dir: claudeConfigDir },
  codex: { id: "codex", name: "Codex", bin: "codex", dir: (home, env) => codexHomeDir(env, home) },
  gemini: { id: "gemini", name: "Gemini CLI", bin: "gemini", dir: geminiDir },
  copilot: { id: "copilot", name: "GitHub Copilot CLI", bin: "copilot", dir: copilotHome },
  qwen: { id: "qwen", name: "Qwen Code", bin: "qwen", dir: qwenDir },
  opencode: {
    id: "opencode",
    name: "OpenCode",
    bin: "opencode",
    dir: (home, env) => opencodeConfigDir({ home, env }),
    enable: (home, env) => `add "plugin": ["agentsmd"] to ${join(opencodeConfigDir({ home, env }), "opencode.json")} (OpenCode installs the package itself)`,
  },
  kilo: {
    id: "kilo",
    name: "Kilo Code",
    bin: "kilo",
    dir: (home, env) => kiloConfigDir({ home, env }),
    enable: () => 'in each project: `npm install -D agentsmd`, then a file .kilo/plugins/agentsmd.js holding: export { default } from "agentsmd/kilo";',
  },
  pi: {
    id: "pi",
    name: "pi",
    bin: "pi",
    dir: (home, env) => (env.PI_CODING_AGENT_DIR ? piAgentDir({ home, env }) : join(home, ".pi")),
    enable: () => "run `pi install npm:agentsmd` (pi reads the package's extension manifest)",
  },
};

/** What detection found for one agent. */
export interface Detected {
  id: AgentId;
  name: string;
  /** The executable found on PATH, or null. */
  binary: string | null;
  configDir: string;
  configDirExists: boolean;
  /** Found: the executable or the configuration directory. */
  found: boolean;
}

/**
 * The first executable file called `name` in `env.PATH`, or null.
 */
export async function findOnPath(name: string, env: Env, fs: FileSystem = nodeFileSystem): Promise<string | null> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir.startsWith("/")) continue; // a relative PATH entry would depend on the cwd
    const candidate = join(dir, name);
    const info = await fs.stat(candidate).catch(() => null);
    if (info?.kind === "file" && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
  }
  return null;
}

/**
 * Which agents are on this machine: an executable on PATH or a configuration directory in the home.
 */
export async function detectAgents(options: { home: string; env: Env; fs?: FileSystem }): Promise<Detected[]> {
  const fs = options.fs ?? nodeFileSystem;
  return Promise.all(
    AGENT_IDS.map(async (id) => {
      const spec = AGENTS[id];
      const binary = await findOnPath(spec.bin, options.env, fs);
      const configDir = spec.dir(options.home, options.env);
      const configDirExists = (await fs.stat(configDir).catch(() => null))?.kind === "directory";
      return { id, name: spec.name, binary, configDir, configDirExists, found: binary !== null || configDirExists };
    }),
  );
}

/** True for an agent whose hooks agentsmd installs. */
export function isHookAgent(id: AgentId): id is HookAgent {
  return (HOOK_AGENTS as readonly string[]).includes(id);
}
