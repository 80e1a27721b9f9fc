/**
 * The hook process stays lean: `agentsmd hook <host>` runs once per tool call, so its
 * bundle must not grow the CLI's other commands, commander, the watcher or the MCP SDK, and a hook
 * call must load no JavaScript file but the two of dist/hook/ and no node:crypto. Sizes, not times:
 * speed itself is measured by `npm run bench` (hook rows), never asserted here.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, REPO } from "./helpers/bin.js";
import { HOOK_HOSTS } from "../src/integrations/hosts.js";
import { CODE_CACHE_RUNS, HOOK_BUNDLE_NAME, hookBundleName, quietBundleName } from "../src/hook/launch.js";
import { hostDefinitions } from "../src/integrations/registry.js";

interface Metafile {
  inputs: Record<string, { bytes: number }>;
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

const FORBIDDEN = [
  /node_modules\/commander\//,
  /node_modules\/chokidar\//,
  /node_modules\/readdirp\//,
  /node_modules\/picomatch\//,
  /node_modules\/@modelcontextprotocol\//,
  /src\/cli\/main\.ts$/,
  /src\/cli\/commands\//,
  /src\/inspect\//,
  /src\/session\/watch\.ts$/,
  // The plugin hosts' code; their definitions (host.ts: data the registry lists) are small.
  /src\/integrations\/(opencode|kilo|mcp)\/(?!host\.ts$)/,
  // Install code is the CLI's (definitions load it through importAt, which the bundler leaves out).
  /src\/integrations\/[^/]+\/install(er)?\.ts$/,
  /src\/integrations\/setup\//,
  // The public schema module builds every schema when imported; the hook builds only those it
  // parses, through core/config-schema.ts and core/state-schema.ts (on first use).
  /src\/core\/schema\.ts$/,
];

describe("hook bundle", () => {
  let metafile: Metafile;
  let code: string;
  beforeAll(async () => {
    const { bundleHook } = (await import(join(REPO, "scripts/build-hook.mjs"))) as {
      bundleHook(o: { outfile: string; write: boolean }): Promise<{ metafile: Metafile; outputFiles: Array<{ path: string; text: string }> }>;
    };
    const result = await bundleHook({ outfile: join(tmpdir(), "agentsmd-hook-test.cjs"), write: false });
    metafile = result.metafile;
    code = result.outputFiles.find((file) => file.path.endsWith(".cjs"))!.text;
  }, 60_000);

  it("holds only what a hook needs: no other command, no commander, watcher, MCP SDK, inspect code or eagerly built schemas", () => {
    // inputs esbuild kept code of (a re-export it tree-shook away leaves an input of 0 bytes)
    const output = Object.values(metafile.outputs).find((o) => Object.keys(o.inputs).length > 0)!;
    const inputs = Object.keys(output.inputs).filter((input) => output.inputs[input]!.bytesInOutput > 0);
    expect(inputs.some((input) => input.includes("src/hook/process.ts"))).toBe(true);
    for (const host of Object.keys(HOOK_HOSTS)) expect(inputs.some((input) => input.includes(`src/integrations/${host}/`))).toBe(true);
    const heavy = inputs.filter((input) => FORBIDDEN.some((pattern) => pattern.test(input)));
    expect(heavy).toEqual([]);
  });

  it("stays small: zod/mini only (tree-shaken), at most 180 modules and 320 KB", () => {
    const output = Object.values(metafile.outputs).find((o) => Object.keys(o.inputs).length > 0)!;
    const kept = Object.entries(output.inputs).filter(([, info]) => info.bytesInOutput > 0);
    const zod = kept.filter(([input]) => input.includes("node_modules/zod/")).reduce((sum, [, info]) => sum + info.bytesInOutput, 0);
    // Classic zod installs its methods on each schema class the first time the class is used:
    // several ms per hook process. The hook path builds its schemas with zod/mini (about 40 KB here).
    expect(kept.map(([input]) => input).filter((input) => input.includes("node_modules/zod/v4/classic/"))).toEqual([]);
    expect(zod).toBeLessThan(64 * 1024);
    // 103 with the Gemini CLI and Qwen Code profiles (each host adds its profile and input modules);
    // 108 with the session split into its parts (scope, reads, refresh, snapshot: +4 modules over 104, +1.3 KB of 257 KB).
    // 109 with OpenCode's config instructions (presets/opencode-instructions.ts).
    // 111 with preset kilo in the preset table (presets/kilo.ts, load/kilo-variables.ts).
    // 113 with the schemas built on first use (core/config-schema.ts, core/state-schema.ts, core/checksum.ts; not core/schema.ts).
    // 114 with the agents' config files read in one place (presets/config-file.ts).
    // 115 with io/unchanged.ts (the one rule by which a directory's stat vouches for what was seen in it).
    // 119 with the hook server (cli/hook-server.ts, hook-wire.ts, hook-stdin.ts, io/descriptors.ts); 116 after it was removed.
    // 120 with io/realpath-now.ts (realpath through /proc/self/fd).
    // 121 with io/own-directory.ts (the one test of a directory only its user may change: state directories too).
    // 122 with core/confine.ts (the one rule for what a repository's files may name).
    // 124 with the lean `show` (cli/lean.ts, cli/diagnostics.ts): the session code is the hook's own.
    // 128 with linear matching and the deadline (core/glob.ts, core/linear-regex.ts, core/deadline.ts, io/deadline-fs.ts).
    // 130 with the one conversation engine and its stores (host/conversation.ts, host/stores.ts; deliver.ts its hook adapter).
    // 132 with the rule sources that name their agents (load/rules/targets.ts, load/rules/ruler-config.ts).
    // 135 with the host layer's shared modules (host/transcript.ts, host/claude-style-event.ts, host/gemini-family.ts: what claude-code/, gemini/ and qwen/ each wrote apart).
    // 145 with the host registry (integrations/registry.ts, host/definition.ts and one host.ts per host: data).
    // 152 with Cline and Factory Droid (each: host.ts, input.ts, profile.ts and its preset).
    // 158 with Auggie and Continue CLI (each host adds its definition and preset: data every bundle holds).
    // 163 with Crush (+5: crush/host.ts, input.ts, profile.ts, hook.ts and presets/crush.ts); 165 with Amp's definition and preset (its plugin stays out: no hook).
    // 168 with Cline's compaction record (+3: cline/sessions.ts, compaction.ts and compaction-read.ts: Cline runs no hook when it compacts).
    // 172 with Droid's (+4: droid/sessions.ts, compaction.ts, compaction-read.ts and host/log-event.ts's record helpers: `droid exec` runs no hook when it compacts).
    // 179 with the quiet certificate the engine writes (host/quiet-certificate.ts, host/quiet-format.ts), the state
    // file's name and check apart from its zod schema (host/state-file.ts), the tool tables apart from their schemas
    // (claude-code/tools.ts, droid/tools.ts, qwen/tools.ts), which the quiet bundles read, and the stub of each host's quiet stage.
    // 181 with Auggie's and Crush's quiet stages (auggie/tools.ts, crush/tools.ts: their tool tables apart from their schemas);
    // 182 with codex/tools.ts (a Codex tool event's targets apart from its zod schema, which its quiet bundle reads);
    // 183 with Gemini CLI's tool table apart from its schema (gemini/tools.ts), for its quiet bundle.
    expect(Object.keys(output.inputs).length).toBeLessThanOrEqual(183);
    expect(output.bytes).toBeLessThan(320 * 1024);
  });

  it("has no dynamic import() left, which the code-cache loader (vm.Script) could not run", () => {
    expect(code).not.toMatch(/\bimport\(/);
  });
});

/**
 * Every bundle holds every host's definition (`<host>/host.ts`: data the registry lists, with its
 * code behind dynamic imports); only the host's own code behind them is bundled.
 */
