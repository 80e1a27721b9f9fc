/**
 * Preset `crush`: what Crush (Charm's coding agent) loads by itself, read from its source
 * (charmbracelet/crush v0.90.0, `internal/config/config.go` `defaultContextPaths`,
 * `internal/config/load.go` `setDefaults`, `internal/agent/prompt/prompt.go` `loadContextFiles`,
 * `internal/agent/templates/coder.md.tpl`); no run of the binary (docs/hosts/crush.md):
 *
 * - the context files of its working directory alone (no walk up to a `.git`, nothing below):
 *   the names are de-duplicated by their lower-cased path after a byte sort, so on a
 *   case-sensitive disk only the upper-case spellings count (`AGENTS.md`, not `agents.md`);
 *   every one present is put into the system prompt (`<project_context>`);
 * - two user files, `<config>/crush/CRUSH.md` and `<config>/AGENTS.md`, `<config>` being
 *   `$XDG_CONFIG_HOME` else `~/.config` (`$CRUSH_GLOBAL_CONFIG` moves the first's directory, the
 *   second is beside it), under `<user_preferences>`;
 * - nothing when a tool touches a path: nested files are what `agentsmd hook crush` adds.
 *
 * Not modelled: `.github/copilot-instructions.md`, `.cursorrules` and every file under
 * `.cursor/rules/` (also read from the working directory, as they are), `options.context_paths`
 * of a `crush.json`.
 */
import { join, parentOf } from "../core/paths.js";
import { codeliaRenderer } from "../core/render.js";
import { DEFAULT_EXCLUDES, SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Preset } from "./preset.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Crush's user configuration directory (where `crush.json`, `CRUSH.md` live).
 */
export function crushConfigDir(home: string, env: Env): string {
  const global = env.CRUSH_GLOBAL_CONFIG?.trim();
  if (global?.startsWith("/")) return global;
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg?.startsWith("/") ? xdg : join(home, ".config"), "crush");
}

export const crushPreset: Preset = {
  name: "crush",
  description: "Crush: AGENTS.md, CRUSH.md, CLAUDE.md, GEMINI.md (and .local variants) in cwd only, ~/.config/crush/CRUSH.md + ~/.config/AGENTS.md",
  root: { markers: [".git"], stopAtFsRoot: true },
  files: { names: ["AGENTS.md", "CLAUDE.local.md", "CLAUDE.md", "CRUSH.local.md", "CRUSH.md", "GEMINI.md"], select: "all" },
  initial: { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: 50, maxBytes: 256 * 1024, exclude: DEFAULT_EXCLUDES },
  scope: SPEC_SCOPE,
  startup: { ...SPEC_STARTUP, dirs: "cwd" },
  text: SPEC_TEXT,
  dedupe: "path",
  renderer: codeliaRenderer,
  userLayers: ({ home, env }) => {
    const dir = crushConfigDir(home, env);
    return [{ candidates: [join(dir, "CRUSH.md"), join(parentOf(dir), "AGENTS.md")], select: "all", trim: false }];
  },
};
