/**
 * The hosts of bench/turn.ts, each through its e2e harness (e2e/<host>/, e2e/lib/): a fresh
 * project + HOME holding the same small tree, and the same scripted one-tool turn (read a nested
 * file, then answer) against the host's scripted model server. How a configuration is put in place
 * (install, setup, no-op) is bench/turn.ts's; a host says only where and with which arguments.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { startAugmentBackend } from "../e2e/auggie/augment-backend.js";
import { auggieBin, auggieEnv } from "../e2e/auggie/harness.js";
import { createClaudeFixture, ensureClaudeCodeInstalled, runClaude } from "../e2e/claude-code/harness.js";
import { authCline, clineBin, createClineFixture, runCline } from "../e2e/cline/harness.js";
import { buildFixture as buildCodexFixture, scriptedRun as codexRun } from "../e2e/codex-hooks/harness.js";
import { codexEntry } from "../e2e/codex/oracle.js";
import { cnBin, continueConfigText } from "../e2e/continue/harness.js";
import { createCopilotFixture, runCopilot, startCopilotServer } from "../e2e/copilot/harness.js";
import { DROID_EXEC_ARGS, droidBin, droidSettingsText } from "../e2e/droid/harness.js";
import { createGeminiFixture, geminiEntry, runGemini } from "../e2e/gemini-cli/harness.js";
import { KILO_HOST } from "../e2e/kilo/harness.js";
import { startAnthropicServer } from "../e2e/lib/anthropic-server.js";
import { homeEnv, runText } from "../e2e/lib/exec.js";
import { REPO_ROOT } from "../e2e/lib/install.js";
import { startGeminiServer } from "../e2e/lib/gemini-server.js";
import { startOpenAIChatServer } from "../e2e/lib/openai-chat-server.js";
import { createFamilyFixture, type FamilyHost } from "../e2e/lib/opencode-family.js";
import { createRepoHomeTree, dir, type RepoHomeTree } from "../e2e/lib/tree.js";
import { OPENCODE_HOST } from "../e2e/opencode/harness.js";
import { createPiFixture, requirePi } from "../e2e/pi/harness.js";
import { createQwenFixture, qwenEntry, runQwen } from "../e2e/qwen/harness.js";

/** The project every turn runs in: a root and a nested AGENTS.md, and the nested file the turn reads. */
const TURN_FILES: Readonly<Record<string, string>> = {
  "AGENTS.md": "# Root\nTURN-ROOT: two-space indentation.\n",
  "pkg/AGENTS.md": "# pkg\nTURN-PKG: small functions.\n",
  "pkg/sub/AGENTS.md": "# pkg/sub\nTURN-SUB: no default exports.\n",
  "pkg/sub/x.ts": "export const x = 2;\n",
};
/** The file the scripted model reads, relative to the project. */
const TURN_READ = "pkg/sub/x.ts";
const PROMPT = "Work on the task.";
/** Every agent run is killed after this long. */
const TURN_TIMEOUT_MS = 120_000;

/** What a turn left to judge it by. */
interface TurnOutcome {
  ok: boolean;
  /** Why not, with the run's output tails. */
  detail: string;
}

/** One fresh project + HOME of a host. */
export interface HostFixture {
  /** Holds everything below; scanned for the files an install writes. */
  base: string;
  repo: string;
  home: string;
  /** The environment `agentsmd install`/`setup` runs with (this HOME). */
  installEnv: NodeJS.ProcessEnv;
  /** Runs the scripted turn once. */
  turn(): Promise<TurnOutcome>;
  cleanup(): Promise<void>;
}

/** How agentsmd is put in place for a host, as the README says. */
type Installation =
  /** `agentsmd install <id> ...args()`; the no-op is the same install with `--command "node <no-op>"`. */
  | { kind: "hook"; args?: () => Promise<readonly string[]> }
  /** `agentsmd setup <id>` writes a module re-exporting `module`; the no-op re-exports a module that does nothing. */
  | { kind: "plugin"; module: string; noop: "plugin" | "extension" }
  /** `agentsmd install <id>` adds an MCP server; the no-op is the same install with `--command "node <no-op server>"`. */
  | { kind: "mcp" };

export interface TurnHost {
  /** agentsmd's host id. */
  id: string;
  name: string;
  installation: Installation;
  /** Installs the pinned agent when missing; resolves to a version note. */
  ready(): Promise<unknown>;
  fixture(): Promise<HostFixture>;
}

