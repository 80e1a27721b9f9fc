/**
 * The hook-process adapter of the conversation engine (host/conversation.ts): stdin text -> the
 * host's validated event -> the engine, with the conversation's state file as its store
 * (host/stores.ts `fileStore`: lock, atomic writes) and the event's deadline on every read until
 * the answer is handed over. A file counts as admitted only after the answer carrying it was
 * handed over, and the step runs under the conversation's lock, so parallel hook processes never
 * deliver a file twice or lose an update.
 */
import { homedir } from "../../io/require.js";
import * as z from "zod/mini";
import { absolute, homeFromEnv } from "../../core/paths.js";
import { AgentsMdError } from "../../core/errors.js";
import { nodeFileSystem } from "../../io/file-system.js";
import { guardOf } from "../../io/deadline-fs.js";
import type { Deadline } from "../../core/deadline.js";
import type { SessionOptions } from "../../session/session.js";
import { builtInConfig } from "../../load/config.js";
import type { HostProfile } from "./profile.js";
import { eventTargets } from "./targets.js";
import { conversationPath, conversationFormat, hostStateDir } from "./store.js";
import { stateCheckOf } from "./state-file.js";
import { agentsmdVersion } from "./quiet-format.js";
import { quietCertifier } from "./quiet-certificate.js";
import { fileStore } from "./stores.js";
import { runConversationEvent, type ConversationRun } from "./conversation.js";

/** Input that is not an event of the host it was given to. */
export class HookInputError extends AgentsMdError {}

export interface HostHookOptions<O> {
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** @default env.HOME or os.homedir() */
  home?: string;
  /** Session options (preset, config, configFile, fs). cwd comes from the event. */
  session?: Omit<SessionOptions, "cwd" | "home" | "env">;
  /** Where state files go. @default the profile's, else $XDG_STATE_HOME/agentsmd/<host> */
  stateDir?: string;
  /** Character budget of one answer. @default the profile's */
  budget?: number;
  /**
   * Called with the answer while the conversation lock is held, before the state is saved: a file
   * is marked admitted only after it was handed over. null (print nothing) may come without the
   * lock: a call that changes nothing takes none.
   */
  deliver?(output: O | null): void | Promise<void>;
  /** Non-fatal problems (an unreadable or corrupt state file that was replaced). */
  onDiagnostic?(message: string): void;
  /**
   * The event's deadline (core/deadline.ts): checked at every file read and rule match until the
   * answer is handed over; past it the event throws DeadlineExceeded and nothing is admitted.
   * @default none
   */
  deadline?: Deadline;
  /**
   * Certify quiet answers beside the state file for the hook's quiet stage (hook/quiet.ts): the
   * hosts whose definition has `hook.quiet`. @default false
   */
  quiet?: boolean;
}

/**
 * Session caps for hooks: each answer is bounded by the character budget (what does not fit is
 * named), so the per-session inline caps only guard memory. A config given by the user wins.
 */
const HOOK_LAZY_CAPS = Object.freeze({ maxFiles: 10_000, maxBytes: 16 * 1024 * 1024 });

/** The session config of a hook when the user gives none (test/integrations/host.test.ts validates it). */
export const HOOK_CONFIG = builtInConfig({ lazy: HOOK_LAZY_CAPS });

/** What parsing an event needs of a profile. */
export type HostInputSide<I> = Pick<HostProfile<I, unknown, unknown>, "host" | "displayName" | "input" | "inputFix">;

/**
 * Validates a parsed event against the profile's schema; throws HookInputError naming the first problem.
 */
export function parseHostInput<I>(profile: HostInputSide<I>, data: unknown): I {
  const result = z.safeParse(profile.input, data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new HookInputError(
    `hook input is not a ${profile.displayName} hook event: ${issue ? `${issue.path.join(".") || "(top level)"}: ${issue.message}` : "invalid"}`,
    {
      fix: profile.inputFix ?? `register \`agentsmd hook ${profile.host}\` as a command hook`,
    },
  );
}

/**
 * Parses a hook's stdin text; throws HookInputError when it is not JSON or not the host's event.
 */
export function parseHostText<I>(profile: HostInputSide<I>, text: string): I {
  return parseHostInput(profile, readHostJson(profile, text));
}

/**
 * A hook's stdin as JSON, not yet validated. Throws HookInputError when it is not JSON.
 */
function readHostJson(profile: Pick<HostInputSide<unknown>, "displayName">, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`hook input is not JSON (${(error as Error).message})`, {
      fix: `run this command as a ${profile.displayName} hook: it reads the event JSON on stdin`,
    });
  }
}

/**
 * Handles one host event: validates it against the profile, and returns the answer (also handed
 * to `options.deliver`), or null when there is nothing to say. Throws HookInputError for input
 * that is not the host's event.
 */
