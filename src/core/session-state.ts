/**
 * Validation of persisted session state (the `--state` file, `restoreSession`).
 */
import { StateError } from "./errors.js";
import { formatIssues } from "./config-schema.js";
import { SESSION_STATE_VERSION, sessionStateSchema, type SessionState } from "./state-schema.js";

/**
 * Validates a state document; throws StateError naming what is wrong.
 * @example const state = parseSessionState(JSON.parse(text), "state file /tmp/s.json");
 */
export function parseSessionState(data: unknown, source = "session state"): SessionState {
  if (typeof data === "object" && data !== null && "version" in data && data.version !== SESSION_STATE_VERSION) {
    throw new StateError(`${source} has version ${JSON.stringify(data.version)}; this agentsmd reads version ${SESSION_STATE_VERSION}`, {
      path: source,
      fix: "delete the state file to start a new session",
    });
  }
  const result = sessionStateSchema().safeParse(data);
  if (!result.success) {
    throw new StateError(`${source} is not a valid agentsmd session state:\n${formatIssues(result.error)}`, {
      path: source,
      cause: result.error,
      fix: "delete the state file to start a new session",
    });
  }
  return result.data;
}
