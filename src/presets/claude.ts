/**
 * Preset `claude`: what Claude Code loads by itself (docs/loading-rules.md#claude-code), so `show`, `list` and `explain`
 * tell a user exactly what Claude Code sees, and the Claude Code hook knows what never to repeat.
 *
 * - every directory from `/` down to cwd: `CLAUDE.md`, `.claude/CLAUDE.md`, then `CLAUDE.local.md`;
 * - user layers: the managed `/etc/claude-code/CLAUDE.md`, then `~/.claude/CLAUDE.md`
 *   (`$CLAUDE_CONFIG_DIR/CLAUDE.md` when set);
 * - nested files below cwd on touch;
 * - the built-in AGENTS.md support (≥ 2.1.277): `AGENTS.md` and `.claude/AGENTS.md`
 *   only when no `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` exists in cwd or any
 *   ancestor (nested: `AGENTS.md` in a directory without CLAUDE files), or always with
 *   `instructionFiles: "claude-md-and-agents-md"`, never with `"claude-md"`.
 *
 * `@path` imports expand (imports.ts; on by default, `imports.enabled` switches them).
 * - Claude Code's settings (`claudeExcludes`): `claudeMdExcludes` from the managed, user
 *   (`$CLAUDE_CONFIG_DIR/settings.json`), project and local settings hides memory files (never the
 *   managed one), and an excluded CLAUDE.md does not switch AGENTS.md off; with
 *   `CLAUDE_CODE_DISABLE_CLAUDE_MDS` nothing loads. Proven in e2e/claude-code/settings.e2e.test.ts.
 *
 * Not modelled: `.claude/rules/`, auto memory, the 4 MiB skip, managed-only mode.
 */
import { compileGlob } from "../core/glob.js";
import { SPEC_SCOPE, SPEC_STARTUP, SPEC_TEXT, type Excludes, type ListedContext, type PrepareContext, type PreparedGroups, type Preset } from "./preset.js";
import { type RenderBlock, type Renderer } from "../core/render.js";
import { ancestors, join, nameOf, parentOf } from "../core/paths.js";
import { trimEndText } from "../core/budget.js";
import { readJsonQuietly, type FileSystem } from "../io/file-system.js";
import { quote } from "../core/quote.js";

/** The files that count as "a CLAUDE.md", in load order within a directory. */
export const CLAUDE_MD_NAMES: readonly string[] = ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"];
/** What the built-in AGENTS.md support reads at startup in each directory. */
export const CLAUDE_AGENTS_NAMES: readonly string[] = ["AGENTS.md", ".claude/AGENTS.md"];
/**
 * Claude Code tools whose target path triggers delivery (the hook's PostToolUse matcher is built
 * from this list). Grep and Glob count only with a `path`.
 */
export const CLAUDE_FILE_TOOLS: ReadonlySet<string> = new Set(["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Grep", "Glob"]);

/** Values of Claude Code's "Project instructions" setting (`instructionFiles`). */
type InstructionFilesMode = "claude-md-or-agents-md" | "claude-md-and-agents-md" | "claude-md" | "managed-only";
const MODES: readonly string[] = ["claude-md-or-agents-md", "claude-md-and-agents-md", "claude-md", "managed-only"];

/** Plugin ids under which Claude Code keeps the built-in AGENTS.md options (both read since 2.1.285). */
const PLUGIN_IDS = ["cc-plugin-agents-md@builtin", "agents-md@builtin"];

/** Managed settings and the managed CLAUDE.md, by platform. */
function managedDir(): string {
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode";
  if (process.platform === "win32") return "C:\\Program Files\\ClaudeCode";
  return "/etc/claude-code";
}

/**
 * `~/.claude`, or `$CLAUDE_CONFIG_DIR`.
 */
export function claudeConfigDir(home: string, env: Readonly<Record<string, string | undefined>>): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.length > 0 ? dir : join(home, ".claude");
}

