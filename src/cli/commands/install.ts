/**
 * `agentsmd install <host>` / `agentsmd uninstall <host>`: register agentsmd with an agent host.
 * The hosts, their scopes, options and messages come from the host registry (each host's
 * `install` slot and installer); this module knows no host. The default scope is `user`: the one
 * that works from every directory. A project scope prints the host's caveat (stderr).
 */
import { InvalidArgumentError, type Command } from "commander";
import { homedir } from "node:os";
import type { CommandContext } from "../context.js";
import { absolute, homeFromEnv } from "../../core/paths.js";
import { quote as quoteForTerminal } from "../../core/quote.js";
import type { InstallRequest } from "../../integrations/host/definition.js";
import { hostById, hostDefinitions, installableHosts } from "../../integrations/registry.js";

type Installable = ReturnType<typeof installableHosts>[number];

/** The installable hosts by id (the order help and messages list them in). */
const byId = (): Installable[] => [...installableHosts()].sort((a, b) => a.id.localeCompare(b.id));

/** Every scope some host has, in first-seen order ("user" first). */
function allScopes(): string[] {
  return [...new Set(byId().flatMap((host) => host.install.scopes))];
}

function parseScope(value: string): string {
  const scopes = allScopes();
  if (!scopes.includes(value)) throw new InvalidArgumentError(`use one of ${scopes.join(", ")}`);
  return value;
}

function listed(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

function parseHost(value: string): string {
  if (installableHosts().some((host) => host.id === value)) return value;
  const plugins = hostDefinitions().filter((host) => host.plugin !== undefined);
  throw new InvalidArgumentError(
    `supported: ${byId()
      .map((host) => host.id)
      .join(
        ", ",
      )}.${plugins.length > 0 ? ` ${listed(plugins.map((host) => host.name))} load agentsmd as a plugin (\`agentsmd setup <host>\` writes it in the user's plugin folder);` : ""} any other MCP host can register \`agentsmd mcp\``,
  );
}

/** `--scope` help: per scope, the file each host writes (hosts named where not every host has it). */
function scopeHelp(): string {
  const hosts = byId();
  return allScopes()
    .map((scope, index) => {
      const having = hosts.filter((host) => host.install.files[scope] !== undefined);
      const who = having.length < hosts.length && scope !== "user" && having.length <= 2 ? ` (${having.map((host) => host.id).join(", ")})` : "";
      return `${scope}${index === 0 ? " (default, works from every directory)" : ""}${who}: ${having.map((host) => host.install.files[scope]).join(", ")}`;
    })
    .join("; ");
}

export function registerInstall(program: Command, context: CommandContext): void {
  const hosts = byId();
  const hostHelp = `host: ${hosts.map((host) => host.id).join(", ")}`;
  const install = program
    .command("install")
    .description(`register agentsmd with an agent host: ${hosts.map((host) => `${host.id} (${host.install.summary})`).join(", ")}`)
    .argument("<host>", hostHelp, parseHost)
    .option("--scope <scope>", scopeHelp(), parseScope, "user")
    .option(
      "--command <command>",
      "command the hooks run, without \"hook <host>\" (default: for project/local scope the project's own node_modules/agentsmd, relative to the project, else `agentsmd` by name; for user scope `node` from PATH and this package's dist/hook/hook.cjs)",
    );
  for (const host of hosts) for (const option of host.install.options ?? []) install.option(option.flags, `${host.id}: ${option.description}`);
  install.action(async (id: string, options: Record<string, unknown>, command: Command) => {
    const host = hostById(id) as Installable;
    const request = requestFor(context, command, host, options);
    const outcome = await (await loadInstaller(host)).install(request);
    if (context.globals(command).json) context.json(outcome.json);
    else context.out(outcome.lines.join("\n"));
    if (request.scope !== "user") await byNameNote(context, outcome.command, request.projectDir);
    for (const note of outcome.notes) context.io.stderr(`${note}\n`);
  });

  program
    .command("uninstall")
    .description("remove what `agentsmd install <host>` added, and nothing else")
    .argument("<host>", hostHelp, parseHost)
    .option("--scope <scope>", scopeHelp(), parseScope, "user")
    .action(async (id: string, options: Record<string, unknown>, command: Command) => {
      const host = hostById(id) as Installable;
      const outcome = await (await loadInstaller(host)).uninstall(requestFor(context, command, host, options));
      if (context.globals(command).json) context.json(outcome.json);
      else context.out(outcome.lines.join("\n"));
      for (const note of outcome.notes) context.io.stderr(`${note}\n`);
    });
}

async function loadInstaller(host: Installable) {
  const { installerOf } = await import("../../integrations/host/installers.js");
  return (await installerOf(host))!;
}

/** The request for `host` from the parsed options: its scope checked, its own options picked (paths resolved). */
function requestFor(context: CommandContext, command: Command, host: Installable, options: Record<string, unknown>): InstallRequest {
  const globals = context.globals(command);
  const scope = typeof options.scope === "string" ? options.scope : "user";
  if (!host.install.scopes.includes(scope))
    command.error(`error: ${host.name} has no ${scope} scope: use ${host.install.scopes.map((each) => `--scope ${each}`).join(" or ")}`, { exitCode: 2 });
  const own: Record<string, string | boolean | undefined> = {};
  for (const option of host.install.options ?? []) {
    const value = options[option.name];
    if (typeof value === "string") own[option.name] = option.path ? absolute(value, context.io.cwd) : value;
    else if (typeof value === "boolean") own[option.name] = value;
  }
  for (const other of installableHosts())
    for (const option of other === host ? [] : (other.install.options ?? []))
      if (options[option.name] !== undefined && !(host.install.options ?? []).some((mine) => mine.name === option.name))
        command.error(`error: ${option.flags.split(" ")[0]} is an option of ${other.id}, not of ${host.id}`, { exitCode: 2 });
  return {
    scope,
    projectDir: absolute(globals.cwd ?? context.io.cwd, context.io.cwd),
    home: globals.home !== undefined ? absolute(globals.home, context.io.cwd) : homeFromEnv(context.io.env, homedir),
    env: context.io.env,
    ...(typeof options.command === "string" && options.command.trim() !== "" ? { command: options.command.trim() } : {}),
    options: own,
  };
}

/**
 * A project-scope hook that calls `agentsmd` by name (the project has no copy of its own) works
 * only where `agentsmd` is on PATH: say so when it is not here.
 */
async function byNameNote(context: CommandContext, hookCommand: string | undefined, projectDir: string): Promise<void> {
  if (hookCommand === undefined || !/^agentsmd(\s|$)/.test(hookCommand)) return;
  const { findOnPath } = await import("../../integrations/setup/detect.js");
  if ((await findOnPath("agentsmd", context.io.env)) !== null) return;
  context.io.stderr(
    `note: the hooks call \`agentsmd\` by name (${quoteForTerminal(projectDir)} has no node_modules/agentsmd of its own), and no agentsmd is on PATH here: run \`npm install -D agentsmd\` in the project and install again (the hooks then run the project's copy), or \`npm install -g agentsmd\`\n`,
  );
}
