/**
 * `HostDefinition`: everything the rest of agentsmd knows about one agent host, declared once in
 * its folder (`src/integrations/<host>/host.ts`) and listed in `integrations/registry.ts`. The CLI
 * (install, uninstall, hook, setup), doctor, explain, tree and the rules layer iterate the registry;
 * nothing outside a host's folder names the host (test/architecture/host-names.test.ts).
 *
 * Definitions are on the hook path (`agentsmd hook <host>` reads the registry): a definition is
 * plain data and small functions. Its heavy parts (the hook runner, the install code) are loaded
 * on use: the hook runner through a literal `import()` (the hook bundle holds every runner), the
 * install code through the {@link ImportAt} its caller hands in, which the hook bundle leaves out.
 *
 * Other slots are added by their owners (a session-log reader, an audit...): add an optional slot
 * with a doc comment, and the code that iterates it.
 */
import type { RuleFormat } from "../../core/schema.js";
import type { HookRunner } from "./deliver.js";
import type { SessionLogReader } from "./log-event.js";
import type { QuietGate, QuietHost } from "./quiet-format.js";
import type { HostHistory, HostHistoryContext } from "./held.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** A host-specific flag of `agentsmd hook <host>`, handed to the runner under `name`. */
interface HookFlag {
  name: string;
  /** Commander syntax, e.g. "--agents-md <mode>". */
  flags: string;
  description: string;
  /** Allowed values; another value is reported and ignored. */
  choices?: readonly string[];
}

/** `agentsmd hook <host>`: the runner a host's hook entries call. */
export interface HostHook {
  /** One line for `agentsmd hook --help`. */
  description: string;
  flags?: readonly HookFlag[];
  /** Loads the host's runner (a dynamic import, so other hosts' code never runs). */
  load(): Promise<HookRunner>;
  /**
   * The host's part of the quiet stage (host/quiet-format.ts `QuietHost`: its tool events'
   * conversation and targets without zod), in `<host>/quiet.ts`: scripts/build-hook.mjs bundles
   * it into `dist/hook/agentsmd-quiet-<host>.cjs`, which answers a certified quiet tool event
   * before the host's bundle loads; the engine then certifies for this host. `gate`: what the
   * launcher checks in the raw event before it loads that bundle (the build writes it into dist/hook/hook.cjs).
   */
  quiet?: { load(): Promise<QuietHost>; gate: QuietGate };
}

/** A host-specific option of `agentsmd install <host>` (e.g. Codex's `--trust`), as data. */
interface InstallOption {
  /** The key in `InstallRequest.options` (commander's camelCase of the flag). */
  name: string;
  /** Commander syntax: "--trust" (a switch) or "--codex-bin <path>" (a value). */
  flags: string;
  /** Help text; `agentsmd install --help` prefixes it with the host's id. */
  description: string;
  /** A value that is a path: resolved against the working directory before the installer sees it. */
  path?: boolean;
}

/** What `agentsmd install|uninstall <host>` hands a host's installer. */
export interface InstallRequest {
  /** One of the definition's `install.scopes`. */
  scope: string;
  /** The project (`--cwd`, absolute). */
  projectDir: string;
  home: string;
  env: Env;
  /** `--command`: what the hooks run instead of the default, without "hook <host>". */
  command?: string;
  /** The host's own options (`install.options`), by name. */
  options: Readonly<Record<string, string | boolean | undefined>>;
}

/** What an install or uninstall did, for the CLI to print without knowing the host. */
export interface InstallOutcome {
  changed: boolean;
  /** stdout lines (paths already quoted). */
  lines: string[];
  /** stderr notes (the project scope's caveat...), each one line. */
  notes: string[];
  /** The command the hooks run (for the CLI's note on a command that calls `agentsmd` by name). */
  command?: string;
  /** The installer's own result, printed as is with `--json`. */
  json: unknown;
}

/** One file `agentsmd setup` changes and the entries it adds (or takes out). */
export interface PlannedChange {
  file: string;
  entries: string[];
}

/** What `agentsmd setup` hands an installer: user scope always. */
interface SetupRequest {
  home: string;
  env: Env;
  /** The directory setup runs in (no project file is written). */
  cwd: string;
  /** The host's executable found on PATH, or null. */
  binary: string | null;
  uninstall: boolean;
}

