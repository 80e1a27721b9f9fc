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
import { AGENTS, HOOK_AGENTS } from "./agents.js";
import { commandProblem, projectHookFiles, PROJECT_DIR_VARS, readInstalledHook, userHookFile, verifyHook } from "./verify.js";

type Env = Readonly<Record<string, string | undefined>>;

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
  for (const host of HOOK_AGENTS) {
    const name = AGENTS[host].name;
    const installed = await readInstalledHook(host, userHookFile(host, options)).catch(() => null);
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
    const result = await verifyHook(host, installed.command, {
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
  for (const { host, file } of projectHookFiles(options.root)) {
    const installed = await readInstalledHook(host, file).catch(() => null);
    if (installed === null) continue;
    const vars = Object.fromEntries(PROJECT_DIR_VARS[host].map((name) => [name, options.root]));
    const problem = await commandProblem(installed.command, { cwd: options.root, env: options.env, vars });
    if (problem === null) continue;
    const local = /node_modules/.test(installed.command);
    findings.push({
      code: "hook-command-missing",
      severity: "warning",
      path: file,
      agents: [host],
      message: `${quote(file)} runs agentsmd's ${AGENTS[host].name} hook ${quote(installed.command)}, but here ${problem} (the command was looked at, not run)`,
      fix: local
        ? "install the project's dependencies (`npm install`; agentsmd among its devDependencies)"
        : "install agentsmd where the hook finds it: `npm install -D agentsmd` in the project, then `agentsmd install " +
          `${host} --scope project\` again, or \`npm install -g agentsmd\``,
    });
  }
  return findings;
}
