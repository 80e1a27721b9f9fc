/**
 * What agentsmd reads of a Ruler `ruler.toml`: the agent selection (`default_agents`,
 * `[agents.<id>] enabled`), `nested`, and whether `.ruler/agents/` joins the rules
 * (`[agents] include_in_rules`, formerly `[subagents]`). Pure apart from loading smol-toml on
 * first use; MCP, gitignore and output paths are Ruler's own business and are not read.
 */
import { loadDependency } from "../../presets/config-file.js";
import { rulerSelected, rulerUnknown, type RulerSelection } from "./targets.js";

/** Keys of `[agents]` that are settings, not agent tables. */
const RESERVED = new Set(["enabled", "include_in_rules", "cleanup_orphaned"]);

export interface RulerConfig {
  /** Ruler agent identifiers the file selects. */
  agents: string[];
  /** `nested = true`: every `.ruler/` below the root applies to its own directory. */
  nested: boolean;
  /** `.ruler/agents/*.md` are concatenated with the rules. */
  includeAgents: boolean;
  /** What is wrong with the file, one sentence each. */
  problems: string[];
}

/** The config of a `.ruler/` without a `ruler.toml`: every agent, not nested. */
export const RULER_DEFAULTS: RulerConfig = { agents: rulerSelected({ enabled: {} }), nested: false, includeAgents: false, problems: [] };

const isTable = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Parses a `ruler.toml` text. A file that does not parse selects every agent (Ruler's default) and
 * says why in `problems`.
 */
export function parseRulerConfig(text: string): RulerConfig {
  let data: unknown;
  try {
    const { parse } = loadDependency("smol-toml") as typeof import("smol-toml");
    data = parse(text);
  } catch (error) {
    return { ...RULER_DEFAULTS, problems: [`it is not valid TOML (${firstLine((error as Error).message)}); every agent gets its rules`] };
  }
  if (!isTable(data)) return RULER_DEFAULTS;
  const problems: string[] = [];
  let defaultAgents: string[] | undefined;
  if (data.default_agents !== undefined) {
    if (Array.isArray(data.default_agents) && data.default_agents.every((entry) => typeof entry === "string")) defaultAgents = data.default_agents;
    else problems.push("default_agents is not a list of strings; it is ignored");
  }
  const enabled: Record<string, boolean> = {};
  const agents = isTable(data.agents) ? data.agents : {};
  for (const [id, section] of Object.entries(agents)) {
    if (RESERVED.has(id)) continue;
    if (isTable(section) && typeof section.enabled === "boolean") enabled[id] = section.enabled;
  }
  const unknown = rulerUnknown({ ...(defaultAgents ? { defaultAgents } : {}), enabled });
  if (unknown.length) problems.push(`${unknown.map((name) => JSON.stringify(name)).join(", ")} names no Ruler agent (Ruler refuses to apply it); ignored`);
  // An entry naming no agent is dropped, not left to select nobody.
  const known = defaultAgents?.filter((entry) => !unknown.includes(entry));
  const selection: RulerSelection = { ...(known ? { defaultAgents: known } : {}), enabled };
  const legacy = isTable(data.subagents) ? data.subagents : {};
  const includeAgents = (agents.include_in_rules ?? legacy.include_in_rules) === true;
  if (data.nested !== undefined && typeof data.nested !== "boolean") problems.push("nested is not true or false; it is ignored");
  return { agents: rulerSelected(selection), nested: data.nested === true, includeAgents, problems };
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.slice(0, 200);
}