/** A user-scope install (or uninstall) as setup shows it, then applies it. */
interface SetupPlan {
  /** The command the hooks run. */
  command: string;
  changes: PlannedChange[];
  /** Lines for the user, shown in a dry run too. */
  notes: string[];
  /** Lines shown only in a dry run (what `apply` would have said). */
  dryRunNotes?: string[];
  /** Does it. Throws an `AgentsMdError` (message and fix) when it cannot. */
  apply(): Promise<SetupApplied>;
}

export interface SetupApplied {
  changed: boolean;
  /** Lines for the user after the change (what to run next). */
  notes: string[];
  /** One status line (e.g. "trusted in Codex (3 hooks, through app-server)"). */
  status?: string;
  /** Host-specific facts merged into setup's JSON report (e.g. `{ trust: {...} }`). */
  report?: Record<string, unknown>;
}

/** An installed hook command, as read back from the host's configuration. */
export interface InstalledHook {
  host: string;
  /** The file it was read from. */
  file: string;
  /** The event whose command it is (the one the check sends). */
  event: string;
  command: string;
}

/** The read-back check of an installed hook (setup and doctor): the host's event and answer shape. */
export interface HostVerify {
  /** The user-scope file agentsmd's hooks live in. */
  userHookFile(where: { home: string; env: Env }): string;
  /** Project-scope files agentsmd's hooks may be in (doctor's static check). */
  projectHookFiles(projectDir: string): string[];
  /** The event the check sends and the tool it names, as shown to the user. */
  event: string;
  tool: string;
  /**
   * Where the host reads the context text: `hookSpecificOutput.additionalContext`, a top-level
   * `additionalContext` ("top"), or a top-level `contextModification` (Cline).
   */
  answer: "hookSpecificOutput" | "top" | "contextModification";
  /** The project-directory variables the host sets for its hooks. */
  projectDirVars: readonly string[];
  /** True for agentsmd's command of the checked event (as the host's config holds it). */
  isOurs(command: string): boolean;
  /** The event on stdin: a tool read `target` in the project `dir`. */
  payload(dir: string, target: string): Record<string, unknown>;
}

/** The install code of a host: loaded only by the CLI (never on the hook path). */
export interface HostInstaller {
  install(request: InstallRequest): Promise<InstallOutcome>;
  uninstall(request: InstallRequest): Promise<InstallOutcome>;
  /** `agentsmd setup`: the user-scope install (or uninstall), planned. */
  setup(request: SetupRequest): Promise<SetupPlan>;
  /** The hook check; absent for a host whose install adds no hook (Continue CLI: an MCP server entry). */
  verify?: HostVerify;
  /** Doctor: findings of the host's own about agentsmd's installed hooks (Codex: untrusted or stale). */
  findings?(where: { home: string; env: Env }): Promise<InstalledFinding[]>;
}

/** A doctor finding about an installed hook (inspect/doctor.ts `Finding`). */
interface InstalledFinding {
  code: string;
  severity: "error" | "warning" | "info";
  path: string;
  message: string;
  fix: string;
}

/** `agentsmd install <host>`: hooks agentsmd writes into the host's configuration. */
interface HostInstall {
  /** One phrase for `agentsmd install --help`: what is written where. */
  summary: string;
  /** The scopes, the first the default ("user": the one that works from every directory). */
  scopes: readonly string[];
  /** Per scope, the file written (for `--scope` help), e.g. `{ user: "~/.claude/settings.json" }`. */
  files: Readonly<Record<string, string>>;
  options?: readonly InstallOption[];
  /** Loads the install code through `importAt` (see {@link ImportAt}). */
  load(importAt: ImportAt): Promise<HostInstaller>;
}

/**
 * The check of a written plugin module (setup): the module as the host imported it, fed a read of
 * `target` in the project `dir` the way the host calls it; the text the model would get, or
 * undefined when the module answered nothing.
 */
export type PluginCheck = (module: unknown, at: { dir: string; target: string; stateDir: string }) => Promise<string | undefined>;