function modeIn(settings: unknown): InstructionFilesMode | undefined {
  if (typeof settings !== "object" || settings === null) return undefined;
  const configs = (settings as { pluginConfigs?: unknown }).pluginConfigs;
  if (typeof configs !== "object" || configs === null) return undefined;
  for (const id of PLUGIN_IDS) {
    const value = (configs as Record<string, { options?: { instructionFiles?: unknown } } | undefined>)[id]?.options?.instructionFiles;
    if (typeof value === "string" && MODES.includes(value)) return value as InstructionFilesMode;
  }
  return undefined;
}

/**
 * Claude Code's `instructionFiles` setting: managed settings win over `~/.claude/settings.json`;
 * project and local settings are ignored by Claude Code, so they are here too.
 */
async function instructionFilesMode(fs: FileSystem, home: string, env: Readonly<Record<string, string | undefined>>): Promise<InstructionFilesMode> {
  const managed = modeIn(await readJsonQuietly(fs, join(managedDir(), "managed-settings.json")));
  if (managed) return managed;
  return modeIn(await readJsonQuietly(fs, join(claudeConfigDir(home, env), "settings.json"))) ?? "claude-md-or-agents-md";
}

/**
 * The first `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` in `cwd` or an ancestor (nearest
 * first), or null. A symlink counts (it is what Claude Code sees). `~/.claude/CLAUDE.md` does not,
 * nor does a file `claudeMdExcludes` excludes (`exclude`): Claude Code then reads AGENTS.md there.
 */
async function claudeMdAtOrAbove(fs: FileSystem, cwd: string, exclude?: (path: string) => boolean): Promise<string | null> {
  const dirs = ancestors(cwd);
  const hits = await Promise.all(
    dirs.map(async (dir) => {
      for (const name of CLAUDE_MD_NAMES) {
        const path = join(dir, name);
        if (exclude?.(path)) continue;
        const info = await fs.stat(path).catch(() => null);
        if (info && info.kind === "file") return path;
      }
      return null;
    }),
  );
  return hits.find((hit) => hit !== null) ?? null;
}

export interface BuiltinAgentsMd {
  /** True when Claude Code itself loads AGENTS.md for a session started in `cwd`. */
  active: boolean;
  mode: InstructionFilesMode;
  /** The CLAUDE file that switches it off (default mode), if any. */
  claudeMd: string | null;
  reason: string;
}

/**
 * Whether Claude Code's built-in AGENTS.md support (≥ 2.1.277) is active for a session in `cwd`.
 */
export async function builtinAgentsMd(context: {
  fs: FileSystem;
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  exclude?: ((path: string) => boolean) | undefined;
}): Promise<BuiltinAgentsMd> {
  const mode = await instructionFilesMode(context.fs, context.home, context.env);
  if (mode === "claude-md" || mode === "managed-only") return { active: false, mode, claudeMd: null, reason: `instructionFiles is "${mode}"` };
  const claudeMd = await claudeMdAtOrAbove(context.fs, context.cwd, context.exclude);
  if (mode === "claude-md-and-agents-md") return { active: true, mode, claudeMd, reason: `instructionFiles is "${mode}"` };
  return claudeMd
    ? {
        active: false,
        mode,
        claudeMd,
        reason: `${quote(claudeMd)} exists at or above ${quote(context.cwd)}, which turns Claude Code's own AGENTS.md loading off`,
      }
    : { active: true, mode, claudeMd, reason: `no CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md at or above ${quote(context.cwd)}` };
}

/**
 * The name groups Claude Code uses for a session (see `Preset.prepare`).
 */
async function claudeGroups(context: PrepareContext): Promise<PreparedGroups> {
  const builtin = await builtinAgentsMd(context);
  if (!builtin.active) return { groups: [CLAUDE_MD_NAMES], reason: `AGENTS.md is not read: ${builtin.reason}` };
  if (builtin.mode === "claude-md-and-agents-md")
    return {
      groups: [[...CLAUDE_MD_NAMES, ...CLAUDE_AGENTS_NAMES]],
      lazyGroups: [[...CLAUDE_MD_NAMES, "AGENTS.md"]],
      reason: `AGENTS.md is read beside CLAUDE.md: ${builtin.reason}`,
    };
  // No CLAUDE file at or above cwd: AGENTS.md there; below, a directory's CLAUDE files beat its AGENTS.md.
  return { groups: [CLAUDE_MD_NAMES, CLAUDE_AGENTS_NAMES], lazyGroups: [CLAUDE_MD_NAMES, ["AGENTS.md"]], reason: `AGENTS.md is read: ${builtin.reason}` };
}

