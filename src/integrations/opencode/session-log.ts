/**
 * OpenCode's session log: its SQLite database `$XDG_DATA_HOME/opencode/opencode.db` (1.18), read
 * by the family's reader (host/family-session-log.ts) with OpenCode's tool table. Loaded by the
 * host definition's `sessionLog` slot, never in a hook or plugin path.
 */
import { familySessionLog } from "../host/family-session-log.js";
import { toolTargets } from "./index.js";

export const opencodeSessionLog = familySessionLog({
  app: "opencode",
  database: "opencode.db",
  targets: (tool, input, metadata, cwd) => toolTargets(tool, input, metadata, cwd),
});
