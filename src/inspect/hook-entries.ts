/**
 * Doctor checks on the hook entries agentsmd installs: where each host reads hooks from (each
 * registered host's `doctor.hookFiles`), and which entries a host will mis-read or never run.
 *
 * - `hook-misread` (warning): an `agentsmd hook <host>` entry in a file another host reads (and
 *   runs with its own events).
 * - a host's `runsForeignHooks` code (info): a host also runs the hooks of a file another host
 *   owns, where the owner's agentsmd hook stays silent (Copilot CLI and the project's Claude Code
 *   settings): that host needs its own install.
 * - a host's `projectOnly` code (warning): agentsmd's hooks only in the project's file of a host
 *   that does not read it from a subdirectory.
 */
import { readJsonQuietly, type FileSystem } from "../io/file-system.js";
import { quote } from "../core/quote.js";
import { join } from "../core/paths.js";
import type { HostDefinition } from "../integrations/host/definition.js";
import { hookCommands } from "../integrations/host/hook-commands.js";
import { hostById, hostDefinitions } from "../integrations/registry.js";

/** A doctor finding (doctor.ts `Finding`, declared here so neither module imports the other). */
export interface HookFinding {
  code: string;
  severity: "error" | "warning" | "info";
  path: string;
  agents?: string[];
  message: string;
  fix: string;
}

/** The host an `agentsmd hook <host>` command names, if it is a registered hook host. */
function hookHostOf(command: string): HostDefinition | undefined {
  const id = /(?:^|\s)hook\s+([a-z][a-z0-9-]*)(?=\s|$)/.exec(command)?.[1];
  const host = id === undefined ? undefined : hostById(id);
  return host?.hook ? host : undefined;
}

interface HookFile {
  path: string;
  /** Hosts that run the hooks of this file, the first being the one it is written for. */
  readers: HostDefinition[];
  scope: "user" | "project";
}

async function hookFiles(fs: FileSystem, root: string, home: string, env: Readonly<Record<string, string | undefined>>): Promise<HookFile[]> {
  const files = new Map<string, HookFile>();
  const add = (path: string, host: HostDefinition, scope: "user" | "project", foreign: boolean) => {
    const file = files.get(path) ?? { path, readers: [], scope };
    if (foreign) file.readers.push(host);
    else file.readers.unshift(host);
    files.set(path, file);
  };
  for (const host of hostDefinitions())
    for (const spec of host.doctor?.hookFiles?.({ root, home, env }) ?? []) {
      if (spec.path !== undefined) add(spec.path, host, spec.scope, spec.foreign === true);
      if (spec.dir !== undefined) {
        const entries = await fs.readdir(spec.dir).catch(() => []);
        for (const entry of entries.slice(0, 256))
          if (entry.name.endsWith(".json") && entry.kind !== "directory") add(join(spec.dir, entry.name), host, spec.scope, spec.foreign === true);
      }
    }
  return [...files.values()];
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
  /** Per host with a `projectOnly` check: its first project file with agentsmd's hooks, and whether the user's has them. */
  const placed = new Map<HostDefinition, { project: string | null; user: boolean }>();
  const place = (host: HostDefinition) => placed.get(host) ?? placed.set(host, { project: null, user: false }).get(host)!;
  for (const file of await hookFiles(fs, root, home, env)) {
    const document = await readJsonQuietly(fs, file.path);
    if (document === undefined) continue;
    const owner = file.readers[0]!;
    const pluginKey = owner.doctor?.projectOnly?.pluginKey;
    const plugins = pluginKey === undefined ? undefined : (document as Record<string, unknown> | null)?.[pluginKey];
    if (file.scope === "user" && plugins && typeof plugins === "object" && Object.keys(plugins).some((id) => id.startsWith("agentsmd")))
      place(owner).user = true;
    const reported = new Set<HostDefinition>();
    const commands = hookCommands(document);
    for (const { command, timeout } of commands) {
      const host = hookHostOf(command);
      if (host === undefined || reported.has(host)) continue;
      if (host === owner) {
        if (file.scope === "user") place(owner).user = true;
        else place(owner).project ??= file.path;
      }
      // A foreign reader whose events the owner's hook recognises (and stays silent on): reported as info below.
      const others = file.readers.filter((reader) => reader !== host && !(host === owner && reader.doctor?.runsForeignHooks));
      if (others.length === 0) continue;
      reported.add(host);
      const readers = others.map((reader) => reader.name).join(" and ");
      const plural = others.length === 1 ? "s" : "";
      const milliseconds = others
        .filter((reader) => reader.doctor?.timeoutMs && timeout !== undefined && timeout < 1000)
        .map((reader) => ` (and ${reader.name} reads timeout ${timeout} as milliseconds)`)
        .join("");
      add({
        code: "hook-misread",
        severity: "warning",
        path: file.path,
        agents: others.map((reader) => reader.id),
        message: `${quote(file.path)} runs \`agentsmd hook ${host.id}\`, but ${readers} read${plural} this file and run${plural} it with ${others.length === 1 ? "its" : "their"} own events, not ${host.name}'s${milliseconds}`,
        fix: `remove that entry; install agentsmd for each host in its own place: \`agentsmd install ${host.id}\`${others[0] !== host ? ` and \`agentsmd install ${others[0]!.id}\`` : ""}`,
      });
    }
    if (!commands.some(({ command }) => hookHostOf(command) === owner)) continue;
    for (const reader of file.readers.slice(1)) {
      const silent = reader.doctor?.runsForeignHooks;
      if (silent === undefined) continue;
      add({
        code: silent.code,
        severity: "info",
        path: file.path,
        agents: [reader.id],
        message: `${reader.name} also runs the \`agentsmd hook ${owner.id}\` entries of ${quote(file.path)}; that hook recognises ${reader.name}'s events and stays silent there`,
        fix: silent.fix,
      });
    }
  }
  for (const [host, { project, user }] of placed) {
    const check = host.doctor?.projectOnly;
    if (check === undefined || project === null || user) continue;
    add({
      code: check.code,
      severity: "warning",
      path: project,
      agents: [host.preset ?? host.id],
      message: `agentsmd's ${host.name} hooks are only in ${quote(project)}: ${check.reason} (a session started below ${quote(root)}), so nothing is delivered there`,
      fix: check.fix,
    });
  }
}