const isDefinition = (input: string): boolean => /src\/integrations\/[^/]+\/host\.ts$/.test(input);

describe("per-host bundles", () => {
  type Bundled = { modules: string[]; bytes: number };
  const bundled = async (host?: string): Promise<Bundled> => {
    const { bundleHook } = (await import(join(REPO, "scripts/build-hook.mjs"))) as {
      bundleHook(o: { outfile: string; write: boolean; host?: string }): Promise<{ metafile: Metafile }>;
    };
    const { metafile } = await bundleHook({ outfile: join(tmpdir(), `agentsmd-hook-test-${host ?? "all"}.cjs`), write: false, ...(host ? { host } : {}) });
    const output = Object.values(metafile.outputs).find((o) => Object.keys(o.inputs).length > 0)!;
    return { modules: Object.keys(output.inputs).filter((input) => output.inputs[input]!.bytesInOutput > 0), bytes: output.bytes };
  };

  it("a host's bundle holds its own host's code and no other host's, and is smaller than the shared one", async () => {
    const shared = await bundled();
    const hosts = Object.keys(HOOK_HOSTS);
    const counts: Record<string, number> = {};
    for (const host of hosts) {
      const own = await bundled(host);
      counts[host] = own.modules.length;
      expect(
        own.modules.some((input) => input.includes(`src/integrations/${host}/`)),
        host,
      ).toBe(true);
      const others = own.modules.filter(
        (input) => hosts.some((other) => other !== host && input.includes(`src/integrations/${other}/`)) && !isDefinition(input),
      );
      expect(others, host).toEqual([]);
      expect(own.bytes, host).toBeLessThan(shared.bytes);
    }
    // 110-115 modules per host against 125 in the shared bundle when per-host bundles came in;
    // 130-135 against 150 with the registry's definitions (Cline and Droid's too), the engine and the rule sources;
    // 140 with Auggie's and Continue CLI's definitions and presets;
    // 143 with Crush's (+3: crush/host.ts, presets/crush.ts and the stub of its hook's import); 145 with Amp's definition and preset.
    // 147 for Droid with its compaction record (droid/sessions.ts, compaction.ts, compaction-read.ts, host/log-event.ts).
    // 152 with the quiet certificate (see above).
    for (const host of hosts) expect(counts[host], host).toBeLessThanOrEqual(152);
  }, 120_000);

  it("a quiet bundle is a few KB: the quiet stage and the host's event reading, no zod, no session or engine code", async () => {
    const { bundleQuiet } = (await import(join(REPO, "scripts/build-hook.mjs"))) as {
      bundleQuiet(host: string, o: { outfile: string; write: boolean }): Promise<{ metafile: Metafile }>;
    };
    const quietHosts = hostDefinitions().filter((definition) => definition.hook?.quiet !== undefined);
    expect(quietHosts.length).toBeGreaterThan(0);
    for (const { id } of quietHosts) {
      const { metafile } = await bundleQuiet(id, { outfile: join(tmpdir(), `agentsmd-quiet-test-${id}.cjs`), write: false });
      const output = Object.values(metafile.outputs).find((o) => Object.keys(o.inputs).length > 0)!;
      const modules = Object.keys(output.inputs);
      // Codex's tool event is a shell command: its quiet stage reads it with host/shell-paths.ts
      // (about 15 KB) and shell-quote (about 5 KB), 30 KB in all; still no zod and no engine.
      const shellReader = id === "codex" ? /node_modules\/shell-quote\// : undefined;
      expect(
        modules.filter((input) => /node_modules|src\/(session|load|presets)\/|conversation\.ts|deliver\.ts/.test(input) && !shellReader?.test(input)),
        id,
      ).toEqual([]);
      expect(output.bytes, id).toBeLessThan((shellReader ? 32 : 16) * 1024);
    }
  });

  it("the quiet stage runs only for a plain `hook <host>`: options change what the full path does", () => {
    expect(quietBundleName(["hook", "claude-code"])).toBe("agentsmd-quiet-claude-code.cjs");
    expect(quietBundleName(["hook", "claude-code", "--agents-md", "inject"])).toBeUndefined();
    expect(quietBundleName(["--cwd", "/x", "hook", "claude-code"])).toBeUndefined();
    expect(quietBundleName(["hook", "../../evil"])).toBeUndefined();
    expect(quietBundleName(["show"])).toBeUndefined();
  });

  it("the launcher picks the host's bundle by the word after `hook`, never a path", () => {
    expect(hookBundleName(["hook", "codex"])).toBe("agentsmd-hook-codex.cjs");
    expect(hookBundleName(["--cwd", "/x", "hook", "claude-code", "--agents-md", "inject"])).toBe("agentsmd-hook-claude-code.cjs");
    expect(hookBundleName(["show"])).toBe(HOOK_BUNDLE_NAME);
    expect(hookBundleName(["hook"])).toBe(HOOK_BUNDLE_NAME);
    expect(hookBundleName(["hook", "../../evil"])).toBe(HOOK_BUNDLE_NAME);
    expect(hookBundleName(["hook", "--help"])).toBe(HOOK_BUNDLE_NAME);
  });
});

