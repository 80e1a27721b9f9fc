/**
 * `agentsmd audit [SESSION]`: did the agent see the right instructions? Reads one agent session
 * log (a path, or `--last`/`--since` with `--agent` to find them where the agent keeps them) and
 * reports, per touched path, whether each instruction file in force reached the model before the
 * edit. `--min-coverage N` exits 1 below N percent.
 */
import type { Command } from "commander";
import { ConfigError } from "../../core/errors.js";
import { auditAgents, auditAgent, type AuditAgent } from "../../audit/agents.js";
import { auditSessionLog, findSessionLogs, type AuditReport } from "../../audit/audit.js";
import { formatAudit } from "../../audit/report.js";
import { homeFromEnv, isInside } from "../../core/paths.js";
import { homedir } from "../../io/require.js";
import type { CommandContext } from "../context.js";

interface AuditFlags {
  agent?: string;
  last?: boolean;
  since?: string;
  minCoverage?: string;
}

/** Most logs one `--since` audits (newest first). */
const MAX_SINCE_LOGS = 50;

function agentOf(name: string | undefined, log: string | undefined, context: { env: Readonly<Record<string, string | undefined>>; home: string }): AuditAgent {
  if (name !== undefined) {
    const agent = auditAgent(name);
    if (agent === undefined)
      throw new ConfigError(`--agent ${JSON.stringify(name)} is not an agent the audit reads`, {
        fix: `use one of ${auditAgents()
          .map((a) => a.name)
          .join(", ")}`,
      });
    return agent;
  }
  // A log in an agent's own log directory tells which agent wrote it.
  if (log !== undefined) {
    for (const agent of auditAgents()) {
      const dirs = agentLogDirs.get(agent.name)?.(context) ?? [];
      if (dirs.some((dir) => isInside(log, dir))) return agent;
    }
  }
  throw new ConfigError("which agent wrote this log?", {
    fix: `pass --agent ${auditAgents()
      .map((a) => a.name)
      .join("|")}`,
  });
}

/** Log directories per agent, filled once the readers are loaded (for telling a log's agent by its place). */
const agentLogDirs = new Map<string, (context: { env: Readonly<Record<string, string | undefined>>; home: string }) => string[]>();

function threshold(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || number > 100)
    throw new ConfigError(`--min-coverage ${JSON.stringify(value)} is not a percentage`, { fix: "pass a number from 0 to 100" });
  return number;
}

function sinceOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const relative = /^(\d+)([mhd])$/.exec(value);
  if (relative) return Date.now() - Number(relative[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as "m" | "h" | "d"];
  const ms = Date.parse(value);
  if (!Number.isFinite(ms))
    throw new ConfigError(`--since ${JSON.stringify(value)} is not a time`, { fix: "pass an ISO date (2026-01-31T12:00) or an age such as 2h or 3d" });
  return ms;
}

export function registerAudit(program: Command, context: CommandContext): void {
  program
    .command("audit")
    .description("did the agent see the right instructions? per touched path, from the agent's own session log")
    .argument("[session]", "a session log file (default with --last: the newest of --agent's)")
    .option(
      "--agent <name>",
      `the agent that wrote the log: ${auditAgents()
        .map((a) => a.name)
        .join(", ")}`,
    )
    .option("--last", "audit the agent's most recent session log")
    .option("--since <time>", "audit every session log of the agent changed since TIME (ISO date, or 30m, 2h, 3d)")
    .option("--min-coverage <n>", "exit 1 when the share of edited paths whose instructions were all seen before the edit is below N percent")
    .action(async (session: string | undefined, flags: AuditFlags, command: Command) => {
      const options = context.sessionOptions(command);
      const globals = context.globals(command);
      const env = context.io.env;
      const home = options.home ?? homeFromEnv(env, homedir);
      const min = threshold(flags.minCoverage);
      const since = sinceOf(flags.since);
      for (const agent of auditAgents()) {
        if (!agentLogDirs.has(agent.name)) {
          const reader = await agent.load();
          agentLogDirs.set(agent.name, (c) => reader.logDirs(c.env, c.home));
        }
      }
      const log = session === undefined ? undefined : context.path(session);
      const agent = agentOf(flags.agent, log, { env, home });
      let logs: string[];
      if (log !== undefined) logs = [log];
      else if (flags.last || since !== undefined) {
        const found = await findSessionLogs(await agent.load(), { env, home, ...(since !== undefined ? { since } : {}) });
        logs = found.slice(0, flags.last ? 1 : MAX_SINCE_LOGS).map((each) => each.path);
        if (logs.length === 0)
          throw new ConfigError(`no ${agent.displayName} session log found${since !== undefined ? ` since ${flags.since}` : ""}`, {
            fix: `look where ${agent.displayName} keeps them (docs/audit.md) and pass the path`,
          });
      } else throw new ConfigError("which session log?", { fix: "pass its path, or --last / --since with --agent" });
      const cwd = globals.cwd !== undefined ? options.cwd : undefined;
      const reports: AuditReport[] = [];
      for (const path of logs) reports.push(await auditSessionLog({ log: path, agent, home, env, ...(cwd !== undefined ? { cwd } : {}) }));
      if (globals.json) context.json(reports.length === 1 && log !== undefined ? reports[0] : reports);
      else context.out(reports.map((report) => formatAudit(report)).join("\n"));
      if (min !== undefined) {
        const low = reports.filter((report) => report.summary.coverage < min);
        if (low.length > 0) {
          const worst = Math.min(...low.map((report) => report.summary.coverage));
          throw new ConfigError(`coverage ${worst}% is below --min-coverage ${min}`, { fix: agent.install });
        }
      }
    });
}
