/**
 * The launcher's gate in front of the quiet stage (hook/quiet.ts): whether a host's raw event can
 * be answered quietly at all, found before any bundle loads. Most calls cannot (a SessionStart, a
 * prompt, a tool call outside the certified directories), and loading the quiet bundle to learn
 * that cost them about as much as the stage saves a certified one.
 *
 * Necessary conditions only: "yes" loads the quiet stage, which checks everything itself; "no"
 * sends the call to the host's bundle, which answers it as without the stage. So the text is read
 * by plain search, not parsed: the event is the host's tool event, the conversation it names has
 * a certificate (a regular file of this user, opened without following a link, never blocking),
 * and a target lies in or below one of the directories the certificate's head line lists (read
 * within HEAD_MAX bytes). A head it cannot read means "no".
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import { conversationPath, hostStateDir, type ConversationId } from "../integrations/host/state-file.js";
import { certificateHead, quietPath, type QuietGate } from "../integrations/host/quiet-format.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The most of a certificate the gate reads for its head (32 directories of 500 bytes). */
const HEAD_MAX = 16 * 1024;

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The first string value of `key` in a JSON text (any depth; `orFirst`: or the first item of its list), or undefined. */
function stringAt(text: string, key: string, orFirst = false): string | undefined {
  const match = new RegExp(`${JSON.stringify(key)}\\s*:\\s*${orFirst ? "\\[?\\s*" : ""}("(?:[^"\\\\]|\\\\.)*")`).exec(text);
  if (match === null) return undefined;
  try {
    return JSON.parse(match[1]!) as string;
  } catch {
    return undefined;
  }
}

/**
 * The conversation a host's tool event names, or null when the text is not that host's tool event
 * as far as a search tells. Pure.
 */
export function gateConversation(text: string, gate: QuietGate): ConversationId | null {
  if (!text.includes(gate.toolEvent)) return null;
  const id = stringAt(text, gate.conversation);
  if (!id) return null;
  const agent = gate.agent === undefined ? undefined : stringAt(text, gate.agent);
  return { id, agent: agent || undefined };
}

/** Whether the text holds the JSON string `path`, or one that starts with `path` and a separator. */
function namesPath(text: string, path: string): boolean {
  const spelled = JSON.stringify(path).slice(0, -1);
  const below = path.endsWith(sep) ? spelled : spelled + JSON.stringify(sep).slice(1, -1);
  return text.includes(`${spelled}"`) || text.includes(below);
}

/**
 * Whether the text holds a JSON string that is one of `dirs` or a path below one (a tool's target
 * as the host wrote it, or its cwd): a quiet directory vouches for the directories below it too
 * (host/quiet-format.ts `belowPremises`). With `base` (the directory a host's relative targets are
 * taken against), a directory below it is looked for spelled relative to it as well. Pure.
 */
export function namesPathIn(text: string, dirs: readonly string[], base?: string): boolean {
  const prefix = base === undefined || !isAbsolute(base) ? undefined : base.endsWith(sep) ? base : base + sep;
  for (const dir of dirs) {
    if (namesPath(text, dir)) return true;
    if (prefix !== undefined && dir.length > prefix.length && dir.startsWith(prefix) && namesPath(text, dir.slice(prefix.length))) return true;
  }
  return false;
}

/** The first line of a regular file of this user, not a link, read within HEAD_MAX bytes; null otherwise. */
function headLine(path: string, uid: number | undefined): string | null {
  const seen = lstatSync(path);
  if (!seen.isFile() || (uid !== undefined && seen.uid !== uid)) return null;
  const fd = openSync(path, READ_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.ino !== seen.ino || info.dev !== seen.dev) return null;
    const bytes = Buffer.allocUnsafe(Math.min(info.size, HEAD_MAX));
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    const text = bytes.toString("latin1", 0, read);
    const end = text.indexOf("\n");
    return end < 0 ? null : bytes.toString("utf8", 0, end);
  } finally {
    closeSync(fd);
  }
}

/** The state directory the gate looks in: the host's quiet stage's (its `stateDir`, else XDG's). */
export function gateStateDir(host: string, gate: QuietGate, env: Env, home: string): string {
  const named = gate.stateEnv === undefined ? undefined : env[gate.stateEnv.name];
  return named && isAbsolute(named) ? join(named, gate.stateEnv!.folder) : hostStateDir(host, env, home);
}

/**
 * Whether the quiet stage of `host` may answer this event: false is sure (the caller skips the
 * stage), true only possible. Never throws.
 */
export function quietGateOpen(host: string, gate: QuietGate, text: string, env: Env): boolean {
  try {
    const conversation = gateConversation(text, gate);
    const home = env.HOME;
    if (conversation === null || !home || !isAbsolute(home)) return false;
    const head = headLine(quietPath(conversationPath(gateStateDir(host, gate, env, home), conversation)), process.getuid?.());
    const dirs = head === null ? null : certificateHead(head);
    return dirs !== null && namesPathIn(text, dirs, gate.base === undefined ? undefined : stringAt(text, gate.base, true));
  } catch {
    return false;
  }
}
