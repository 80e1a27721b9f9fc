/**
 * Security and behaviour of the hook's quiet stage (hook/quiet.ts): it answers a tool event only
 * from a certificate the engine wrote for the very state file on disk, read as the full path reads
 * state (a private directory, a regular file of this user, never through a link or from a FIFO,
 * its check holding), for this agentsmd version and environment; anything else falls through to
 * the full path, which answers as before. And through the built launcher a certified quiet call
 * never loads the host's bundle.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { quietCall } from "../../src/hook/quiet.js";
import { quietHost } from "../../src/integrations/claude-code/quiet.js";
import { agentsmdVersion, parseCertificate, quietPath } from "../../src/integrations/host/quiet-format.js";
import { conversationPath, hostStateDir, stateCheckOf } from "../../src/integrations/host/state-file.js";
import { quietCertifier } from "../../src/integrations/host/quiet-certificate.js";
import { nodeFileSystem } from "../../src/io/file-system.js";
import { injectFs } from "../helpers/faults.js";
import { checksum } from "../../src/core/checksum.js";
import { RACY_MS } from "../../src/io/unchanged.js";
import { createTree } from "../helpers/tree.js";
import { ensureBuilt, REPO } from "../helpers/bin.js";
import { certified, fullCall, sleep } from "../helpers/quiet-setup.js";

const HOST = "claude-code";

describe("the quiet stage answers only from a certificate it can trust", () => {
  let setup: Awaited<ReturnType<typeof certified>>;
  const quiet = (event: object = setup.read, env = setup.env, argv = ["hook", HOST], version = setup.version) =>
    quietCall(quietHost, argv, JSON.stringify(event), env, version);
  beforeAll(async () => {
    setup = await certified();
  }, 30_000);

  it("a certified event in a certified directory: quiet, and the full engine agrees", async () => {
    expect(quiet()).toBe(true);
    const before = readFileSync(setup.state, "utf8");
    expect(await fullCall(setup.read, setup.env)).toBe("");
    expect(readFileSync(setup.state, "utf8")).toBe(before);
  });

  it("another event, an option, another environment or version, a target named like an instruction file: the full path", () => {
    expect(quiet({ ...setup.read, hook_event_name: "UserPromptSubmit", prompt: "x" })).toBe(false);
    expect(quiet(setup.read, setup.env, ["hook", HOST, "--agents-md", "inject"])).toBe(false);
    expect(quiet(setup.read, { ...setup.env, AGENTSMD_CLAUDE_AGENTS_MD: "native" })).toBe(false);
    expect(quiet(setup.read, setup.env, ["hook", HOST], "0.0.0-another")).toBe(false);
    expect(quiet({ ...setup.read, tool_input: { file_path: setup.tree.path("r/pkg/AGENTS.md") } })).toBe(false);
    expect(quiet({ ...setup.read, tool_input: { file_path: setup.tree.path("r/elsewhere/x.ts") } })).toBe(false);
    // Copilot CLI running Claude Code's hooks (its own fields): the full path stays silent its own way.
    expect(quiet({ ...setup.read, tool_result: {} })).toBe(false);
    expect(quiet()).toBe(true);
  });

  it("a state file whose check does not hold, or a certificate edited or made for another version: the full path", () => {
    const text = readFileSync(setup.state, "utf8");
    try {
      writeFileSync(setup.state, text.replace('"version":2', '"version":2 '));
      expect(quiet()).toBe(false);
    } finally {
      writeFileSync(setup.state, text);
    }
    const cert = quietPath(setup.state);
    const certText = readFileSync(cert, "utf8");
    try {
      const edited = certText.replace(/"format":\d+/, "$& ");
      expect(edited).not.toBe(certText);
      writeFileSync(cert, edited);
      expect(quiet()).toBe(false);
      const [head, json] = certText.split("\n") as [string, string];
      // A well-formed certificate of another version (its own checksum holds) is still another version's.
      const other = `${head}\n${json.replace(`"version":"${setup.version}"`, '"version":"0.0.0-another"')}`;
      expect(other).not.toBe(`${head}\n${json}`);
      writeFileSync(cert, `${other}\n${checksum(other)}\n`);
      expect(quiet()).toBe(false);
    } finally {
      writeFileSync(cert, certText);
    }
    expect(quiet()).toBe(true);
  });

  it("a state file or certificate that is a link or a FIFO, or the user's directory opened to others: never read through, never blocks", () => {
    const text = readFileSync(setup.state, "utf8");
    const aside = `${setup.state}.aside`;
    for (const swap of ["link", "fifo"] as const) {
      for (const path of [setup.state, quietPath(setup.state)]) {
        renameSync(path, aside);
        try {
          if (swap === "link") symlinkSync(aside, path);
          else expect(spawnSync("mkfifo", [path]).status).toBe(0);
          expect(quiet(), `${swap} at ${path}`).toBe(false);
        } finally {
          rmSync(path, { force: true });
          renameSync(aside, path);
        }
      }
    }
    expect(readFileSync(setup.state, "utf8")).toBe(text);
    const dir = hostStateDir(HOST, setup.env, setup.tree.home);
    chmodSync(dir, 0o770);
    try {
      expect(quiet()).toBe(false);
    } finally {
      chmodSync(dir, 0o700);
    }
    expect(quiet()).toBe(true);
  });

  it.skipIf(process.getuid?.() !== 0)("a state file or certificate of another user: the full path", () => {
    for (const path of [setup.state, quietPath(setup.state)]) {
      chownSync(path, 4242, 4242);
      try {
        expect(quiet(), path).toBe(false);
      } finally {
        chownSync(path, 0, 0);
      }
    }
    expect(quiet()).toBe(true);
  });

  it("a change under a premise (an edited instruction file, a new one, a new rule directory): the full path, which delivers it", async () => {
    const agents = setup.tree.path("r/pkg/AGENTS.md");
    writeFileSync(agents, "pkg rules, edited\n");
    expect(quiet()).toBe(false);
    expect(await fullCall(setup.read, setup.env)).toContain("pkg rules, edited");
    mkdirSync(setup.tree.path("r/pkg/sub"));
    writeFileSync(setup.tree.path("r/pkg/sub/AGENTS.md"), "sub rules\n");
    const inSub = { ...setup.read, tool_input: { file_path: setup.tree.path("r/pkg/sub/c.ts") } };
    expect(quiet(inSub)).toBe(false);
    expect(await fullCall(inSub, setup.env)).toContain("sub rules");
  });
});

describe("the certificate's shape", () => {
  it("directories shared by certified ones are stored once; a change on one branch leaves the other certified", async () => {
    const deep = "r/a/b/c/d/e/f";
    const files: Record<string, string | null> = { "r/.git/": null, "r/AGENTS.md": "root rules\n", [`${deep}/AGENTS.md`]: "deep rules\n" };
    // Each leaf holds rules of its own: its first read delivers them, a save, and only a save certifies.
    for (const leaf of ["x", "y", "z"]) Object.assign(files, { [`${deep}/${leaf}/a.ts`]: "", [`${deep}/${leaf}/AGENTS.md`]: `${leaf} rules\n` });
    const tree = await createTree(files);
    await sleep(RACY_MS + 200);
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "inject" };
    const base = { session_id: "s2", cwd: tree.path("r"), transcript_path: tree.path("t.jsonl") };
    const read = (leaf: string) => ({
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: tree.path(`${deep}/${leaf}/a.ts`) },
    });
    const version = await agentsmdVersion();
    const quiet = (event: object) => quietCall(quietHost, ["hook", HOST], JSON.stringify(event), env, version);
    await fullCall({ ...base, hook_event_name: "SessionStart", source: "startup" }, env);
    expect(await fullCall(read("x"), env)).toContain("deep rules");
    expect(await fullCall(read("y"), env)).toContain("y rules");
    expect(await fullCall(read("z"), env)).toContain("z rules");
    const certPath = quietPath(conversationPath(hostStateDir(HOST, env, tree.home), { id: "s2" }));
    const text = readFileSync(certPath, "utf8");
    // The head names the certified directories (the launcher's gate reads it); below the root each
    // directory is named relative to its parent: no path is written twice.
    const [head, body] = text.split("\n") as [string, string];
    expect((JSON.parse(head) as string[]).sort()).toEqual(["r", ...["x", "y", "z"].map((leaf) => `${deep}/${leaf}`)].map((dir) => tree.path(dir)).sort());
    expect(body).not.toContain(tree.path("r/a"));
    const cert = parseCertificate(text, version)!;
    // r, a..f and the three leaves: each once, the leaves naming their shared parent.
    expect(Object.keys(cert.dirs).sort()).toEqual(
      ["r", "r/a", "r/a/b", "r/a/b/c", "r/a/b/c/d", "r/a/b/c/d/e", deep, `${deep}/x`, `${deep}/y`, `${deep}/z`].map((dir) => tree.path(dir)).sort(),
    );
    for (const leaf of ["x", "y", "z"]) expect(cert.dirs[tree.path(`${deep}/${leaf}`)]).toMatchObject({ up: tree.path(deep), quiet: true });
    expect(Object.keys(cert.dirs[tree.path(deep)]!.files ?? {})).toEqual([tree.path(`${deep}/AGENTS.md`)]);
    expect(["x", "y", "z"].map((leaf) => quiet(read(leaf)))).toEqual([true, true, true]);
    // One branch changes: y's instruction file is edited. x and z stay certified; y goes to the full path, which delivers it.
    writeFileSync(tree.path(`${deep}/y/AGENTS.md`), "y rules, edited\n");
    expect(["x", "y", "z"].map((leaf) => quiet(read(leaf)))).toEqual([true, false, true]);
    expect(await fullCall(read("y"), env)).toContain("y rules, edited");
    expect(await fullCall(read("x"), env)).toBe("");
  }, 30_000);

  it("is written only with a state save, without fsync, never through a link", async () => {
    const { tree, env, state, read, version } = await certified();
    const path = quietPath(state);
    const first = statSync(path);
    const [stateBefore, certBefore] = [readFileSync(state, "utf8"), readFileSync(path, "utf8")];
    // Calls that save no state write no certificate: one in a certified directory, and one in the
    // root (certified quiet by the start: the read admits nothing new).
    expect(await fullCall(read, env)).toBe("");
    expect(await fullCall({ ...read, tool_name: "Read", tool_input: { file_path: tree.path("r/top.ts") } }, env)).toBe("");
    expect(readFileSync(state, "utf8")).toBe(stateBefore);
    const again = statSync(path);
    expect([again.ino, again.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
    expect(readFileSync(path, "utf8")).toBe(certBefore);
    expect(parseCertificate(certBefore, version)!.dirs[tree.path("r")]?.quiet).toBe(true);
    // The certifier's write: no fsync, and a link in its place is replaced, its target untouched.
    const syncs: unknown[] = [];
    const writeFs = injectFs({ writeAtomic: (args, next) => (syncs.push(args[2]), next(...args)) });
    const victim = tree.path("victim.txt");
    writeFileSync(victim, "mine\n");
    rmSync(path);
    symlinkSync(victim, path);
    const text = readFileSync(state, "utf8");
    const certifier = quietCertifier({
      statePath: state,
      host: HOST,
      version: "0.0.0-test",
      env,
      fs: nodeFileSystem,
      writeFs,
      since: Date.now(),
      checkOf: stateCheckOf,
    });
    await certifier.write({ names: ["AGENTS.md"], all: {}, dirs: { [tree.path("r")]: { id: "d:1", quiet: true } } }, text);
    expect(syncs).toEqual([{ sync: false }]);
    expect(readFileSync(victim, "utf8")).toBe("mine\n");
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(path, "utf8")).toContain('"version":"0.0.0-test"');
  }, 30_000);
});

describe("through the built launcher", () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);

  it("a certified quiet call loads the quiet bundle and not the host's; a call the gate turns away loads only the host's; any other call loads the host's and answers", async () => {
    // Certified under the launcher's environment (PATH, the cache switch): its reads save nothing, so they certify nothing.
    const { tree, env, read } = await certified({ PATH: process.env.PATH ?? "", AGENTSMD_COMPILE_CACHE: "0" });
    const report = join(tree.root, "loaded.json");
    const preload = join(tree.root, "report.cjs");
    writeFileSync(preload, `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const run = (event: object, extra: Record<string, string> = {}) => {
      const result = spawnSync(process.execPath, ["-r", preload, join(REPO, "dist/hook/hook.cjs"), HOST], {
        input: JSON.stringify(event),
        encoding: "utf8",
        env: { ...env, PATH: process.env.PATH ?? "", AGENTSMD_COMPILE_CACHE: "0", ...extra },
      });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      return { stdout: result.stdout, loaded: (JSON.parse(readFileSync(report, "utf8")) as string[]).filter((file) => file !== preload).sort() };
    };
    const quiet = run(read);
    expect(quiet.stdout).toBe("");
    expect(quiet.loaded).toEqual([join(REPO, "dist/hook/agentsmd-quiet-claude-code.cjs"), join(REPO, "dist/hook/hook.cjs")]);
    // The gate turns away, before any bundle loads, what the stage cannot answer: another event, a target outside the certified directories.
    const hostOnly = [join(REPO, "dist/hook/agentsmd-hook-claude-code.cjs"), join(REPO, "dist/hook/hook.cjs")];
    const start = run({ ...read, session_id: "s-other", hook_event_name: "SessionStart", source: "startup" });
    expect(start.stdout).toContain("root rules");
    expect(start.loaded).toEqual(hostOnly);
    // Below the root (certified at the start), no instruction file on the way: the stage's.
    const below = run({ ...read, tool_input: { file_path: tree.path("r/top.ts") } });
    expect(below.stdout).toBe("");
    expect(below.loaded).toEqual([join(REPO, "dist/hook/agentsmd-quiet-claude-code.cjs"), join(REPO, "dist/hook/hook.cjs")]);
    const elsewhere = run({ ...read, session_id: "s-none", tool_input: { file_path: tree.path("elsewhere.ts") } });
    expect(elsewhere.loaded).toEqual(hostOnly);
    const off = run(read, { AGENTSMD_QUIET: "0" });
    expect(off.stdout).toBe("");
    expect(off.loaded).toContain(join(REPO, "dist/hook/agentsmd-hook-claude-code.cjs"));
    writeFileSync(tree.path("r/pkg/AGENTS.md"), "pkg rules, edited\n");
    const edited = run(read);
    expect(edited.stdout).toContain("pkg rules, edited");
    expect(edited.loaded).toEqual([
      join(REPO, "dist/hook/agentsmd-hook-claude-code.cjs"),
      join(REPO, "dist/hook/agentsmd-quiet-claude-code.cjs"),
      join(REPO, "dist/hook/hook.cjs"),
    ]);
  }, 60_000);
});

describe("hosts the engine never certifies", () => {
  it("Factory Droid (its compaction is only in its session log, which the quiet stage does not read): a delivering start and read write no certificate", async () => {
    const tree = await createTree({ "r/.git/": null, "r/AGENTS.md": "root rules\n", "r/a/AGENTS.md": "a rules\n", "r/a/x.ts": "" });
    await sleep(RACY_MS + 200);
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state") };
    const call = (event: object) => fullCall(event, env, "droid");
    const base = { session_id: "d1", cwd: tree.path("r"), transcript_path: "" };
    await call({ ...base, hook_event_name: "SessionStart", source: "startup" });
    expect(await call({ ...base, hook_event_name: "PostToolUse", tool_name: "Create", tool_input: { file_path: tree.path("r/a/new.ts") } })).toContain(
      "a rules",
    );
    const state = conversationPath(hostStateDir("droid", env, tree.home), { id: "d1" });
    expect(readFileSync(state, "utf8")).toContain("a/AGENTS.md");
    expect(existsSync(quietPath(state))).toBe(false);
  }, 30_000);
});

describe("the root as an anchor", () => {
  it("stays certified however many directories a step certifies (the certifier puts the root and cwd first)", async () => {
    const files: Record<string, string | null> = { "r/.git/": null, "r/AGENTS.md": "root rules\n", "r/free/x.ts": "" };
    for (let i = 0; i < 40; i++) {
      files[`r/p${i}/q/AGENTS.md`] = `p${i} rules\n`;
      files[`r/p${i}/q/a.ts`] = "";
    }
    const tree = await createTree(files);
    await sleep(RACY_MS + 200);
    const env = { HOME: tree.home, XDG_STATE_HOME: tree.path("state"), AGENTSMD_CLAUDE_AGENTS_MD: "inject" };
    const base = { session_id: "s3", cwd: tree.path("r"), transcript_path: tree.path("t.jsonl") };
    const read = (file: string) => ({ ...base, hook_event_name: "PostToolUse", tool_name: "Read", tool_input: { file_path: tree.path(file) } });
    await fullCall({ ...base, hook_event_name: "SessionStart", source: "startup" }, env);
    // One step past the certifier's bound of directories (VS Code's editFiles names many files at once).
    const many = {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "editFiles",
      tool_input: { files: Array.from({ length: 40 }, (_, i) => tree.path(`r/p${i}/q/a.ts`)) },
    };
    expect(await fullCall(many, env)).toContain("p39 rules");
    const cert = parseCertificate(
      readFileSync(quietPath(conversationPath(hostStateDir(HOST, env, tree.home), { id: "s3" })), "utf8"),
      await agentsmdVersion(),
    )!;
    expect(cert.dirs[tree.path("r")]?.quiet).toBe(true);
    expect(quietCall(quietHost, ["hook", HOST], JSON.stringify(read("r/free/x.ts")), env, await agentsmdVersion())).toBe(true);
  }, 60_000);
});
