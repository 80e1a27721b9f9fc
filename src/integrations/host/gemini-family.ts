/**
 * Gemini CLI and Qwen Code as one family (Qwen Code forked Gemini CLI): the same hook answer
 * (`hookSpecificOutput.additionalContext`), file tools named by the same arguments, `context.fileName`
 * in a `settings.json` of the workspace or the user, a JSON-lines transcript, hooks in a settings
 * file (host/gemini-family-install.ts: apart, so the hook process never loads install code). What each does differently is a `GeminiFamilyHost` definition (gemini/input.ts,
 * qwen/input.ts); what each loads itself, and which event means what, stays in its folder.
 */
import { absolute, join } from "../../core/paths.js";
import { readTextFile } from "../../io/file-system.js";
import { transcriptHeaders, type HostEvent, type HostProfile, type NativeContext } from "./profile.js";
import { toolTargets, type TargetTable } from "./targets.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What one host of the family does its own way. */
export interface GeminiFamilyHost<Event extends string = string> {
  /** `agentsmd hook <host>`, its state directory and install records. */
  host: string;
  displayName: string;
  /** The folder of a workspace's settings (`.gemini`). */
  settingsFolder: string;
  /** The user's configuration directory (its `settings.json`). */
  userDir(home: string, env: Env): string;
  /** The variable the host sets to the project directory for a project hook's command. */
  projectDirVariable: string;
  /** The events whose answer carries context. */
  answered: readonly Event[];
  /** The event name an answer to any other event is framed with. */
  fallbackEvent: Event;
  /** Characters agentsmd keeps one answer under (neither host documents a limit). */
  contextLimit: number;
  /** Tool name -> the arguments naming its paths. */
  targets: TargetTable;
  /** `read_file` arguments that make a read show part of the file. */
  partialReadArgs: readonly string[];
  /** The context file names a settings file's `context.fileName` value sets; undefined: not set. */
  contextNames(value: unknown): string[] | undefined;
}

/** The answer of a family hook. */
export interface GeminiFamilyOutput<Event extends string = string> {
  hookSpecificOutput: { hookEventName: Event; additionalContext: string };
}

/** The fields of a family event the shared code reads. */
interface FamilyInput {
  hook_event_name: string;
  cwd: string;
  transcript_path?: string | undefined;
  tool_name?: string | undefined;
  tool_input?: Record<string, unknown> | undefined;
}

/**
 * The tool matcher agentsmd registers: a regular expression on the names of the host's target table.
 */
export function familyToolMatcher(targets: TargetTable): string {
  return `^(${Object.keys(targets).join("|")})$`;
}

/**
 * A tool event: its targets from the host's table; `read_file` shows the whole file unless one of
 * the host's range arguments is given.
 */
export function familyToolEvent(family: GeminiFamilyHost, base: Omit<HostEvent, "kind">, input: FamilyInput): HostEvent {
  const tool = input.tool_name ?? "";
  const args = input.tool_input ?? {};
  const targets = toolTargets(family.targets, { tool, input: args, cwd: base.cwd });
  const partial = family.partialReadArgs.some((name) => args[name] !== undefined);
  return { ...base, kind: "tool", targets, tool, ...(tool === "read_file" ? { read: partial ? "part" : "whole" } : {}) };
}

/** `context.fileName` of one settings file, as names; undefined when unset, unreadable or broken (the host keeps its defaults then too). */
async function settingsNames(family: GeminiFamilyHost, file: string): Promise<string[] | undefined> {
  try {
    const text = await readTextFile(file, 1024 * 1024);
    if (text === null) return undefined;
    return family.contextNames((JSON.parse(text) as { context?: { fileName?: unknown } } | null)?.context?.fileName);
  } catch {
    return undefined;
  }
}

/**
 * The context file names the host's settings configure: the workspace's, else the user's.
 */
export async function familyConfiguredNames(
  family: GeminiFamilyHost,
  cwd: string,
  context: Pick<NativeContext<unknown>, "home" | "env">,
): Promise<string[] | undefined> {
  return (
    (await settingsNames(family, join(join(cwd, family.settingsFolder), "settings.json"))) ??
    (await settingsNames(family, join(family.userDir(context.home, context.env), "settings.json")))
  );
}

/** What differs between the family's profiles (the rest is `familyProfile`'s). */
export type FamilyProfileParts<I extends FamilyInput, H> = Pick<HostProfile<I, H, never>, "input" | "normalize" | "state" | "native"> & {
  history: NonNullable<HostProfile<I, H, never>["transcript"]>["history"];
  sees: NonNullable<HostProfile<I, H, never>["transcript"]>["sees"];
};

/**
 * A family host's profile: its definition and its own parts on the shared frame, budget, headers,
 * turn-start redelivery and transcript.
 */
export function familyProfile<Event extends string, I extends FamilyInput, H>(
  family: GeminiFamilyHost<Event>,
  parts: FamilyProfileParts<I, H>,
): HostProfile<I, H, GeminiFamilyOutput<Event>> {
  const answered = (name: string): name is Event => (family.answered as readonly string[]).includes(name);
  return {
    host: family.host,
    displayName: family.displayName,
    input: parts.input,
    inputFix: `register \`agentsmd hook ${family.host}\` as a ${family.displayName} command hook (\`agentsmd install ${family.host}\`)`,
    normalize: parts.normalize,
    budget: { limit: family.contextLimit, default: 16_000 },
    headers: transcriptHeaders(family.displayName),
    frame: (text, input) => ({
      hookSpecificOutput: { hookEventName: answered(input.hook_event_name) ? input.hook_event_name : family.fallbackEvent, additionalContext: text },
    }),
    state: parts.state,
    native: parts.native,
    onPrompt: "redeliver",
    transcript: {
      path: (input) => (input.transcript_path ? absolute(input.transcript_path, absolute(input.cwd, "/")) : undefined),
      history: parts.history,
      sees: parts.sees,
    },
  };
}