describe("imports that defeat the bundle", () => {
  it('no source imports zod as `{ z }` (it keeps all of zod, ~450 KB, in every bundle): use `import * as z from "zod"`', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".ts") && /import\s*\{\s*z\s*\}\s*from\s*"zod"/.test(readFileSync(path, "utf8"))) offenders.push(path);
      }
    };
    walk(join(REPO, "src"));
    expect(offenders).toEqual([]);
  });
});

describe("hook process", () => {
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), "agentsmd-hook-process-"));
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a Claude Code SessionStart and PostToolUse load only dist/hook/ files and never node:crypto", () => {
    const project = join(dir, "project");
    spawnSync("mkdir", ["-p", join(project, ".git"), join(project, "pkg")]);
    writeFileSync(join(project, "AGENTS.md"), "# root rules\n");
    writeFileSync(join(project, "pkg", "AGENTS.md"), "# pkg rules\n");
    writeFileSync(join(project, "pkg", "a.ts"), "export {};\n");
    const report = join(dir, "loaded.json");
    const preload = join(dir, "report.cjs");
    writeFileSync(
      preload,
      `let drained = false; process.on("beforeExit", () => { drained = true; });\n` +
        // TextDecoders made (the first opens an ICU converter: about 0.3 ms)
        `let decoders = 0; const Decoder = globalThis.TextDecoder; globalThis.TextDecoder = class extends Decoder { constructor(...args) { super(...args); decoders++; } };\n` +
        `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList, drained, decoders })));\n`,
    );
    let decoders = 0;
    const run = (event: object, cache = false) => {
      const result = spawnSync(process.execPath, ["-r", preload, join(REPO, "dist/hook/hook.cjs"), "hook", "claude-code", "--state-dir", join(dir, "state")], {
        input: JSON.stringify(event),
        encoding: "utf8",
        env: {
          PATH: process.env.PATH ?? "",
          HOME: dir,
          AGENTSMD_CLAUDE_AGENTS_MD: "inject",
          ...(cache ? { XDG_CACHE_HOME: join(dir, "cache") } : { AGENTSMD_COMPILE_CACHE: "0" }),
        },
      });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      const loaded = JSON.parse(readFileSync(report, "utf8")) as { files: string[]; builtins: string[]; drained: boolean; decoders: number };
      // the process ends as soon as the answer is written (launch.ts), not after Node's idle GC and teardown
      expect(loaded.drained).toBe(false);
      // Through the code cache (Node 20) the bundle is run by vm.Script, not required.
      if (!cache)
        expect(loaded.files.filter((file) => file !== preload).sort()).toEqual([
          join(REPO, "dist/hook/agentsmd-hook-claude-code.cjs"),
          join(REPO, "dist/hook/hook.cjs"),
        ]);
      expect(loaded.builtins.filter((name) => /\bcrypto\b/.test(name))).toEqual([]);
      // every file call on the main thread (syncFileSystem): node's fs/promises never loads
      expect(loaded.builtins.filter((name) => name.includes("fs/promises"))).toEqual([]);
      // nor node:module (about twenty internal modules in a CommonJS process; io/require.ts), perf_hooks (io/cache.ts
      // monotonicMs) or node:os (io/file-system.ts hostName, io/require.ts homedir)
      expect(loaded.builtins.filter((name) => /^NativeModule (module|perf_hooks|os)$/.test(name))).toEqual([]);
      // No background process: a call neither starts one (child_process) nor talks to one (net).
      expect(loaded.builtins.filter((name) => /^NativeModule (child_process|net)$/.test(name))).toEqual([]);
      decoders = loaded.decoders;
      return result.stdout;
    };
    const session = { session_id: "0b6a1c9e-7f41-4d8e-a2b3-5c6d7e8f9a0b", cwd: project };
    expect(run({ ...session, hook_event_name: "SessionStart", source: "startup" })).toContain("# root rules");
    const read = { ...session, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: join(project, "pkg", "a.ts") } };
    expect(run(read)).toContain("# pkg rules");
    expect(decoders).toBeGreaterThan(0);
    // A seen path reads no instruction file, so it makes no TextDecoder (core/budget.ts makes them on first use).
    expect(run(read)).toBe("");
    expect(decoders).toBe(0);
    // The self-calling bundle through the code cache: written by the first run, read by the next
    // ones; each of the first CODE_CACHE_RUNS runs adds what it compiled (its first byte counts
    // them), later ones only read it.
    if (!process.versions.node.startsWith("20.")) return;
    const cacheDir = join(dir, "cache/agentsmd/compile-cache");
    const cache = () => {
      const names = readdirSync(cacheDir).filter((name) => name.endsWith(".v8"));
      expect(names).toHaveLength(1);
      const path = join(cacheDir, names[0]!);
      return { runs: readFileSync(path)[0], ino: statSync(path).ino };
    };
    expect(run({ ...session, session_id: "c1", hook_event_name: "SessionStart", source: "startup" }, true)).toContain("# root rules");
    expect(cache().runs).toBe(1);
    expect(run({ ...read, session_id: "c1" }, true)).toContain("# pkg rules");
    expect(cache().runs).toBe(2);
    for (let runs = 3; runs <= CODE_CACHE_RUNS; runs++) {
      run({ ...read, session_id: "c1" }, true);
      expect(cache().runs).toBe(runs);
    }
    const last = cache();
    expect(run({ ...read, session_id: "c2" }, true)).toContain("# pkg rules");
    expect(cache()).toEqual(last);
  }, 60_000);
});