export async function handleHostEvent<I, H, O>(profile: HostProfile<I, H, O>, raw: unknown, options: HostHookOptions<O> = {}): Promise<O | null> {
  // Another host that runs this host's hooks (with its own fields): silence rather than half-work.
  const foreign = profile.foreign?.(raw, options.env ?? process.env) ?? null;
  return handleHostInput(profile, foreign === null ? parseHostInput(profile, raw) : null, options);
}

/**
 * `handleHostEvent` for an event already validated (`parseHostInput`) by a runner that needed it
 * first (Codex computes its targets before): the event is not validated twice. null: no answer.
 */
export async function handleHostInput<I, H, O>(profile: HostProfile<I, H, O>, input: I | null, options: HostHookOptions<O> = {}): Promise<O | null> {
  // Before the first look at the disk: what a quiet certificate's directories must be unchanged since.
  const since = Date.now();
  const env = options.env ?? process.env;
  const event = input === null ? null : profile.normalize(input);
  if (input === null || event === null || event.kind === "ignore" || (event.kind === "tool" && event.targets.length === 0)) {
    await options.deliver?.(null);
    return null;
  }
  const home = options.home ?? homeFromEnv(env, homedir);
  // Every read until the answer is handed over checks the deadline; the save after it does not.
  const baseFs = options.session?.fs ?? nodeFileSystem;
  const guard = guardOf(baseFs);
  const release = options.deadline ? guard.arm(options.deadline) : () => {};
  const dir = options.stateDir ?? profile.stateDir?.(env) ?? hostStateDir(profile.host, env, home);
  const statePath = conversationPath(dir, event.conversation);
  const run: ConversationRun<I, H, O> = {
    profile,
    input,
    event: { ...event, cwd: absolute(event.cwd, "/"), targets: eventTargets(event.targets) },
    env,
    home,
    fs: guard.fs,
    budget: Math.min(options.budget ?? profile.budget.default, profile.budget.limit - 1),
    sessionOptions: (cwd) => hookSessionOptions(profile, options, { fs: guard.fs, cwd, home, env }),
    // The lock is taken and released without the deadline: a check there would leave it behind.
    store: fileStore(statePath, conversationFormat(profile.host, profile.state.schema), {
      fs: guard.fs,
      lockFs: baseFs,
      diagnose: (message) => options.onDiagnostic?.(message),
    }),
    ...(options.quiet
      ? {
          quiet: quietCertifier({
            statePath,
            host: profile.host,
            version: await agentsmdVersion(),
            env,
            fs: guard.fs,
            writeFs: baseFs,
            since,
            checkOf: stateCheckOf,
          }),
        }
      : {}),
    deliver: async (output) => {
      // A check swallowed on the way (a read's error taken for an absent file) is seen here: past
      // the deadline no answer is handed over and no state saved, so nothing is admitted or lost.
      guard.check();
      release();
      await options.deliver?.(output);
    },
  };
  try {
    return await runConversationEvent(run);
  } finally {
    release();
  }
}

/** A hook's session options: the caller's, the profile's preset, HOOK_CONFIG unless a config is given. */
function hookSessionOptions<O>(
  profile: Pick<HostProfile<unknown, unknown, O>, "host" | "preset">,
  options: HostHookOptions<O>,
  at: Pick<SessionOptions, "fs" | "cwd" | "home" | "env">,
): SessionOptions {
  const own = options.session ?? {};
  const config = own.config ?? (own.configFile === undefined ? HOOK_CONFIG : undefined);
  const preset = own.preset ?? profile.preset;
  return {
    host: profile.host,
    ...own,
    fs: at.fs,
    ...(preset !== undefined ? { preset } : {}),
    ...(config !== undefined ? { config } : {}),
    cwd: at.cwd,
    home: at.home,
    env: at.env,
  };
}

/** What `agentsmd hook <host>` passes to a host's runner. */
interface HookRunOptions extends Omit<HostHookOptions<unknown>, "deliver"> {
  /** The host's own command-line flags (see HookHostEntry.flags), validated against their choices. */
  flags: Readonly<Record<string, string | undefined>>;
  deliver(output: unknown): void | Promise<void>;
}

/** Reads one event from stdin text and delivers the answer (`agentsmd hook <host>`). */
export type HookRunner = (text: string, options: HookRunOptions) => Promise<void>;

/**
 * A runner for a profile: stdin text -> JSON -> one validation -> the delivery algorithm.
 */
export function hookRunner<I, H, O>(profileFor: (flags: Readonly<Record<string, string | undefined>>) => HostProfile<I, H, O>): HookRunner {
  return async (text, options) => {
    const profile = profileFor(options.flags);
    await handleHostEvent(profile, readHostJson(profile, text), options);
  };
}
