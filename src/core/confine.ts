/**
 * The one confinement rule for paths a repository names. A path taken from a project-level agent
 * config (`instructions`, `context.fileName`), from a rule file or from an instruction file
 * (imports, `{file:}`, a symlink) is read only when its real path lies inside the project; what
 * the user's own configuration names (home, environment, managed settings, agentsmd's config) is
 * the user's choice. Pure: io/real-path.ts `namedReadable` supplies the real paths.
 */
import { isInside, join } from "./paths.js";

/** Who named a path: the user's own configuration, or a file of the repository. */
export type Namer = "user" | "repository";

/**
 * True when a path named by `namer`, whose real path is `real`, may be read; `scope` is the real
 * path of the project (a tree without a VCS marker still has one: cwd and below).
 */
export function mayReadNamed(namer: Namer, real: string, scope: string): boolean {
  return namer === "user" || isInside(real, scope);
}

/**
 * Who owns an agent's config directory found at `dir`: the user when it is the home's own
 * (`~/.opencode`), the agent's global directory or one the environment names; any other (found
 * walking from cwd up, inside the project or above it) is the repository's, wherever the
 * project's scope ends.
 */
export function configDirNamer(dir: string, where: { home: string; own: readonly (string | undefined)[]; names: readonly string[] }): Namer {
  if (where.own.includes(dir)) return "user";
  return where.names.some((name) => join(where.home, name) === dir) ? "user" : "repository";
}

/**
 * The environment a config text's `{env:NAME}` references see: the variables for the user's own
 * configuration, none for a repository's (the reference stays as written, so no value of yours
 * reaches a path, a message or the model).
 */
export function envFor<T>(namer: Namer, env: T): T | undefined {
  return namer === "user" ? env : undefined;
}

/** `{env:NAME}` references of a config text (what {@link envFor} leaves as written in a repository's). */
export function envReferences(text: string): string[] {
  return [...text.matchAll(/\{env:([^}]+)\}/g)].map((match) => match[0]);
}

/** The finding code when the agent itself loads a file the repository names outside the project. */
export const AGENT_OUTSIDE_CODE = "agent-config-outside-project";
