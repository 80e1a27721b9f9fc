/**
 * The runner of `agentsmd hook codex`: events agentsmd does not answer (PreToolUse, Stop, ...) get
 * no output; a tool event's targets are computed with the file system first (globs, git words),
 * then the shared algorithm runs with the Codex profile. Loads only the profile and the host layer.
 */
import { homedir } from "../../io/require.js";
import { homeFromEnv } from "../../core/paths.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { guardOf } from "../../io/deadline-fs.js";
import { handleHostInput, hookRunner, parseHostInput, type HookRunner } from "../host/deliver.js";
import { codexEventTargets, codexProfile } from "./profile.js";

const ANSWERED: ReadonlySet<string> = new Set(["SessionStart", "UserPromptSubmit", "PostToolUse"]);

/**
 * `agentsmd hook codex`: stdin text -> event -> targets -> the shared delivery algorithm.
 */
export const runCodexHook: HookRunner = async (text, options) => {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return hookRunner(() => codexProfile())(text, options); // the shared runner names the problem
  }
  const name = (data as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (typeof name === "string" && !ANSWERED.has(name)) return void (await options.deliver(null));
  const input = parseHostInput(codexProfile(), data);
  const env = options.env ?? process.env;
  // `~` in a command is the home every other step uses (an empty or relative $HOME is not one).
  // The globs are settled under the event's deadline too (per directory read and per candidate).
  const guard = guardOf(options.session?.fs ?? nodeFileSystem);
  const release = options.deadline ? guard.arm(options.deadline) : () => {};
  let found: Awaited<ReturnType<typeof codexEventTargets>>;
  try {
    found = await codexEventTargets(input, guard.fs, options.home ?? homeFromEnv(env, homedir));
  } finally {
    release(); // the shared algorithm arms it again
  }
  // validated once, above (the profile has no `foreign` check to run)
  await handleHostInput(codexProfile(found), input, options);
};
