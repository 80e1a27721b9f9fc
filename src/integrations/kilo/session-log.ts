/**
 * Kilo Code's session log: its SQLite database `$XDG_DATA_HOME/kilo/kilo.db` (7.7), read by the
 * family's reader (host/family-session-log.ts) with Kilo's tool table. Loaded by the host
 * definition's `sessionLog` slot, never in a hook or plugin path.
 */
import { familySessionLog } from "../host/family-session-log.js";
import { kiloToolTargets } from "./index.js";

export const kiloSessionLog = familySessionLog({
  app: "kilo",
  database: "kilo.db",
  targets: (tool, input, metadata, cwd) => kiloToolTargets(tool, input, metadata, cwd),
});