/** A host that loads agentsmd itself as a plugin or extension (no `install` of agentsmd's). */
interface HostPlugin {
  /** The line that enables agentsmd by hand (another scope, another copy of agentsmd). */
  enable(home: string, env: Env): string;
  /**
   * `agentsmd setup`: the user-scope module file the host loads by itself (never the project's:
   * nothing lands in a repository or its node_modules), re-exporting this package's `entry`.
   */
  file?: {
    path(home: string, env: Env): string;
    /** The built module the file re-exports, relative to the package root. */
    entry: string;
    /** How the file names it: a `file:` URL (Bun's import) or an absolute path (pi's jiti). */
    specifier: "url" | "path";
    /** A line the host requires in a plugin file before it loads it, written after setup's header. */
    preamble?: string;
    /** Lines setup prints after writing the file (how to start the host with plugins on). */
    notes?: readonly string[];
    /** The event the check sends, as shown to the user ("tool.execute.after read"). */
    event: string;
    /** Loads the check through `importAt` (see {@link ImportAt}): never in the hook bundle. */
    check(importAt: ImportAt): Promise<PluginCheck>;
  };
}

/** A hook file a host reads (doctor's `hook-misread`): one path, or every `*.json` of a directory. */
interface HookFileSpec {
  path?: string;
  dir?: string;
  scope: "user" | "project";
  /** The host reads this file though another host owns it (runs it with its own events). */
  foreign?: boolean;
}

/** What doctor knows of a host. */
interface HostDoctor {
  /** Instruction files (names or root-relative paths) that show a repository is set up for the host. */
  names?: readonly string[];
  /** Top-level entries of the root that show the same. */
  rootEntries?: readonly string[];
  /** Presets these signs mark as used besides the host's own `preset`. */
  presets?: readonly string[];
  /** The host's own setting that makes it read AGENTS.md (doctor's `agents-disagree` fix). */
  readAgentsMd?: string;
  /** The files the host reads hooks from, for the hook-entry checks. */
  hookFiles?(context: { root: string; home: string; env: Env }): readonly HookFileSpec[];
  /** The host reads a hook's `timeout` as milliseconds (others: seconds). */
  timeoutMs?: boolean;
  /**
   * The host runs the hooks of a file it reads as a foreigner, and the owner's agentsmd hook
   * recognises its events and stays silent there: an info finding with this code and fix.
   */
  runsForeignHooks?: { code: string; fix: string };
  /**
   * agentsmd's hooks only in a project file of this host (none in the user's): a warning with this
   * code, the message's reason and the fix. `pluginKey`: a user settings key whose entries
   * starting with "agentsmd" count as installed too (a plugin).
   */
  projectOnly?: { code: string; reason: string; fix: string; pluginKey?: string };
}

/** `agentsmd audit`: how the host's own session logs are read (docs/audit.md). */
export interface HostSessionLog {
  /** The preset agentsmd delivers with for this host (absent: agentsmd's default); what the host loads itself is `preset`. */
  deliveryPreset?: string;
  /** The host itself delivers what its preset loads when a path is touched (nested files). */
  hostTouches: boolean;
  /** The command that delivers what the audit found missed. */
  fix: string;
  /** Loads the reader through `importAt` (see {@link ImportAt}): never in the hook bundle. */
  load(importAt: ImportAt): Promise<SessionLogReader>;
}

/**
 * `agentsmd mcp --preset <the host's preset>` serving this host: the host's own record of the
 * conversation, read at each tool call (host/held.ts), so a resumed history or a compaction counts.
 */
interface HostMcp {
  /** Loads the reader through `importAt` (see {@link ImportAt}): never in the hook bundle. */
  load(importAt: ImportAt): Promise<(context: HostHistoryContext) => HostHistory>;
}

export interface HostDefinition {
  /** The id: `agentsmd hook <id>`, `install <id>`, its state directory and folder. Lowercase words and dashes. */
  id: string;
  /** The name people know it by ("Claude Code"). */
  name: string;
  /** Its executable on PATH (setup's detection; setup also takes it as the host's name). */
  bin?: string;
  /** Its configuration directory (setup's detection). */
  configDir?(home: string, env: Env): string;
  /** The preset of what the host loads itself (src/presets/), when one models it. */
  preset?: string;
  /** Scoped-rule formats it reads itself: agentsmd never delivers those to it. */
  nativeRuleFormats: readonly RuleFormat[];
  hook?: HostHook;
  install?: HostInstall;
  plugin?: HostPlugin;
  doctor?: HostDoctor;
  sessionLog?: HostSessionLog;
  mcp?: HostMcp;
}

/**
 * Loads a module of a host's folder by URL (`base` the definition's `import.meta.url`). The caller
 * hands it in (host/installers.ts `installerOf`): the hook bundle holds no module loader, and the
 * bundler, seeing no literal `import("./installer.js")`, leaves the install code out of it.
 */
type ImportAt = <T>(base: string, path: string) => Promise<T>;
