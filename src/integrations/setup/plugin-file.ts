/**
 * `agentsmd setup` for the hosts that load agentsmd in their own process (OpenCode, Kilo Code,
 * pi): one small module file in the user's scope (the definition's `plugin.file`) that re-exports
 * this package's built entry. It names this machine's copy of agentsmd by absolute path, which is
 * right for a file only this user's agent reads and wrong for a committed one, so it is never
 * written into a project (nor anything into a project's node_modules, which OpenCode snapshots per
 * turn when it is not git-ignored). No Node binary is named: the host loads the module itself.
 *
 * The file goes through user-file.ts like every host's configuration edit: uninstall gives back
 * the earlier bytes (or removes the file and the directories made for it). A file of the user's
 * at that path is never overwritten.
 *
 * The check imports the written file in this process, as the host does, and feeds it one read of
 * a file below a nested AGENTS.md (the host's `plugin.file.check`).
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { AgentsMdError } from "../../core/errors.js";
import { join, nameOf } from "../../core/paths.js";
import { quote } from "../../core/quote.js";
import { ensureDir, makeTempDir, removeTree, writeFileAtomic } from "../../io/file-system.js";
import type { Env, HostDefinition } from "../host/definition.js";
import { importAt } from "../host/installers.js";
import { installEdit, uninstallEdit } from "../host/user-file.js";
import type { VerifyResult } from "./verify.js";

type PluginFile = NonNullable<NonNullable<HostDefinition["plugin"]>["file"]>;

/** This package's root (this module is at `<root>/{src,dist}/integrations/setup/`). */
const packageRoot = (): string => fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");

/** The first line of every module setup writes: how a later setup or uninstall knows its own file. */
const HEADER = "// Written by `agentsmd setup`; `agentsmd setup --uninstall` takes it out again.";

/**
 * The module text setup writes for a host: a re-export of this package's built entry.
 */
export function pluginText(file: PluginFile, root: string = packageRoot()): string {
  const path = join(root, file.entry);
  const specifier = file.specifier === "url" ? pathToFileURL(path).href : path;
  const preamble = file.preamble !== undefined ? `${file.preamble}\n` : "";
  return `${HEADER}\n${preamble}export { default } from ${JSON.stringify(specifier)};\n`;
}

/** True for a module an agentsmd setup wrote (this copy or another). */
const isOurs = (text: string): boolean => text.startsWith(`${HEADER}\n`);

/**
 * Writes (or rewrites) the host's module file; refuses a file at that path that setup did not write.
 */
export async function installPluginFile(host: HostDefinition, where: { home: string; env: Env }): Promise<{ file: string; changed: boolean }> {
  const spec = host.plugin!.file!;
  const file = spec.path(where.home, where.env);
  const text = pluginText(spec);
  const result = await installEdit(
    file,
    (current) => {
      if (current !== null && current !== text && !isOurs(current))
        throw new AgentsMdError(`${quote(file)} exists and was not written by agentsmd setup; it was left as it is`, {
          fix: `move it away and run \`agentsmd setup ${host.id}\` again, or make it re-export ${quote(join(packageRoot(), spec.entry))} yourself`,
        });
      return text;
    },
    where,
  );
  return { file, changed: result.changed };
}

/**
 * Takes the host's module file out: its earlier bytes back, or the file (and the directories
 * made for it) removed. A file setup did not write stays.
 */
export async function uninstallPluginFile(host: HostDefinition, where: { home: string; env: Env }): Promise<{ file: string; changed: boolean }> {
  const file = host.plugin!.file!.path(where.home, where.env);
  const result = await uninstallEdit(file, (text) => (isOurs(text) ? "" : text), { ...where, isEmpty: (text) => text === "" });
  return { file, changed: result.changed };
}

/**
 * Imports the written module as the host does (in this process) and feeds it a read of a file
 * below a nested AGENTS.md in a scratch project; passes when the answer holds that file's text.
 */
export async function verifyPluginFile(host: HostDefinition, where: { home: string; env: Env }): Promise<VerifyResult> {
  const spec = host.plugin!.file!;
  const file = spec.path(where.home, where.env);
  const dir = await makeTempDir("agentsmd-verify-");
  const started = performance.now();
  const project = join(dir, "project");
  const base = { host: host.id, command: file, module: true, event: spec.event, expected: join(project, "pkg/AGENTS.md") };
  try {
    const marker = `agentsmd setup check ${nameOf(dir)}: the instructions for pkg/`;
    await ensureDir(join(project, ".git"));
    await ensureDir(join(project, "app"));
    await ensureDir(join(project, "pkg"));
    await writeFileAtomic(join(project, "AGENTS.md"), "# Project\n");
    await writeFileAtomic(join(project, "pkg/AGENTS.md"), `${marker}\n`);
    await writeFileAtomic(join(project, "pkg/notes.txt"), "notes\n");
    const check = await spec.check(importAt);
    let answer: string | undefined;
    try {
      // A query string per check: a module imported earlier in this process (an older file) is not reused.
      const module: unknown = await import(`${pathToFileURL(file).href}?check=${nameOf(dir)}`);
      answer = await check(module, { dir: project, target: join(project, "pkg/notes.txt"), stateDir: join(dir, "state") });
    } catch (error) {
      return { ...base, ms: Math.round(performance.now() - started), ok: false, problem: (error as Error)?.message ?? String(error) };
    }
    const ms = Math.round(performance.now() - started);
    if (answer?.includes(marker)) return { ...base, ms, ok: true, answer };
    return {
      ...base,
      ms,
      ok: false,
      ...(answer !== undefined ? { answer } : {}),
      problem: answer === undefined ? "the module added nothing to the tool result" : "its answer does not hold the nested AGENTS.md's text",
    };
  } finally {
    await removeTree(dir);
  }
}