/** What an agent run left, in the shapes the harnesses return. */
interface RunTail {
  code?: number | null;
  exitCode?: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}
const outcome = (ok: boolean, detail: () => string): TurnOutcome => ({ ok, detail: ok ? "" : detail() });
const tails = (run: RunTail, used: unknown): string =>
  `exit ${run.code ?? run.exitCode}${run.timedOut ? " (timed out)" : ""}, script turns used ${String(used)}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-2500)}`;
/** The scripted turn passed: the agent exited 0 after asking the model exactly twice (the tool call, then "done"). */
const twoRequests = (run: RunTail, used: number): TurnOutcome => outcome((run.code ?? run.exitCode) === 0 && used === 2, () => tails(run, used));
/** The plugin hosts' harness passes when the agent exited 0 having used the whole script without a server error. */
const scriptUsedUp = (run: RunTail & { turnsLeft: number; turnsUsed: number; serverErrors: readonly unknown[] }): TurnOutcome =>
  outcome(run.exitCode === 0 && run.turnsLeft === 0 && run.serverErrors.length === 0, () => tails(run, run.turnsUsed));
/** Runs an agent binary in the project, bounded by the turn's timeout. */
const runAgent = (command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) =>
  runText(command, args, { cwd, env, timeoutMs: TURN_TIMEOUT_MS, stderrTail: 20_000 });

/** A server started for one turn: `body` runs against it and it is closed after, whatever happens. */
async function withServer<S extends { close(): Promise<void> }>(server: S, body: (server: S) => Promise<TurnOutcome>): Promise<TurnOutcome> {
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}
const inRepo = (files: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(files).map(([rel, text]) => [`repo/${rel}`, text]));
const DIST = path.join(REPO_ROOT, "dist");

const claudeCode: TurnHost = {
  id: "claude-code",
  name: "Claude Code",
  installation: { kind: "hook" },
  ready: ensureClaudeCodeInstalled,
  async fixture() {
    const fx = await createClaudeFixture({ files: { ...TURN_FILES }, prefix: "agentsmd-turn-cc-" });
    return {
      base: fx.base,
      repo: fx.repo,
      home: fx.home,
      installEnv: homeEnv(fx.home),
      async turn() {
        return withServer(
          await startAnthropicServer({ script: [{ toolUses: [{ name: "Read", input: { file_path: fx.path(TURN_READ) } }] }, { text: "done" }] }),
          async (server) => twoRequests(await runClaude({ fixture: fx, server, prompt: PROMPT, timeoutMs: TURN_TIMEOUT_MS }), server.turnsUsed()),
        );
      },
      cleanup: fx.cleanup,
    };
  },
};