describe("installed hook commands", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);

  it("every installer writes the lean executable (dist/hook/hook.cjs), and the command as written answers the host's event", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentsmd-hook-command-"));
    try {
      // From the built package: the command names files next to the module that builds it.
      const dist = (path: string) => import(join(REPO, "dist", path));
      const commands: Record<string, string> = {
        codex: (await dist("integrations/codex/install.js")).defaultCodexHookCommand(),
        gemini: (await dist("integrations/host/install-hooks.js")).cliHookCommand("gemini"),
        qwen: (await dist("integrations/host/install-hooks.js")).cliHookCommand("qwen"),
        copilot: `${(await dist("integrations/copilot/install.js")).defaultCopilotCommand()} hook copilot`,
        "claude-code": await (await dist("integrations/claude-code/install.js")).defaultHookCommand("user", dir),
      };
      const project = join(dir, "project");
      spawnSync("mkdir", ["-p", join(project, ".git"), join(project, "pkg")]);
      writeFileSync(join(project, "pkg", "AGENTS.md"), "# pkg rules\n");
      // zod calls globalThis.__zod_globalConfig.postProcessor with each instance it constructs.
      const counter = join(dir, "count-schemas.cjs");
      const schemaCount = join(dir, "schemas.txt");
      writeFileSync(
        counter,
        `let n = 0; globalThis.__zod_globalConfig = { postProcessor() { n++; } };\n` +
          `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(schemaCount)}, String(n)));\n`,
      );
      const MAX_SCHEMAS: Record<string, number> = { "claude-code": 20, codex: 32, copilot: 30, gemini: 12, qwen: 12 };
      for (const [host, command] of Object.entries(commands)) {
        expect(command, host).toContain(join(REPO, "dist/hook/hook.cjs"));
        expect(command, host).not.toContain("bin.js");
        // A first tool call of a conversation gives the nested file (each host's own event shape).
        const file = join(project, "pkg", "a.ts");
        // Gemini CLI and Qwen Code: the same snake_case payload, each with its own event name.
        const snakeCase = (hook_event_name: string) => ({
          session_id: `s-${host}`,
          cwd: project,
          hook_event_name,
          transcript_path: "",
          tool_name: "read_file",
          tool_input: { file_path: file },
          tool_response: {},
        });
        const event: Record<string, object> = {
          codex: {
            session_id: `s-${host}`,
            cwd: project,
            hook_event_name: "PostToolUse",
            tool_name: "Bash",
            tool_input: { command: `cat ${file}` },
            tool_response: "",
          },
          gemini: snakeCase("AfterTool"),
          qwen: snakeCase("PostToolUse"),
          copilot: {
            sessionId: `s-${host}`,
            timestamp: 1,
            cwd: project,
            toolName: "view",
            toolArgs: { path: file },
            toolResult: { resultType: "success", textResultForLlm: "" },
          },
          "claude-code": { session_id: `s-${host}`, cwd: project, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: file } },
        };
        const run = (env: Record<string, string> = {}) =>
          spawnSync("sh", ["-c", command], {
            input: JSON.stringify(event[host]),
            encoding: "utf8",
            env: {
              PATH: process.env.PATH ?? "",
              HOME: dir,
              XDG_STATE_HOME: join(dir, "state"),
              AGENTSMD_COMPILE_CACHE: "0",
              AGENTSMD_CLAUDE_AGENTS_MD: "inject",
              ...env,
            },
          });
        const result = run();
        expect(result.stderr, host).toBe("");
        expect(result.stdout, host).toContain("# pkg rules");
        // The same call again (a seen path: no answer) builds only the schemas it parses with, from
        // shared leaves: the event's own schema (Copilot: this event kind's only), never the state
        // schema (a checked state file is read without zod). Each zod instance costs a hook process
        // time to build; before, the hosts built 35 to 55 per call.
        const seen = run({ NODE_OPTIONS: `--require ${counter}` });
        expect(seen.stderr, host).toBe("");
        expect(seen.stdout, host).toBe("");
        expect(Number(readFileSync(schemaCount, "utf8")), host).toBeLessThanOrEqual(MAX_SCHEMAS[host]!);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