/**
 * Drops block-level HTML comments (a line starting with `<!--` up to the line holding `-->`)
 * outside fenced code blocks, as Claude Code does since 2.1.72.
 */
export function stripBlockComments(text: string): string {
  if (!text.includes("<!--")) return text;
  const out: string[] = [];
  let fence: string | null = null;
  let inComment = false;
  for (const line of text.split("\n")) {
    if (inComment) {
      const end = line.indexOf("-->");
      if (end === -1) continue;
      inComment = false;
      const rest = line.slice(end + 3);
      if (rest.trim() !== "") out.push(rest);
      continue;
    }
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      out.push(line);
      continue;
    }
    if (fence === null && /^\s*<!--/.test(line)) {
      const start = line.indexOf("<!--");
      const end = line.indexOf("-->", start + 4);
      if (end === -1) {
        inComment = true;
        continue;
      }
      const rest = line.slice(end + 3);
      if (rest.trim() !== "") out.push(rest);
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

/**
 * The description Claude Code appends to a file's path in the `claudeMd` block.
 */
function claudeDescription(block: Pick<RenderBlock, "path" | "layer">): string {
  if (block.layer === "user") return " (user's private global instructions for all projects)";
  if (nameOf(block.path) === "CLAUDE.local.md") return " (user's private project instructions, not checked in)";
  return " (project instructions, checked into the codebase)";
}

const CLAUDE_MD_PREAMBLE =
  "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.";

/**
 * Claude Code's framing as observed in 2.1.330 (e2e/claude-code/FINDINGS.md): the initial files in
 * one `<system-reminder>` opening the first user message; a nested file in its own reminder after
 * the tool result. The `currentDate` part of Claude Code's message is not instruction text and is
 * left out.
 */
export const claudeRenderer: Renderer = {
  initial({ blocks }) {
    if (blocks.length === 0) return "";
    const entries = blocks.map((block) => `Contents of ${quote(block.path)}${claudeDescription(block)}:\n\n${trimEndText(stripBlockComments(block.content))}`);
    return `<system-reminder>\n${CLAUDE_MD_PREAMBLE}\n\n${entries.join("\n\n")}\n</system-reminder>`;
  },
  // A nested file keeps its trailing newline (observed: "<body>\n\n</system-reminder>" for a body ending in one).
  inline(blocks) {
    return blocks
      .map((block) => `<system-reminder>\nContents of ${quote(block.path)}:\n\n${stripBlockComments(block.content)}\n</system-reminder>`)
      .join("\n\n");
  },
};

const BIG = Number.MAX_SAFE_INTEGER;

/** Claude Code's truthy environment values. */
function envTruthy(value: string | undefined): boolean {
  return value !== undefined && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());
}

/** The settings files whose `claudeMdExcludes` lists Claude Code merges (managed, user, project, local). */
function claudeSettingsFiles(context: { cwd: string; home: string; env: Readonly<Record<string, string | undefined>> }): string[] {
  return [
    join(managedDir(), "managed-settings.json"),
    join(claudeConfigDir(context.home, context.env), "settings.json"),
    join(join(context.cwd, ".claude"), "settings.json"),
    join(join(context.cwd, ".claude"), "settings.local.json"),
  ];
}

/** For an absolute pattern, the same pattern under the real path of its literal directory (as Claude Code adds it). */
async function realVariant(fs: FileSystem, pattern: string): Promise<string | undefined> {
  const glob = pattern.search(/[*?{[]/);
  const dir = parentOf(glob === -1 ? pattern : pattern.slice(0, glob));
  const real = await fs.realpath(dir).catch(() => dir);
  return real !== dir ? real + pattern.slice(dir.length) : undefined;
}

/**
 * What Claude Code's settings keep from loading: with `CLAUDE_CODE_DISABLE_CLAUDE_MDS` every memory
 * file; else the files `claudeMdExcludes` matches (globs or absolute paths, picomatch with dot files,
 * on absolute paths; the lists of every settings file merged), never the managed CLAUDE.md.
 */
export async function claudeExcludes(context: ListedContext): Promise<Excludes | undefined> {
  if (envTruthy(context.env.CLAUDE_CODE_DISABLE_CLAUDE_MDS))
    return {
      matches: () => true,
      diagnostics: [{ level: "info", code: "agent-config", message: "CLAUDE_CODE_DISABLE_CLAUDE_MDS is set: Claude Code loads no memory file" }],
    };
  if (!context.agentConfig) return undefined;
  const patterns: string[] = [];
  const diagnostics: Excludes["diagnostics"] = [];
  for (const file of claudeSettingsFiles(context)) {
    const value = ((await readJsonQuietly(context.fs, file)) as { claudeMdExcludes?: unknown } | null)?.claudeMdExcludes;
    if (!Array.isArray(value)) continue;
    const own = value.filter((entry): entry is string => typeof entry === "string" && entry.length > 0).map((entry) => entry.replaceAll("\\", "/"));
    if (own.length === 0) continue;
    diagnostics.push({
      level: "info",
      code: "agent-config",
      message: `claudeMdExcludes ${own.map((entry) => quote(entry)).join(", ")} from ${quote(file)} (the agent's own configuration)`,
      path: file,
    });
    for (const entry of own) if (!patterns.includes(entry)) patterns.push(entry);
  }
  if (patterns.length === 0) return { matches: () => false, diagnostics };
  for (const pattern of [...patterns]) {
    if (!pattern.startsWith("/")) continue;
    const variant = await realVariant(context.fs, pattern);
    if (variant !== undefined) patterns.push(variant);
  }
  // A project's settings name these: matched in linear time (core/glob.ts), a refused one matches nothing.
  const matchers = patterns.flatMap((pattern) => {
    try {
      return [compileGlob(pattern, { dot: true })];
    } catch {
      return [];
    }
  });
  const test = (path: string) => matchers.some((match) => match(path));
  const managed = join(managedDir(), "CLAUDE.md");
  return { matches: (path) => path !== managed && test(path.replaceAll("\\", "/")), diagnostics };
}

export const claudePreset: Preset = {
  name: "claude",
  description:
    "Claude Code: CLAUDE.md / .claude/CLAUDE.md / CLAUDE.local.md from / to cwd, ~/.claude/CLAUDE.md, nested on touch; AGENTS.md only without any CLAUDE file at or above cwd",
  // Claude Code skips a memory file over 4 MiB whole (docs/loading-rules.md#claude-code).
  fileLimit: { agent: "Claude Code", bytes: 4 * 1024 * 1024, effect: "skips the whole file" },
  // Claude Code has no project root: every ancestor up to / counts (`adapt` sets the root to /).
  root: { markers: [], stopAtFsRoot: true },
  files: { names: [...CLAUDE_MD_NAMES, ...CLAUDE_AGENTS_NAMES], select: "all" },
  initial: { maxFiles: BIG, maxBytes: BIG },
  resolver: { enabled: true, maxFilesPerResolve: 8 },
  lazy: { maxFiles: BIG, maxBytes: BIG, exclude: [], groups: [CLAUDE_MD_NAMES, ["AGENTS.md"]] },
  scope: SPEC_SCOPE,
  startup: { ...SPEC_STARTUP, keep: "root-first" },
  text: SPEC_TEXT,
  dedupe: "path",
  renderer: claudeRenderer,
  imports: { enabled: true },
  userLayers: ({ home, env }) => [
    { candidates: [join(managedDir(), "CLAUDE.md")], select: "all", trim: false },
    { candidates: [join(claudeConfigDir(home, env), "CLAUDE.md")], select: "all", trim: false },
  ],
  prepare: claudeGroups,
  excludes: claudeExcludes,
  adapt(config, raw) {
    if (raw.root?.projectRootOverride === undefined) config.root.projectRootOverride = parentOf("/");
  },
};
