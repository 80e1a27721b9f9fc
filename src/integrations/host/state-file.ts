/**
 * A conversation's state file without zod: where it is (`hostStateDir`, `conversationPath`) and
 * the `check` that ends it (the schema id and a checksum of the rest). host/store.ts reads and
 * writes the files; the hook's quiet stage (hook/quiet.ts) only tells which file and whether its
 * check holds, so it loads none of the schemas.
 */
import { join, xdgDir } from "../../core/paths.js";
import { checksum } from "../../core/checksum.js";

/** Longest encoded id kept readable; longer ones become a hash. */
const MAX_READABLE = 120;

/**
 * The base directory of a host's state files. Relative XDG values are ignored (XDG spec).
 */
export function hostStateDir(host: string, env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(xdgDir(env, "XDG_STATE_HOME", home, ".local/state"), `agentsmd/${host}`);
}

/**
 * A conversation id as a file-name part: reversible percent-escaping of everything but
 * `[A-Za-z0-9_-]` (so `.`, `/` and `%` never stay; UTF-8 bytes as `%XX`, a lone surrogate as
 * `%uXXXX`), or `~` + a SHA-256 when that is too long.
 * Two different ids never give the same name: escaped names have no `~`, hashed ones start with it.
 */
export function encodeId(id: string): string {
  const escaped = id.replace(/[^A-Za-z0-9_-]/gu, (char) => {
    const code = char.codePointAt(0)!;
    // A lone surrogate has no UTF-8 form: its code unit is written out, so it stays distinct.
    if (code >= 0xd800 && code <= 0xdfff) return `%u${code.toString(16).toUpperCase()}`;
    return [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  });
  return escaped.length <= MAX_READABLE ? escaped : `~${sha256Hex(id)}`;
}

/** node:crypto on demand: a hook process with a plain id (the usual case) never pays its start-up. */
function sha256Hex(text: string): string {
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(text).digest("hex");
}

/** Who a state file belongs to: a conversation, and a subagent inside it (its own context). */
export interface ConversationId {
  id: string;
  agent?: string | undefined;
}

/**
 * The state file of one conversation in `dir`.
 */
export function conversationPath(dir: string, conversation: ConversationId): string {
  const agent = conversation.agent ? `.agent-${encodeId(conversation.agent)}` : "";
  return join(dir, `${encodeId(conversation.id)}${agent}.json`);
}

/**
 * Names the state schema a file's check vouches for. test/integrations/state-check.test.ts recomputes
 * it from the zod schemas of every host: a schema change without a new id fails there (a file
 * checked under the old id is then validated by the new schema once, and rewritten).
 */
export const STATE_SCHEMA_ID = "8a3034f9";

const CHECK_KEY = ',"check":"';

/**
 * A state document as written: its JSON with a last key `check` holding the schema id and the
 * checksum of the JSON without it.
 */
export function checkedText(state: object): string {
  const body = JSON.stringify(state);
  return `${body.slice(0, -1)}${CHECK_KEY}${STATE_SCHEMA_ID}.${checksum(body)}"}\n`;
}

/** The JSON a state file held before its check was added, when the check holds; else null. */
export function checkedBody(text: string): string | null {
  const at = text.lastIndexOf(CHECK_KEY);
  if (at < 0) return null;
  const body = `${text.slice(0, at)}}`;
  return text.slice(at) === `${CHECK_KEY}${STATE_SCHEMA_ID}.${checksum(body)}"}\n` ? body : null;
}

/**
 * The check a state text ends with when it holds (`<schema id>.<checksum>`), else null: what a
 * quiet certificate names the state it was made for by.
 */
export function stateCheckOf(text: string): string | null {
  if (checkedBody(text) === null) return null;
  return text.slice(text.lastIndexOf(CHECK_KEY) + CHECK_KEY.length, -3);
}
