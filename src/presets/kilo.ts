/**
 * Preset `kilo`: Kilo Code CLI 7.7.7 (`@kilocode/cli`), a fork of OpenCode whose `Instruction`
 * service runs OpenCode's algorithm (presets/opencode.ts, one family) with Kilo's names:
 *
 * - Global: exactly one file, the first existing (in any form) of `$KILO_CONFIG_DIR/AGENTS.md`
 *   (when set), `<config dir>/AGENTS.md` (Kilo's config dir is `$KILO_CONFIG_DIR` when set, else
 *   `$XDG_CONFIG_HOME/kilo` or `~/.config/kilo`) and `~/.claude/CLAUDE.md`. The last is not a
 *   candidate after Kilo's Claude Code migration (its receipt `claude-migration.json` in Kilo's
 *   state dir) unless one of `CLAUDE_CONFIG_DIR`, `KILO_CONFIG_DIR`, `KILO_CONFIG`,
 *   `KILO_CONFIG_CONTENT` is set.
 * - Project: AGENTS.md, CLAUDE.md, CONTEXT.md: the first name with any match from cwd up to the
 *   worktree wins and all its matches load, nearest first (as OpenCode).
 * - `KILO_DISABLE_CLAUDE_CODE` / `KILO_DISABLE_CLAUDE_CODE_PROMPT` drop every CLAUDE.md;
 *   `KILO_DISABLE_PROJECT_CONFIG` drops the project files.
 * - Text: Kilo's config variables (load/kilo-variables.ts): `{file:...}` inlined, `{env:...}`
 *   substituted in the global file and refusing a project file (its text becomes "", and Kilo
 *   drops empty files). Text as read, a leading BOM kept. Framing as OpenCode:
 *   `Instructions from: <path>\n<text>`.
 * - Nested on read: the first of the same names per directory below cwd, in a `<system-reminder>`.
 * - Config `instructions` (OpenCode's reader, opencode-instructions.ts, with {@link KILO_CONFIG_LAYOUT}):
 *   its legacy rule files (`.kilo/rules/*.md`, `.kilocode/rules/*.md` in the home and in cwd,
 *   `.kilocoderules`), then the lists of the global config (`config.json`, `kilo.json`, `kilo.jsonc`,
 *   `opencode.json`, `opencode.jsonc` in its config dir), `$KILO_CONFIG`, the project's `kilo.json(c)`
 *   then `opencode.json(c)`, `.kilocode`/`.kilo` directories, `$KILO_CONFIG_DIR`,
 *   `$KILO_CONFIG_CONTENT`, `/etc/kilo`; after the project files, each file once, its text read as a
 *   project file's; a file outside the project is read only when a home-level config lists it by an
 *   absolute path (Kilo's file scope and trust) (`--no-agent-config`: none).
 *
 * Not reproduced: `KILO_TEST_HOME` (Kilo's test override of the home for ~/.claude); an empty
 * `KILO_CONFIG_DIR` (Kilo then looks for `AGENTS.md` relative to its process directory) counts as unset;
 * of config `instructions`: the text of a trusted listed file gets `{env:}` and `{file:}` from
 * anywhere in Kilo (agentsmd reads it as a project file's); `{env:}` in a project config's own text;
 * remote and organisation configs; the `.kilo` directories of a linked git worktree's primary checkout.
 * Proven byte for byte against Kilo 7.7.7's system prompt by e2e/kilo/preset.e2e.test.ts.
 */
import { DEFAULT_EXCLUDES, type Preset, type PresetEnv } from "./preset.js";
import type { FileSystem } from "../io/file-system.js";
import { join } from "../core/paths.js";
import { OPENCODE_NAMES, claudeDisabled, familyListed, familyPrepare, opencodePreset, type OpenCodeFamily } from "./opencode.js";
import { managedConfigDir, type FamilyConfigLayout, type OpenCodeContext } from "./opencode-instructions.js";

/** Set (not blank) in any of these, Kilo does not hand ~/.claude over to its migration. */
const UNSUPPORTED_HANDOFF: readonly string[] = ["CLAUDE_CONFIG_DIR", "KILO_CONFIG_DIR", "KILO_CONFIG", "KILO_CONFIG_CONTENT"];

/** `$name/<sub>` when the variable is set (not empty), else `~/<fallback>/<sub>` (xdg-basedir). */
function xdg(context: PresetEnv, name: string, fallback: string, sub: string): string {
  const value = context.env[name];
  return join(value && value.length > 0 ? value : join(context.home, fallback), sub);
}

/**
 * Kilo's global config directory: `$KILO_CONFIG_DIR` when set, else `$XDG_CONFIG_HOME/kilo`, else `~/.config/kilo`.
 */
export function kiloConfigDir(context: PresetEnv): string {
  return context.env.KILO_CONFIG_DIR || xdg(context, "XDG_CONFIG_HOME", ".config", "kilo");
}

async function isDirectory(fs: FileSystem, path: string): Promise<boolean> {
  return (await fs.stat(path).catch(() => null))?.kind === "directory";
}

/**
 * Kilo's state directory: without `$XDG_STATE_HOME`, its legacy `<data dir>/state` when that is a
 * directory; else `$XDG_STATE_HOME/kilo` (`~/.local/state/kilo`).
 */
export async function kiloStateDir(context: PresetEnv, fs: FileSystem): Promise<string> {
  const legacy = join(xdg(context, "XDG_DATA_HOME", join(".local", "share"), "kilo"), "state");
  if (!context.env.XDG_STATE_HOME && (await isDirectory(fs, legacy))) return legacy;
  return xdg(context, "XDG_STATE_HOME", join(".local", "state"), "kilo");
}

