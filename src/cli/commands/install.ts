/**
 * `agentsmd install <host>` / `agentsmd uninstall <host>`: register agentsmd with an agent host.
 * The default scope is `user`: the one that works from every directory. Where a host has a
 * project scope, choosing it prints the host's subdirectory caveat (stderr).
 */
import { InvalidArgumentError, type Command } from "commander";
import { countOf } from "../../core/words.js";
import { homedir } from "node:os";
import type { CommandContext } from "../context.js";
import { absolute, homeFromEnv } from "../../core/paths.js";
import { INSTALL_SCOPES, installClaudeCode, uninstallClaudeCode, type InstallScope } from "../../integrations/claude-code/install.js";
import { quote as quoteForTerminal } from "../../core/quote.js";
import { hostById, installableHosts } from "../../integrations/registry.js";
import { installerOf } from "../../integrations/host/installers.js";

const HOSTS = ["claude-code", "codex", "copilot", "gemini", "qwen"];

/** Hosts of the registry whose install this command reaches only through their definition. */
function registryHosts(): string[] {
  return installableHosts()
    .map((host) => host.id)
    .filter((id) => !HOSTS.includes(id));
}

function parseScope(value: string): InstallScope {
  if (!(INSTALL_SCOPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`use one of ${INSTALL_SCOPES.join(", ")}`);
  return value as InstallScope;
}

function parseHost(value: string): string {
  if (!HOSTS.includes(value) && !registryHosts().includes(value))
    throw new InvalidArgumentError(
      `supported: ${[...HOSTS, ...registryHosts()].join(", ")}. OpenCode, Kilo Code and pi load agentsmd as a plugin (\`agentsmd setup\` prints the line for each); any other MCP host can register \`agentsmd mcp\``,
    );
  return value;
}

export function registerInstall(program: Command, context: CommandContext): void {
  const where = (command: Command) => {
    const globals = context.globals(command);
    return {
      projectDir: absolute(globals.cwd ?? context.io.cwd, context.io.cwd),
      home: globals.home !== undefined ? absolute(globals.home, context.io.cwd) : homeFromEnv(context.io.env, homedir),
      env: context.io.env,
    };
  };
  const scopeHelp =
    "user (default, works from every directory): ~/.claude/settings.json, ~/.copilot/hooks/agentsmd.json, ~/.gemini/extensions/agentsmd/, ~/.qwen/settings.json; project: <cwd>/.claude/settings.json, <cwd>/.github/hooks/agentsmd.json, <cwd>/.gemini/settings.json, <cwd>/.qwen/settings.json; local (claude-code): <cwd>/.claude/settings.local.json";

  program
    .command("install")
    .description(
      "register agentsmd with an agent host: claude-code (hook entries in a Claude Code settings.json), codex (hooks in $CODEX_HOME/hooks.json), copilot (a hooks file of its own in ~/.copilot/hooks), gemini (a Gemini CLI extension), qwen (hooks in a Qwen Code settings.json)",
    )
    .argument("<host>", `host: ${HOSTS.join(", ")}`, parseHost)
    .option("--scope <scope>", scopeHelp, parseScope, "user")
    .option(
      "--command <command>",
      "command the hooks run, without \"hook <host>\" (default: for project/local scope the project's own node_modules/agentsmd, relative to the project, else `agentsmd` by name; for user scope `node` from PATH and this package's dist/hook/hook.cjs)",
    )
    .option("--trust", "codex: also record Codex's trust for exactly agentsmd's hooks (through `codex app-server` when codex is on PATH, else in config.toml)")
    .option("--codex-bin <path>", "codex: the codex executable used for --trust (default: codex on PATH)")
    .action(async (host: string, options: { scope: InstallScope; command?: string; trust?: boolean; codexBin?: string }, command: Command) => {
      if (!HOSTS.includes(host)) return registryCommand(context, command, host, where(command), "install", options);
      if (host === "codex") return installCodexCommand(context, command, options);
      if (host === "copilot") return copilotCommand(context, command, where(command), "install", options);
      if (host === "gemini" || host === "qwen") return installHookHostCommand(context, command, host, where(command), options);
      const result = await installClaudeCode({
        ...where(command),
        scope: options.scope,
        ...(options.command ? { command: `${options.command.trim()} hook claude-code` } : {}),
      });
      if (context.globals(command).json) context.json(result);
      else if (result.changed)
        context.out(`agentsmd: added the Claude Code hooks (SessionStart, PostToolUse, UserPromptSubmit) to ${result.file}\n  command: ${result.command}`);
      else context.out(`agentsmd: ${result.file} already has the agentsmd hooks; nothing changed`);
      if (options.scope !== "user") await byNameNote(context, result.command, where(command).projectDir);
      if (options.scope !== "user")
        context.io.stderr(
          `note: Claude Code (2.1.328 and later) reads ${quoteForTerminal(result.file)} only when started in ${quoteForTerminal(where(command).projectDir)} itself: a session started in a subdirectory gets nothing from agentsmd. For every directory use the default user scope (\`agentsmd install claude-code\`) or the plugin folder (\`claude --plugin-dir <agentsmd>/claude-plugin\`).\n`,
        );
    });

  program
    .command("uninstall")
    .description("remove what `agentsmd install <host>` added, and nothing else")
    .argument("<host>", `host: ${HOSTS.join(", ")}`, parseHost)
    .option("--scope <scope>", scopeHelp, parseScope, "user")
    .action(async (host: string, options: { scope: InstallScope }, command: Command) => {
      if (!HOSTS.includes(host)) return registryCommand(context, command, host, where(command), "uninstall", options);
      if (host === "codex") return uninstallCodexCommand(context, command);
      if (host === "copilot") return copilotCommand(context, command, where(command), "uninstall", options);
      if (host === "gemini" || host === "qwen") return uninstallHookHostCommand(context, command, host, where(command), options);
      const result = await uninstallClaudeCode({ ...where(command), scope: options.scope });
      if (context.globals(command).json) context.json(result);
      else if (result.changed) context.out(`agentsmd: removed the agentsmd hooks from ${result.file}`);
      else context.out(`agentsmd: no agentsmd hooks in ${result.file}; nothing changed`);
    });
}

function userHome(context: CommandContext, command: Command): string {
  const globals = context.globals(command);
  return globals.home !== undefined ? absolute(globals.home, context.io.cwd) : homeFromEnv(context.io.env, homedir);
}

function codexHome(context: CommandContext, command: Command): Promise<string> {
  return import("../../integrations/codex/install.js").then(({ codexHomeDir }) =>
    absolute(codexHomeDir(context.io.env, userHome(context, command)), context.io.cwd),
  );
}

async function installCodexCommand(
  context: CommandContext,
  command: Command,
  options: { command?: string; trust?: boolean; codexBin?: string },
): Promise<void> {
  const { installCodex } = await import("../../integrations/codex/install.js");
  const globals = context.globals(command);
  const result = await installCodex({
    codexHome: await codexHome(context, command),
    home: userHome(context, command),
    ...(options.command ? { command: `${options.command.trim()} hook codex` } : {}),
    trust: options.trust === true,
    ...(options.codexBin ? { codexBin: absolute(options.codexBin, context.io.cwd) } : {}),
    env: context.io.env,
    cwd: absolute(globals.cwd ?? context.io.cwd, context.io.cwd),
  });
  if (globals.json) return context.json(result);
  const q = (s: string) => quoteForTerminal(s);
  const lines = [
    result.changed
      ? `agentsmd: added the Codex hooks (SessionStart, UserPromptSubmit, PostToolUse on Bash|apply_patch) to ${q(result.hooksFile)}`
      : `agentsmd: ${q(result.hooksFile)} already has the agentsmd hooks; nothing changed`,
    `  command: ${q(result.command)}`,
  ];
  if (options.trust) {
    lines.push(
      `agentsmd: trusted ${countOf(result.trusted.length, "hook")} in ${q(result.configFile)} (${result.trustedVia === "app-server" ? "keys and hashes from codex app-server hooks/list, confirmed trusted by it" : "hashes computed by agentsmd; no codex binary found"}):`,
    );
    for (const t of result.trusted) lines.push(`  ${q(t.key)} = ${t.hash}`);
    if (result.hashMismatches.length > 0)
      lines.push(`  note: Codex computed another hash than agentsmd for ${countOf(result.hashMismatches.length, "hook")}; Codex's was recorded`);
  } else {
    lines.push(
      "Codex runs a new hook only after you trust it: open Codex, type /hooks and trust the three agentsmd hooks,",
      "or run `agentsmd install codex --trust` to record that trust now (for exactly these hooks).",
    );
  }
  context.out(lines.join("\n"));
}

async function uninstallCodexCommand(context: CommandContext, command: Command): Promise<void> {
  const { uninstallCodex } = await import("../../integrations/codex/install.js");
  const result = await uninstallCodex({ codexHome: await codexHome(context, command), home: userHome(context, command), env: context.io.env });
  if (context.globals(command).json) return context.json(result);
  context.out(
    result.changed.length > 0
      ? `agentsmd: took agentsmd's hooks and their trust out of ${result.changed.map((f) => quoteForTerminal(f)).join(" and ")} (restored byte for byte where nothing else changed)`
      : `agentsmd: no agentsmd hooks in ${quoteForTerminal(result.hooksFile)}; nothing changed`,
  );
}

async function copilotCommand(
  context: CommandContext,
  command: Command,
  where: { projectDir: string; home: string; env: Readonly<Record<string, string | undefined>> },
  action: "install" | "uninstall",
  options: { scope: string; command?: string },
): Promise<void> {
  if (options.scope !== "user" && options.scope !== "project") throw new InvalidArgumentError(`copilot has the scopes user and project, not ${options.scope}`);
  const { installCopilot, uninstallCopilot } = await import("../../integrations/copilot/install.js");
  const scope = options.scope;
  const result =
    action === "install"
      ? await installCopilot({ ...where, scope, ...(options.command ? { command: options.command.trim() } : {}) })
      : await uninstallCopilot({ ...where, scope });
  if (context.globals(command).json) context.json(result);
  else if (action === "uninstall")
    context.out(
      result.changed
        ? `agentsmd: removed ${quoteForTerminal(result.file)}`
        : `agentsmd: no agentsmd hooks in ${quoteForTerminal(result.file)}; nothing changed`,
    );
  else if (result.changed)
    context.out(
      `agentsmd: added the GitHub Copilot CLI hooks (sessionStart, userPromptSubmitted, postToolUse, preCompact) in ${quoteForTerminal(result.file)}\n  command: ${quoteForTerminal(result.command ?? "")}`,
    );
  else context.out(`agentsmd: ${quoteForTerminal(result.file)} already has the agentsmd hooks; nothing changed`);
  if (action === "install" && scope === "project") await byNameNote(context, result.command, where.projectDir);
  if (action === "install" && scope === "project")
    context.io.stderr(
      `note: GitHub Copilot CLI loads ${quoteForTerminal(result.file)} only when started in ${quoteForTerminal(where.projectDir)} itself, or when that directory is a trusted folder (\`--trust-folder\` trusts only the directory Copilot starts in): a session started in a subdirectory gets nothing from agentsmd. For every directory use the default user scope (\`agentsmd install copilot\`).\n`,
    );
}

type Where = { projectDir: string; home: string; env: Readonly<Record<string, string | undefined>> };

const HOOK_HOSTS = {
  gemini: { name: "Gemini CLI", events: "SessionStart, BeforeAgent, AfterTool, PreCompress" },
  qwen: { name: "Qwen Code", events: "SessionStart, PostToolUse, UserPromptSubmit" },
} as const;

function hostScope(host: "gemini" | "qwen", scope: InstallScope, command: Command): "user" | "project" {
  if (scope === "local") command.error(`error: ${HOOK_HOSTS[host].name} has no local scope: use --scope user or --scope project`, { exitCode: 2 });
  return scope as "user" | "project";
}

async function installHookHostCommand(
  context: CommandContext,
  command: Command,
  host: "gemini" | "qwen",
  where: Where,
  options: { scope: InstallScope; command?: string },
): Promise<void> {
  const scope = hostScope(host, options.scope, command);
  const own = options.command ? { command: `${options.command.trim()} hook ${host}` } : {};
  const result =
    host === "gemini"
      ? await (await import("../../integrations/gemini/install.js")).installGemini({ ...where, scope, ...own })
      : await (await import("../../integrations/qwen/install.js")).installQwen({ ...where, scope, ...own });
  if (context.globals(command).json) return context.json({ ...result, scope });
  const q = (s: string) => quoteForTerminal(s);
  if (scope === "project") await byNameNote(context, result.command, where.projectDir);
  if (!result.changed) return context.out(`agentsmd: ${q(result.file)} already has the agentsmd hooks; nothing changed`);
  context.out(`agentsmd: added the ${HOOK_HOSTS[host].name} hooks (${HOOK_HOSTS[host].events}) in ${q(result.file)}\n  command: ${q(result.command ?? "")}`);
}

async function uninstallHookHostCommand(
  context: CommandContext,
  command: Command,
  host: "gemini" | "qwen",
  where: Where,
  options: { scope: InstallScope },
): Promise<void> {
  const scope = hostScope(host, options.scope, command);
  const result =
    host === "gemini"
      ? await (await import("../../integrations/gemini/install.js")).uninstallGemini({ ...where, scope })
      : await (await import("../../integrations/qwen/install.js")).uninstallQwen({ ...where, scope });
  if (context.globals(command).json) return context.json({ ...result, scope });
  const q = (s: string) => quoteForTerminal(s);
  if (!result.changed) return context.out(`agentsmd: no agentsmd hooks in ${q(result.file)}; nothing changed`);
  context.out(`agentsmd: removed the agentsmd hooks from ${q(result.file)}`);
}

/**
 * A project-scope hook that calls `agentsmd` by name (the project has no copy of its own) works
 * only where `agentsmd` is on PATH: say so when it is not here.
 */
async function byNameNote(context: CommandContext, hookCommand: string | undefined, projectDir: string): Promise<void> {
  if (hookCommand === undefined || !/^agentsmd(\s|$)/.test(hookCommand)) return;
  const { findOnPath } = await import("../../integrations/setup/agents.js");
  if ((await findOnPath("agentsmd", context.io.env)) !== null) return;
  context.io.stderr(
    `note: the hooks call \`agentsmd\` by name (${quoteForTerminal(projectDir)} has no node_modules/agentsmd of its own), and no agentsmd is on PATH here: run \`npm install -D agentsmd\` in the project and install again (the hooks then run the project's copy), or \`npm install -g agentsmd\`\n`,
  );
}

/** install/uninstall of a host known only through its registry definition (its installer says what it did). */
async function registryCommand(
  context: CommandContext,
  command: Command,
  id: string,
  where: { projectDir: string; home: string; env: Readonly<Record<string, string | undefined>> },
  action: "install" | "uninstall",
  options: { scope: string; command?: string },
): Promise<void> {
  const host = hostById(id)!;
  const scopes = host.install?.scopes ?? [];
  if (!scopes.includes(options.scope)) throw new InvalidArgumentError(`${id} has the scopes ${scopes.join(" and ")}, not ${options.scope}`);
  const installer = (await installerOf(host))!;
  const request = { ...where, scope: options.scope, ...(options.command ? { command: options.command.trim() } : {}), options: {} };
  const outcome = action === "install" ? await installer.install(request) : await installer.uninstall(request);
  if (context.globals(command).json) context.json(outcome.json);
  else context.out(outcome.lines.join("\n"));
  for (const note of outcome.notes) context.io.stderr(`${note}\n`);
}
