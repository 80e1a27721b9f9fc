/**
 * Which agent a rule is for, in the words of the rule sources that name agents (rulesync's
 * `targets`, Ruler's `ruler.toml` agent selection): one table from the agents agentsmd serves to
 * each source's names, and the pure tests built on it. Facts from rulesync's
 * supported-tools reference and Ruler's README and agent list.
 */

/** What {@link ruleIsFor} reads of a rule (a ScopedRule; no import, as rule.ts imports this module). */
export interface TargetedRule {
  format: string;
  targets?: readonly string[];
}

/** One agent agentsmd serves: its host id, the presets that speak for it, its names in each source. */
export interface RuleAgent {
  /** The integration id (`agentsmd hook <host>`, `SessionOptions.host`). */
  host: string;
  /** Presets whose sessions are this agent's when no host is named. */
  presets: readonly string[];
  /** rulesync `targets` names that mean this agent. */
  rulesync: readonly string[];
  /** Ruler agent identifiers that mean this agent. */
  ruler: readonly string[];
}

/**
 * The one table. Every agent also answers to the names for AGENTS.md itself (rulesync's target
 * `agentsmd`, Ruler's pseudo-agent `agentsmd`): a rule written for AGENTS.md is what agentsmd
 * delivers to every agent. rulesync's `copilot` target writes `.github/instructions`, which Copilot
 * CLI reads as well as its own `copilotcli`; `geminicli` is the name rulesync used for Gemini CLI
 * until it dropped that target, kept by the rule files written then.
 */
export const RULE_AGENTS: readonly RuleAgent[] = [
  { host: "claude-code", presets: ["claude"], rulesync: ["claudecode", "claudecode-legacy"], ruler: ["claude"] },
  { host: "codex", presets: ["codex"], rulesync: ["codexcli"], ruler: ["codex"] },
  { host: "copilot", presets: ["copilot"], rulesync: ["copilotcli", "copilot"], ruler: ["copilot"] },
  { host: "gemini", presets: ["gemini"], rulesync: ["geminicli"], ruler: ["gemini-cli"] },
  { host: "qwen", presets: ["qwen"], rulesync: ["qwencode"], ruler: ["qwen"] },
  { host: "opencode", presets: ["opencode", "opencode-plugin"], rulesync: ["opencode"], ruler: ["opencode"] },
  { host: "kilo", presets: ["kilo", "kilo-plugin"], rulesync: ["kilo"], ruler: ["kilocode"] },
  { host: "pi", presets: ["pi"], rulesync: ["pi"], ruler: ["pi"] },
];

/** Names every consumer answers to: a rule for all agents, or for AGENTS.md. */
const EVERYONE = { rulesync: ["*", "agentsmd"], ruler: ["agentsmd"] } as const;

/**
 * The agent consuming a session: by host, else by preset; undefined for a consumer none of the
 * table's agents is (the MCP server, a preset of one's own), which gets only rules for every agent.
 */
export function ruleAgentOf(host: string | undefined, preset?: string): RuleAgent | undefined {
  if (host !== undefined) return RULE_AGENTS.find((agent) => agent.host === host);
  return preset === undefined ? undefined : RULE_AGENTS.find((agent) => agent.presets.includes(preset));
}

/**
 * Whether `rule` is for `agent`: a rule without `targets` is for everyone; otherwise one of its
 * targets must be a name of the agent in the rule's source, or a name for every agent.
 */
export function ruleIsFor(rule: TargetedRule, agent: RuleAgent | undefined): boolean {
  if (rule.targets === undefined) return true;
  const source = rule.format === "ruler" ? "ruler" : "rulesync";
  const names: readonly string[] = [...EVERYONE[source], ...(agent?.[source] ?? [])];
  return rule.targets.some((target) => names.includes(target));
}

/**
 * Ruler's agents (identifier, display name): its `default_agents` entries match an identifier
 * exactly, and an entry that is no identifier matches every agent whose display name contains it.
 */
