/**
 * `agentsmd setup`: for each agent found on this machine (or named), what agentsmd will change,
 * the change itself through each host's own installer (user scope; the registry's `install`
 * slot), and a check of each installed hook run as its agent runs it (verify.ts). `--uninstall`
 * goes back through each host's uninstall (the files' earlier bytes, user-file.ts); a dry run
 * changes nothing. A plugin host gets its module file in the user's scope (plugin-file.ts),
 * checked by importing it as the host does.
 */
import { AgentsMdError } from "../../core/errors.js";
import type { Env, PlannedChange } from "../host/definition.js";
import { installerOf } from "../host/installers.js";
import type { HostDefinition } from "../host/definition.js";
import { hostById } from "../registry.js";
import { detectAgents, type Detected } from "./detect.js";
import { installPluginFile, pluginText, uninstallPluginFile, verifyPluginFile } from "./plugin-file.js";
import { readInstalledHook, verifyHook, type VerifyResult } from "./verify.js";

export interface AgentReport {
  id: string;
  name: string;
  detected: Detected;
  /** Hooks agentsmd installs, or a plugin the agent loads. */
  kind: "hooks" | "plugin";
  /** The command the hooks run. */
  command?: string;
  changes: PlannedChange[];
  /** Plugin agents without a module file of setup's: how to enable agentsmd by hand. */
  enable?: string;
  /** What install or uninstall changed (absent in a dry run). */
  changed?: boolean;
  /** A host's own status line after the change (Codex: whether its hooks are trusted). */
  status?: string;
  /** Codex: whether the hooks are trusted, and how (a host's own report fields are merged in). */
  trust?: { trusted: boolean; via?: string; keys?: number };
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
  agents?: readonly string[];
  dryRun?: boolean;
  uninstall?: boolean;
  /** Milliseconds each hook check may take. */
  timeoutMs?: number;
}

function failure(error: unknown): { message: string; fix?: string } {
  if (error instanceof AgentsMdError) return { message: error.message, ...(error.fix ? { fix: error.fix } : {}) };
  return { message: (error as Error)?.message ?? String(error) };
}

/** Plans, applies and checks one hook host; the report collects what happened. */
async function setUpHooks(report: AgentReport, found: Detected, options: SetupOptions): Promise<void> {
  const host = hostById(found.id)!;
  const installer = (await installerOf(host))!;
  const plan = await installer.setup({ home: options.home, env: options.env, cwd: options.cwd, binary: found.binary, uninstall: options.uninstall === true });
  report.command = plan.command;
  report.notes.push(...plan.notes);
  report.changes = options.uninstall
    ? plan.changes.map((c) => ({ file: c.file, entries: ["agentsmd's entries taken out (the file's earlier bytes back when nothing else changed)"] }))
    : plan.changes;
  if (options.dryRun) {
    report.notes.push(...(plan.dryRunNotes ?? []));
    return;
  }
  try {
    const applied = await plan.apply();
    report.changed = applied.changed;
    report.notes.push(...applied.notes);
    if (applied.status !== undefined) report.status = applied.status;
    Object.assign(report, applied.report ?? {});
  } catch (error) {
    report.error = failure(error);
    return;
  }
  const verify = installer.verify;
  if (options.uninstall || verify === undefined) return;
  const file = verify.userHookFile(options);
  const installed = await readInstalledHook(host.id, verify, file);
  if (installed === null) {
    report.error = { message: `no agentsmd hook found in ${file} after the install`, fix: `run \`agentsmd install ${host.id}\` and check ${file}` };
    return;
  }
  report.verify = await verifyHook(host.id, verify, installed.command, {
    env: options.env,
    home: options.home,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** Writes (or takes out) a plugin host's module file and checks it by importing it as the host does. */
async function setUpPlugin(report: AgentReport, host: HostDefinition, options: SetupOptions): Promise<void> {
  const spec = host.plugin!.file!;
  const where = { home: options.home, env: options.env };
  const file = spec.path(options.home, options.env);
  report.command = file;
  report.changes = [
    {
      file,
      entries: [
        options.uninstall
          ? "the module setup wrote taken out (the file's earlier bytes back, or removed)"
          : `a module re-exporting ${pluginText(spec).split("from ")[1]!.replace(/;\n$/, "")}`,
      ],
    },
  ];
  if (!options.uninstall) report.notes.push(...(spec.notes ?? []));
  if (options.dryRun) return;
  try {
    const applied = options.uninstall ? await uninstallPluginFile(host, where) : await installPluginFile(host, where);
    report.changed = applied.changed;
  } catch (error) {
    report.error = failure(error);
    return;
  }
  if (!options.uninstall) report.verify = await verifyPluginFile(host, where);
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
    const host = hostById(found.id)!;
    const report: AgentReport = { id: found.id, name: host.name, detected: found, kind: host.install ? "hooks" : "plugin", changes: [], notes: [] };
    reports.push(report);
    if (!found.found) report.notes.push(`${host.name} was not found on this machine (no \`${host.bin}\` on PATH, no ${found.configDir})`);
    if (host.install) await setUpHooks(report, found, options);
    else if (host.plugin?.file) await setUpPlugin(report, host, options);
    else if (host.plugin) {
      report.enable = host.plugin.enable(options.home, options.env);
      report.notes.push(
        options.uninstall
          ? `agentsmd setup installs nothing into ${host.name}; take out what you added to enable it`
          : `agentsmd setup does not install ${host.name}'s plugin; to enable it: ${report.enable}`,
      );
    }
  }
  const ok = reports.every((r) => r.error === undefined && (r.verify === undefined || r.verify.ok));
  return { action, dryRun: options.dryRun === true, agents: reports, ok };
}
