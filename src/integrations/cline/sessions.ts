/**
 * Where Cline CLI 3.0.65 keeps a session (pure path algebra, no I/O): `<sessions>/<id>/<id>.*`,
 * its sessions directory from Cline's environment variables. The id a hook event names is
 * untrusted: only a plain name is ever joined to a path.
 */
import { join } from "../../core/paths.js";

/**
 * Cline's sessions directory: `$CLINE_SESSION_DATA_DIR`, else `$CLINE_DATA_DIR/sessions`, else
 * `$CLINE_DIR/data/sessions` (default `~/.cline/data/sessions`), as Cline 3.0.65 resolves it.
 */
export function clineSessionsDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const absoluteOf = (name: string) => {
    const value = env[name]?.trim();
    return value?.startsWith("/") ? value : undefined;
  };
  const sessions = absoluteOf("CLINE_SESSION_DATA_DIR");
  if (sessions !== undefined) return sessions;
  const data = absoluteOf("CLINE_DATA_DIR") ?? join(absoluteOf("CLINE_DIR") ?? join(home, ".cline"), "data");
  return join(data, "sessions");
}

/** A session id as Cline writes them (`1795852837610_s6vff`): letters, digits, `_`, `-`; nothing that could leave the directory. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The session's directory and its compaction record, or null when `id` is no plain session id (`../x`, `a/b`, empty). */
export function clineCompactionPath(sessions: string, id: string): { dir: string; file: string } | null {
  if (!SESSION_ID.test(id)) return null;
  const dir = join(sessions, id);
  return { dir, file: join(dir, `${id}.compaction.json`) };
}