/** The Markdown files directly in `dir` (regular files only), in listing order. */
async function markdownFiles(fs: FileSystem, dir: string): Promise<string[]> {
  const entries = await fs.readdirUnsorted(dir).catch(() => []);
  return entries.filter((entry) => entry.kind === "file" && entry.name.endsWith(".md")).map((entry) => join(dir, entry.name));
}

/**
 * Kilo's legacy rule files (its `RulesMigrator`), which it adds to `instructions` before every
 * config layer: `*.md` in `~/.kilo/rules` and `~/.kilocode/rules`, then in `<cwd>/.kilo/rules`
 * and `<cwd>/.kilocode/rules` (a name once per side), then `<cwd>/.kilocoderules`.
 */
async function kiloLegacyRules({ cwd, home, fs }: OpenCodeContext): Promise<{ file: string; entries: string[] } | undefined> {
  const entries: string[] = [];
  for (const dirs of [
    [join(home, ".kilo/rules"), join(home, ".kilocode/rules")],
    [join(cwd, ".kilo/rules"), join(cwd, ".kilocode/rules")],
  ]) {
    const names = new Set<string>();
    for (const dir of dirs) {
      for (const file of await markdownFiles(fs, dir)) {
        const name = file.slice(dir.length + 1);
        if (names.has(name)) continue;
        names.add(name);
        entries.push(file);
      }
    }
  }
  const legacy = join(cwd, ".kilocoderules");
  if ((await fs.stat(legacy).catch(() => null))?.kind === "file") entries.push(legacy);
  return { file: "Kilo's rule files (.kilo/rules, .kilocode/rules, .kilocoderules)", entries };
}

/** Kilo 7.7.7's configuration layout (its `Config.loadInstanceState`). */
const KILO_CONFIG_LAYOUT: FamilyConfigLayout = {
  product: "Kilo",
  globalDir: (home, env) => kiloConfigDir({ home, env }),
  globalFiles: ["config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"],
  projectBases: ["kilo", "opencode"],
  projectSwitch: "KILO_DISABLE_PROJECT_CONFIG",
  configDirs: [".kilocode", ".kilo"],
  dirFiles: ["kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json"],
  vars: { config: "KILO_CONFIG", configDir: "KILO_CONFIG_DIR", content: "KILO_CONFIG_CONTENT" },
  managedDir: (env) => managedConfigDir("kilo", "KILO_TEST_MANAGED_CONFIG_DIR", env),
  disabledProjectDir: (home, env) => env.KILO_CONFIG_DIR ?? kiloConfigDir({ home, env }),
  fileScope: true,
  legacy: kiloLegacyRules,
};

function claudeGlobal(context: PresetEnv): string {
  return join(join(context.home, ".claude"), "CLAUDE.md");
}

/** Kilo 7.7.7's switches and global candidates. */
export const KILO_FAMILY: OpenCodeFamily = {
  claudeSwitches: ["KILO_DISABLE_CLAUDE_CODE", "KILO_DISABLE_CLAUDE_CODE_PROMPT"],
  config: KILO_CONFIG_LAYOUT,
  globalCandidates(context) {
    const extra = context.env.KILO_CONFIG_DIR;
    const candidates = [...(extra ? [join(extra, "AGENTS.md")] : []), join(kiloConfigDir(context), "AGENTS.md")];
    if (!claudeDisabled(KILO_FAMILY, context.env)) candidates.push(claudeGlobal(context));
    return candidates;
  },
  // Kilo's `globalHandoff()`: after a Claude Code migration ~/.claude belongs to Kilo's own config.
  async omit(context, fs) {
    if (UNSUPPORTED_HANDOFF.some((name) => (context.env[name] ?? "").trim() !== "")) return [];
    const receipt = join(await kiloStateDir(context, fs), "claude-migration.json");
    return (await fs.stat(receipt).catch(() => null)) ? [claudeGlobal(context)] : [];
  },
};

export const kiloPreset: Preset = {
  ...opencodePreset,
  name: "kilo",
  description:
    "Kilo Code CLI 7.x: global file + first name type with any match from cwd up to the worktree, {file:}/{env:} config variables; nested files on read below cwd",
  // Kilo reads with readFile(path, "utf-8"): a BOM stays (OpenCode drops it). Kilo has no size
  // limit, so the cut only applies past agentsmd's default budget.
  text: { ...opencodePreset.text, cut: "byte" },
  imports: { enabled: true, locked: true, marker: "kilo" },
  userLayers: (context) => [
    {
      candidates: KILO_FAMILY.globalCandidates(context),
      select: "first-non-empty",
      trim: false,
      keepEmpty: true,
      firstExisting: true,
      omit: (fs) => KILO_FAMILY.omit!(context, fs),
    },
  ],
  prepare: familyPrepare(KILO_FAMILY),
  listed: familyListed(KILO_FAMILY),
};

/**
 * What `agentsmd/kilo` resolves with inside Kilo: Kilo's names per directory with
 * `AGENTS.override.md` first, from the root down to any touched path, common build directories
 * excluded, Kilo's config variables. The plugin itself skips what Kilo loads.
 */
export const kiloPluginPreset: Preset = {
  ...kiloPreset,
  name: "kilo-plugin",
  description: "agentsmd/kilo: AGENTS.override.md, AGENTS.md, CLAUDE.md, CONTEXT.md per directory, root to any touched path, Kilo's config variables",
  files: { names: ["AGENTS.override.md", ...OPENCODE_NAMES], select: "first" },
  lazy: { ...kiloPreset.lazy, exclude: DEFAULT_EXCLUDES },
  scope: { ...kiloPreset.scope, nested: "root" },
  prepare: undefined,
  // Kilo loads its config instructions itself.
  listed: undefined,
};
