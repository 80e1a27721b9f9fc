/**
 * Doctor's check of agentsmd's installed hooks, with setup's verification (verify.ts):
 *
 * | code | severity | what |
 * |---|---|---|
 * | `hook-command-missing` | error (user scope) / warning (project) | the program or script an installed hook command names does not exist |
 * | `hook-not-answering` | error | a user-scope hook, run as its agent would, does not answer with the nested AGENTS.md's text |
 *
 * A user-scope hook (the user's own configuration) is run; a project's hook file is repository
 * content, untrusted, so its command is only looked at, never run.
 */
import { quote } from "../../core/quote.js";
import type { Env } from "../host/definition.js";
import { installerOf } from "../host/installers.js";
import { installableHosts } from "../registry.js";
import { commandProblem, readInstalledHook, verifyHook } from "./verify.js";

/** A doctor finding (inspect/doctor.ts `Finding`). */
export interface HookHealthFinding {
  code: "hook-command-missing" | "hook-not-answering";
  severity: "error" | "warning";
  path: string;
  agents: string[];
  message: string;
  fix: string;
}

/**
 * Findings about the agentsmd hooks installed for the user (run) and in the project at `root` (looked at).
 */
export async function hookHealthFindings(options: { root: string; home: string; env: Env; timeoutMs?: number }): Promise<HookHealthFinding[]> {
  const findings: HookHealthFinding[] = [];
  const loaded = await Promise.all(installableHosts().map(async (host) => ({ host: host.id, name: host.name, verify: (await installerOf(host))!.verify })));
  // A host whose install adds no hook (an MCP server entry) has nothing to run here.
  const hosts = loaded.flatMap((each) => (each.verify === undefined ? [] : [{ ...each, verify: each.verify }]));
  for (const { host, name, verify } of hosts) {
    const installed = await readInstalledHook(host, verify, verify.userHookFile(options)).catch(() => null);
    if (installed === null) continue;
    const fix = `run \`agentsmd setup ${host}\`: it writes the command anew and checks it answers`;
    const problem = await commandProblem(installed.command, { cwd: options.home, env: options.env });
    if (problem !== null) {
      findings.push({
        code: "hook-command-missing",
        severity: "error",
        path: installed.file,
        agents: [host],
        message: `${name} runs agentsmd's hook ${quote(installed.command)} from ${quote(installed.file)}, but ${problem}: ${name} gets a hook error instead of the instructions`,
        fix,
      });
      continue;
    }
    const result = await verifyHook(host, verify, installed.command, {
      env: options.env,
      home: options.home,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
    if (!result.ok)
      findings.push({
        code: "hook-not-answering",
        severity: "error",
        path: installed.file,
        agents: [host],
        message: `agentsmd's ${name} hook ${quote(installed.command)} (${quote(installed.file)}), run as ${name} runs it on a ${result.event} event below a nested AGENTS.md, did not answer with that file: ${result.problem}`,
        fix,
      });
  }
  for (const { host, name, verify, file } of hosts.flatMap((each) => each.verify.projectHookFiles(options.root).map((file) => ({ ...each, file })))) {
    const installed = await readInstalledHook(host, verify, file).catch(() => null);
    if (installed === null) continue;
    const vars = Object.fromEntries(verify.projectDirVars.map((variable) => [variable, options.root]));
    const problem = await commandProblem(installed.command, { cwd: options.root, env: options.env, vars });
    if (problem === null) continue;
    const local = /node_modules/.test(installed.command);
    findings.push({
      code: "hook-command-missing",
      severity: "warning",
      path: file,
      agents: [host],
      message: `${quote(file)} runs agentsmd's ${name} hook ${quote(installed.command)}, but here ${problem} (the command was looked at, not run)`,
      fix: local
        ? "install the project's dependencies (`npm install`; agentsmd among its devDependencies)"
        : "install agentsmd where the hook finds it: `npm install -D agentsmd` in the project, then `agentsmd install " +
          `${host} --scope project\` again, or \`npm install -g agentsmd\``,
    });
  }
  return findings;
}
