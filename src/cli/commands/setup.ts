/**
 * `agentsmd setup [agents...]`: detect the coding agents on this machine, install agentsmd into
 * each (user scope, through each host's `install` code), and check every installed hook by running
 * it as its agent would. `--dry-run` changes nothing, `--uninstall` takes it all out again.
 * Exit 1 when an agent could not be set up or its hook did not answer; 2 for an unknown agent.
 */
import type { Command } from "commander";
import { homedir } from "node:os";
import { AgentsMdError } from "../../core/errors.js";
import { absolute, homeFromEnv } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { countOf } from "../../core/words.js";
import { detectableHosts, hostById } from "../../integrations/registry.js";
import type { AgentReport, SetupReport } from "../../integrations/setup/setup.js";
import type { CommandContext } from "../context.js";

/** Lines of the model's text shown per agent. */
const ANSWER_LINES = 3;

/** The ids of the agents setup knows (the registry's hosts with an executable and a configuration directory). */
const agentIds = (): string[] => detectableHosts().map((host) => host.id);

/** An agent's id from what the user typed: its id or its executable's name (`claude`). */
function agentOf(word: string): string | undefined {
  const lower = word.trim().toLowerCase();
  return detectableHosts().find((host) => host.id === lower || host.bin === lower)?.id;
}

function describeAgent(agent: AgentReport, report: SetupReport): string[] {
  const d = agent.detected;
  const where = [d.binary ? `${hostById(agent.id)?.bin ?? agent.id} at ${quote(d.binary)}` : null, d.configDirExists ? quote(d.configDir) : null]
    .filter(Boolean)
    .join(", ");
  const lines = [`${agent.name} (${agent.id}): ${where ? `found ${where}` : "not found"}`];
  const verb = report.dryRun ? (report.action === "install" ? "would add" : "would take out") : report.action === "install" ? "adds" : "takes out";
  for (const change of agent.changes)
    lines.push(
      report.action === "install"
        ? `  ${verb} to ${quote(change.file)}: ${change.entries.join(", ")}`
        : `  ${verb} of ${quote(change.file)}: ${change.entries.join(", ")}`,
    );
  if (agent.command && report.action === "install" && agent.kind === "hooks") lines.push(`  command: ${quote(agent.command)}`);
  if (agent.error) lines.push(`  FAILED: ${agent.error.message}${agent.error.fix ? `\n  fix: ${agent.error.fix}` : ""}`);
  else if (agent.changed !== undefined)
    lines.push(
      agent.changed
        ? `  ${report.action === "install" ? "installed" : "uninstalled"}`
        : `  ${report.action === "install" ? "already installed; nothing changed" : "nothing of agentsmd's there; nothing changed"}`,
    );
  if (agent.status !== undefined) lines.push(`  ${agent.status}`);
  const v = agent.verify;
  if (v) {
    if (v.ok) {
      lines.push(
        `  verified: the installed ${v.module ? `module, imported as ${agent.name} imports it` : "command"}, given a ${v.event} event, answered with the text of ${quote(v.expected)} (${v.ms} ms); the model would receive:`,
      );
      const text = (v.answer ?? "").split("\n").filter((line) => line.trim() !== "");
      for (const line of text.slice(0, ANSWER_LINES)) lines.push(`    | ${quote(line).replace(/^"(.*)"$/, "$1")}`);
      if (text.length > ANSWER_LINES) lines.push(`    | … (${countOf(text.length - ANSWER_LINES, "more line")})`);
    } else lines.push(`  NOT ANSWERING: ${v.module ? "the module " : ""}${quote(v.command)} on a ${v.event}: ${v.problem}`);
  }
  for (const note of agent.notes) lines.push(`  note: ${note}`);
  return lines;
}

/** The report for a terminal. */
function formatSetup(report: SetupReport): string {
  if (report.agents.length === 0)
    return `agentsmd: no coding agent found on this machine (looked for ${detectableHosts()
      .map((host) => host.bin)
      .join(", ")} on PATH and their configuration directories); name one to set it up anyway: agentsmd setup claude-code`;
  const head = report.dryRun ? "agentsmd setup --dry-run: nothing was changed" : `agentsmd setup${report.action === "uninstall" ? " --uninstall" : ""}`;
  return [head, ...report.agents.flatMap((agent) => ["", ...describeAgent(agent, report)])].join("\n");
}

export function registerSetup(program: Command, context: CommandContext): void {
  program
    .command("setup")
    .description(
      `detect the coding agents on this machine, install agentsmd into each (user scope: hooks, or for ${detectableHosts()
        .filter((host) => host.plugin?.file !== undefined)
        .map((host) => host.name)
        .join(", ")} a plugin module in the user's plugin folder) and check each answers as its agent runs it`,
    )
    .argument("[agents...]", `agents to set up: ${agentIds().join(", ")} (default: every one found)`)
    .option("--only <list>", "comma-separated agents to set up (the same as naming them)")
    .option("--dry-run", "show what would change, and change nothing")
    .option("--uninstall", "take agentsmd out of each agent again (each file's earlier bytes back)")
    .action(async (names: string[], options: { only?: string; dryRun?: boolean; uninstall?: boolean }, command: Command) => {
      const words = [...names, ...(options.only !== undefined ? options.only.split(",") : [])].filter((w) => w.trim() !== "");
      if (options.only !== undefined && options.only.split(",").every((w) => w.trim() === ""))
        command.error(`error: --only ${JSON.stringify(options.only)} names no agent; use a comma-separated list of ${agentIds().join(", ")}`, { exitCode: 2 });
      const agents: string[] = [];
      for (const word of words) {
        const id = agentOf(word);
        if (id === undefined) command.error(`error: unknown agent ${JSON.stringify(word)}; use ${agentIds().join(", ")}`, { exitCode: 2 });
        else if (!agents.includes(id)) agents.push(id);
      }
      const globals = context.globals(command);
      const cwd = absolute(globals.cwd ?? context.io.cwd, context.io.cwd);
      const home = globals.home !== undefined ? absolute(globals.home, context.io.cwd) : homeFromEnv(context.io.env, homedir);
      const { runSetup } = await import("../../integrations/setup/setup.js");
      const report = await runSetup({
        home,
        env: context.io.env,
        cwd,
        ...(agents.length > 0 ? { agents } : {}),
        ...(options.dryRun ? { dryRun: true } : {}),
        ...(options.uninstall ? { uninstall: true } : {}),
      });
      if (globals.json) context.json(report);
      else context.out(formatSetup(report));
      if (!report.ok) {
        const failed = report.agents.filter((a) => a.error !== undefined || (a.verify !== undefined && !a.verify.ok)).map((a) => a.id);
        throw new AgentsMdError(`setup did not complete for ${failed.join(", ")}`, { fix: "see the FAILED and NOT ANSWERING lines above" });
      }
    });
}