const codex: TurnHost = {
  id: "codex",
  name: "Codex",
  installation: { kind: "hook", args: async () => ["--trust", "--codex-bin", await codexEntry()] },
  ready: codexEntry,
  async fixture() {
    const fx = await buildCodexFixture({ install: false });
    return {
      base: fx.tree.path(""),
      repo: fx.repo,
      home: fx.home,
      installEnv: { ...homeEnv(fx.home), CODEX_HOME: fx.codexHome },
      async turn() {
        // The harness's tree: pkg/sub/x.ts below pkg/AGENTS.override.md and pkg/sub/AGENTS.md.
        const { result, requests } = await codexRun(fx, [{ calls: [{ name: "exec_command", args: { cmd: "cat pkg/sub/x.ts" } }] }, { text: "done" }], {
          cwd: fx.repo,
        });
        const run = { code: result.code, timedOut: result.timedOut, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
        return outcome(result.code === 0 && requests.length >= 2, () => tails(run, requests.length));
      },
      cleanup: fx.cleanup,
    };
  },
};

const gemini: TurnHost = {
  id: "gemini",
  name: "Gemini CLI",
  installation: { kind: "hook" },
  ready: geminiEntry,
  async fixture() {
    const fx = await createGeminiFixture({ ...TURN_FILES });
    return {
      base: fx.tree.path(""),
      repo: fx.repo,
      home: fx.home,
      installEnv: fx.env(),
      async turn() {
        return withServer(
          await startGeminiServer({ script: [{ calls: [{ name: "read_file", args: { file_path: TURN_READ } }] }, { text: "done" }] }),
          async (server) => twoRequests(await runGemini(fx, server, { prompt: PROMPT, timeoutMs: TURN_TIMEOUT_MS }), server.turnsUsed),
        );
      },
      cleanup: () => fx.tree.cleanup(),
    };
  },
};

const copilot: TurnHost = {
  id: "copilot",
  name: "Copilot CLI",
  installation: { kind: "hook" },
  ready: async () => {
    const fx = await createCopilotFixture();
    await fx.cleanup();
  },
  async fixture() {
    const fx = await createCopilotFixture({ files: { ...TURN_FILES }, prefix: "agentsmd-turn-copilot-" });
    return {
      base: fx.base,
      repo: fx.repo,
      home: fx.home,
      installEnv: homeEnv(fx.home),
      async turn() {
        return withServer(await startCopilotServer([{ toolCalls: [{ tool: "view", args: { path: fx.path(TURN_READ) } }] }, { text: "done" }]), async (server) =>
          twoRequests(await runCopilot({ fixture: fx, server, prompt: PROMPT, timeoutMs: TURN_TIMEOUT_MS }), server.turnsUsed),
        );
      },
      cleanup: fx.cleanup,
    };
  },
};

const qwen: TurnHost = {
  id: "qwen",
  name: "Qwen Code",
  installation: { kind: "hook" },
  ready: qwenEntry,
  async fixture() {
    const fx = await createQwenFixture({ ...TURN_FILES });
    return {
      base: fx.tree.path(""),
      repo: fx.repo,
      home: fx.home,
      installEnv: fx.env(),
      async turn() {
        return withServer(
          await startOpenAIChatServer({
            script: [{ toolCalls: [{ tool: "read_file", args: { file_path: fx.path(TURN_READ) } }] }, { text: "done" }],
          }),
          async (server) => twoRequests(await runQwen(fx, server, { prompt: PROMPT, timeoutMs: TURN_TIMEOUT_MS }), server.turnsUsed),
        );
      },
      cleanup: () => fx.tree.cleanup(),
    };
  },
};

const cline: TurnHost = {
  id: "cline",
  name: "Cline",
  installation: { kind: "hook" },
  ready: clineBin,
  async fixture() {
    const fx = await createClineFixture({ ...TURN_FILES });
    // `cline auth` names the server's port: one server per fixture, its script set per turn.
    const server = await startOpenAIChatServer({ script: [] });
    await authCline(fx, server);
    return {
      base: fx.tree.path(""),
      repo: fx.repo,
      home: fx.home,
      installEnv: fx.env(),
      async turn() {
        server.setScript([{ toolCalls: [{ tool: "read_files", args: { files: [{ path: fx.path(TURN_READ) }] } }] }, { text: "done" }]);
        const run = await runCline(fx, { prompt: PROMPT });
        return twoRequests(run, server.turnsUsed);
      },
      async cleanup() {
        await server.close();
        await fx.tree.cleanup();
      },
    };
  },
};

/** A tree with the turn's files under `repo/` and an empty HOME with a state directory. */
function plainFixture(prefix: string, extra: Record<string, ReturnType<typeof dir> | string> = {}): Promise<RepoHomeTree> {
  return createRepoHomeTree({ ...inRepo(TURN_FILES), "repo/.git": dir(), "home/.local/state": dir(), ...extra }, { prefix });
}

/** A plain fixture whose scripted server (or backend) lives as long as the fixture. */
function keptServerFixture(plain: RepoHomeTree, server: { close(): Promise<void> }, turn: () => Promise<TurnOutcome>): HostFixture {
  return {
    base: plain.tree.path(""),
    repo: plain.repo,
    home: plain.home,
    installEnv: homeEnv(plain.home),
    turn,
    async cleanup() {
      await server.close();
      await plain.tree.cleanup();
    },
  };
}

const droid: TurnHost = {
  id: "droid",
  name: "Factory Droid",
  installation: { kind: "hook" },
  ready: droidBin,
  async fixture() {
    const plain = await plainFixture("agentsmd-turn-droid-", { "home/.factory": dir() });
    const { repo, home } = plain;
    const server = await startOpenAIChatServer({ script: [] });
    await writeFile(path.join(home, ".factory", "settings.json"), droidSettingsText(server.baseURL));
    return keptServerFixture(plain, server, async () => {
      server.setScript([{ toolCalls: [{ tool: "Read", args: { file_path: path.join(repo, TURN_READ) } }] }, { text: "done" }]);
      const run = await runAgent(await droidBin(), DROID_EXEC_ARGS, repo, homeEnv(home));
      return twoRequests(run, server.turnsUsed);
    });
  },
};

const auggie: TurnHost = {
  id: "auggie",
  name: "Auggie (fake backend)",
  installation: { kind: "hook" },
  ready: auggieBin,
  async fixture() {
    const plain = await plainFixture("agentsmd-turn-auggie-");
    const { repo, home } = plain;
    const backend = await startAugmentBackend({ script: [] });
    return keptServerFixture(plain, backend, async () => {
      backend.setScript([{ toolCalls: [{ tool: "view", args: { path: TURN_READ } }] }, { text: "done" }]);
      const run = await runAgent(process.execPath, [await auggieBin(), "--print", PROMPT], repo, auggieEnv(home, backend));
      return twoRequests(run, backend.turnsUsed);
    });
  },
};

const continueCli: TurnHost = {
  id: "continue",
  name: "Continue CLI (MCP)",
  installation: { kind: "mcp" },
  ready: cnBin,
  async fixture() {
    const plain = await plainFixture("agentsmd-turn-continue-", { "home/.continue": dir() });
    const { repo, home } = plain;
    const server = await startOpenAIChatServer({ script: [] });
    const config = path.join(home, ".continue", "config.yaml");
    await writeFile(config, continueConfigText(server.baseURL));
    return keptServerFixture(plain, server, async () => {
      server.setScript([{ toolCalls: [{ tool: "Read", args: { filepath: path.join(repo, TURN_READ) } }] }, { text: "done" }]);
      const run = await runAgent(process.execPath, [await cnBin(), "-p", "--auto", "--config", config, PROMPT], repo, homeEnv(home));
      return twoRequests(run, server.turnsUsed);
    });
  },
};

function familyHost(id: string, name: string, host: FamilyHost): TurnHost {
  return {
    id,
    name,
    installation: { kind: "plugin", module: `file://${path.join(DIST, "integrations", id, "index.js")}`, noop: "plugin" },
    ready: host.binary,
    async fixture() {
      const fx = await createFamilyFixture(host, { files: { ...TURN_FILES } });
      const { xdg } = fx;
      return {
        base: fx.base,
        repo: fx.repo,
        home: fx.home,
        installEnv: { ...homeEnv(fx.home), XDG_CONFIG_HOME: xdg.config, XDG_STATE_HOME: xdg.state, XDG_DATA_HOME: xdg.data, XDG_CACHE_HOME: xdg.cache },
        async turn() {
          const run = await fx.run({
            prompt: PROMPT,
            timeoutMs: TURN_TIMEOUT_MS,
            script: [{ toolCalls: [{ tool: "read", args: { filePath: fx.path(TURN_READ) } }] }, { text: "done" }],
          });
          return scriptUsedUp(run);
        },
        cleanup: fx.cleanup,
      };
    },
  };
}

const pi: TurnHost = {
  id: "pi",
  name: "pi",
  installation: { kind: "plugin", module: path.join(DIST, "integrations", "pi", "index.js"), noop: "extension" },
  ready: requirePi,
  async fixture() {
    const fx = await createPiFixture({ files: { ...TURN_FILES } });
    return {
      base: fx.base,
      repo: fx.repo,
      home: fx.home,
      installEnv: { ...homeEnv(fx.home), PI_CODING_AGENT_DIR: fx.agentDir },
      async turn() {
        const run = await fx.run({
          prompt: PROMPT,
          timeoutMs: TURN_TIMEOUT_MS,
          script: [{ toolCalls: [{ tool: "read", args: { path: TURN_READ } }] }, { text: "done" }],
        });
        return scriptUsedUp(run);
      },
      cleanup: fx.cleanup,
    };
  },
};

/** Every host, in the order the table lists them. */
export const TURN_HOSTS: readonly TurnHost[] = [
  claudeCode,
  codex,
  gemini,
  copilot,
  qwen,
  cline,
  droid,
  auggie,
  familyHost("opencode", "OpenCode", OPENCODE_HOST),
  familyHost("kilo", "Kilo Code", KILO_HOST),
  pi,
  continueCli,
];