const RULER_AGENTS: ReadonlyArray<readonly [id: string, name: string]> = [
  ["agentsmd", "AgentsMd"],
  ["aider", "Aider"],
  ["amazonqcli", "Amazon Q CLI"],
  ["amp", "Amp"],
  ["antigravity", "Antigravity"],
  ["augmentcode", "AugmentCode"],
  ["claude", "Claude Code"],
  ["cline", "Cline"],
  ["codex", "OpenAI Codex CLI"],
  ["copilot", "GitHub Copilot"],
  ["crush", "Crush"],
  ["cursor", "Cursor"],
  ["factory", "Factory Droid"],
  ["firebase", "Firebase Studio"],
  ["firebender", "Firebender"],
  ["gemini-cli", "Gemini CLI"],
  ["goose", "Goose"],
  ["jetbrains-ai", "JetBrains AI Assistant"],
  ["jules", "Jules"],
  ["junie", "Junie"],
  ["kilocode", "Kilo Code"],
  ["kiro", "Kiro"],
  ["mistral", "Mistral"],
  ["opencode", "OpenCode"],
  ["openhands", "Open Hands"],
  ["pi", "Pi Coding Agent"],
  ["qwen", "Qwen Code"],
  ["roo", "RooCode"],
  ["trae", "Trae AI"],
  ["warp", "Warp"],
  ["windsurf", "Windsurf"],
  ["zed", "Zed"],
];

/** rulesync's rule targets (its rules processor's tool list), and the retired `geminicli`. */
export const RULESYNC_TARGETS: ReadonlySet<string> = new Set([
  "*",
  "agentsmd",
  "aiassistant",
  "amp",
  "antigravity-cli",
  "antigravity-ide",
  "antigravity-plugin",
  "augmentcode",
  "augmentcode-legacy",
  "claudecode",
  "claudecode-legacy",
  "cline",
  "codexcli",
  "copilot",
  "copilotcli",
  "cursor",
  "deepagents",
  "devin",
  "factorydroid",
  "geminicli",
  "goose",
  "grokcli",
  "hermesagent",
  "junie",
  "kilo",
  "kimi-code",
  "kiro",
  "kiro-cli",
  "kiro-ide",
  "musecode",
  "opencode",
  "pi",
  "qwencode",
  "reasonix",
  "replit",
  "roo",
  "rovodev",
  "takt",
  "vibe",
  "warp",
  "zed",
  "zoocode",
]);

/** What a `ruler.toml` says about agents: `default_agents` and each `[agents.<id>] enabled`. */
export interface RulerSelection {
  defaultAgents?: readonly string[];
  enabled: Readonly<Record<string, boolean>>;
}

/**
 * The Ruler agent identifiers a `ruler.toml` selects, as Ruler's own `apply` without `--agents`
 * decides: with `default_agents`, an agent's own `enabled` wins, else it is selected when an
 * entry names it (identifier, or part of its display name, case-insensitive); without, every agent
 * not set `enabled = false`.
 */
export function rulerSelected(selection: RulerSelection): string[] {
  const ids = new Set(RULER_AGENTS.map(([id]) => id));
  const filters = selection.defaultAgents?.map((entry) => entry.toLowerCase());
  return RULER_AGENTS.filter(([id, name]) => {
    const own = selection.enabled[id];
    if (!filters?.length) return own !== false;
    if (own !== undefined) return own;
    return filters.some((filter) => (ids.has(filter) ? filter === id : name.toLowerCase().includes(filter)));
  }).map(([id]) => id);
}

/**
 * `default_agents` entries and `[agents.<id>]` tables that name no Ruler agent (Ruler refuses to
 * apply such a config).
 */
export function rulerUnknown(selection: RulerSelection): string[] {
  const ids = new Set(RULER_AGENTS.map(([id]) => id));
  const names = RULER_AGENTS.map(([, name]) => name.toLowerCase());
  const entries = (selection.defaultAgents ?? []).filter((entry) => {
    const filter = entry.toLowerCase();
    return !ids.has(filter) && !names.some((name) => name.includes(filter));
  });
  return [...entries, ...Object.keys(selection.enabled).filter((id) => !ids.has(id))];
}
