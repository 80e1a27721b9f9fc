/**
 * The config schema, built on first use, key by key: the one definition of every config key
 * (core/schema.ts exports the built schema; `agentsmd schema` prints its JSON Schema).
 *
 * Built lazily because a hook process (one per tool call) pays for every zod schema it
 * constructs, and most calls validate no config at all (an empty env layer) or one key (the
 * hook's own `lazy` caps): `safeParseConfig` builds only the keys present and falls back to the
 * whole schema for anything else, so errors read exactly as the whole schema words them.
 */
import * as z from "zod/mini";
import "./zod-locale.js";

/**
 * A value built on first call and kept (zod schemas are immutable values).
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/**
 * An object whose fields are built on first read and kept: `{ a: () => x }` reads as `{ a: x }`,
 * building only the fields a caller touches (destructuring touches the names it lists).
 */
export function lazyFields<B extends Record<string, () => unknown>>(builders: B): { readonly [K in keyof B]: ReturnType<B[K]> } {
  const fields = {} as { [K in keyof B]: ReturnType<B[K]> };
  for (const key of Object.keys(builders) as Array<keyof B>) {
    Object.defineProperty(fields, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = builders[key]!();
        Object.defineProperty(fields, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return fields;
}

/**
 * Shared leaves: one instance each, each built on first read (zod schemas are immutable values,
 * and each instance costs a hook process time to build: a hook's event schema shares these
 * instead of building one `z.optional(z.string())` per field).
 */
const string = once(() => z.string());
const boolean = once(() => z.boolean());
const unknown = once(() => z.unknown());
const LEAVES = lazyFields({
  string,
  boolean,
  unknown,
  strings: () => z.array(string()),
  optionalBoolean: () => z.optional(boolean()),
  optionalString: () => z.optional(string()),
  optionalUnknown: () => z.optional(unknown()),
  /** A JSON object with any values (a tool's input), or absent. */
  optionalRecord: () => z.optional(z.record(string(), unknown())),
  nonEmptyString: () => z.string().check(z.minLength(1)),
  positiveInt: () => z.optional(z.number().check(z.int(), z.positive())),
  count: () => z.number().check(z.int(), z.nonnegative()),
  mtime: () => z.number().check(z.nonnegative()),
});

/** The shared leaves (see LEAVES): `const { string, count } = leaves()` builds those two only. */
export const leaves = () => LEAVES;

/** Scoped-rule formats agentsmd reads (load/rules/formats.ts holds where each lives and how it matches). */
export const RULE_FORMATS = ["copilot", "claude", "cursor", "continue", "qwen", "windsurf", "rulesync", "ruler"] as const;
export const ruleFormatSchema = once(() => z.enum(RULE_FORMATS));

const markerName = () =>
  z.string().check(
    z.minLength(1, "a marker cannot be empty"),
    z.refine((s) => !s.includes("\0"), "a marker cannot contain NUL"),
    z.refine((s) => !s.startsWith("/"), "a marker is a name looked up in each ancestor, not an absolute path"),
    z.refine((s) => !s.split(/[\\/]/).includes(".."), "a marker cannot contain '..'"),
  );

const fileName = () =>
  z.string().check(
    z.minLength(1),
    z.refine((s) => !s.includes("\0") && !s.startsWith("/"), "a relative file name is expected"),
    // A name is looked up inside each directory of the chain; ".." would reach files outside it.
    z.refine((s) => !s.split(/[\\/]/).includes(".."), "a file name cannot contain '..'"),
  );

/**
 * The config keys, each the builder of its (optional) schema, in the order of the config file.
 * Strict at every level, so a typo is an error that names the key.
 */
const KEY_BUILDERS = {
  /** Preset name; see `agentsmd --help`. @default "codelia" */
  preset: () => leaves().optionalString,
  enabled: () => leaves().optionalBoolean,
  root: () =>
    z.optional(
      z.strictObject({
        projectRootOverride: z.optional(leaves().nonEmptyString),
        markers: z.optional(z.array(markerName())),
        stopAtFsRoot: leaves().optionalBoolean,
      }),
    ),
  initial: () => z.optional(z.strictObject({ maxFiles: leaves().positiveInt, maxBytes: leaves().positiveInt })),
  resolver: () =>
    z.optional(
      z.strictObject({
        enabled: leaves().optionalBoolean,
        maxFilesPerResolve: leaves().positiveInt,
        /** What a target outside the root yields: nothing, or the chain of the target's own root. @default "ignore" */
        outsideRoot: z.optional(z.enum(["ignore", "own-root"])),
      }),
    ),
  /** Instruction file names tried in each directory, in order. */
  files: () =>
    z.optional(
      z.strictObject({
        names: z.optional(z.array(fileName()).check(z.minLength(1))),
        /** `first`: the first candidate that is a regular file wins; `all`: every candidate present. */
        select: z.optional(z.enum(["first", "all"])),
        /**
         * An instruction file that is a symlink (or sits under a symlinked directory) resolving
         * outside the project root: `inside-root` skips it with a `symlink-outside-root` diagnostic
         * (a cloned repository's `AGENTS.md -> ~/.aws/credentials` reaches no model); `follow` reads
         * it as the agents do. Chains of targets outside the root (`resolver.outsideRoot:
         * "own-root"`) are not confined. @default "inside-root" (docs/security.md)
         */
        symlinks: z.optional(z.enum(["follow", "inside-root"])),
      }),
    ),
  /** Inline (lazy) mode caps and exclusions. */
  lazy: () =>
    z.optional(
      z.strictObject({
        maxFiles: leaves().positiveInt,
        maxBytes: leaves().positiveInt,
        exclude: z.optional(z.array(leaves().nonEmptyString)),
      }),
    ),
  /** Cache revalidation window in ms: how long a stat result is trusted without asking the disk again. */
  cache: () => z.optional(z.strictObject({ revalidateMs: z.optional(leaves().count) })),
  /**
   * `@path` imports in instruction files, expanded in place (imports.ts). Defaults per preset: on in
   * `claude` and `gemini`, off elsewhere; `codex` never expands them.
   */
  imports: () =>
    z.optional(
      z.strictObject({
        /** @default the preset's */
        enabled: leaves().optionalBoolean,
        /** Let imports resolve anywhere, outside the project root too (after symlinks). @default false */
        allowOutsideRoot: leaves().optionalBoolean,
        /**
         * Directories (or files) outside the project root that imports may read, absolute or `~/...`
         * (home); compared after symlinks. Never set by default: a cloned repository cannot import
         * `~/.ssh/id_rsa` unless the user lists it here. @default []
         */
        allow: z.optional(
          z
            .array(
              z.string().check(
                z.minLength(1),
                z.refine((value) => value.startsWith("/") || value.startsWith("~/"), "must be an absolute path or start with ~/"),
              ),
            )
            .check(z.maxLength(1000)),
        ),
      }),
    ),
  /** Scoped rules (`.github/instructions`, `.claude/rules`, `.cursor/rules`, `.continue/rules`, `.qwen/rules`, `.windsurf/rules`, `.rulesync/rules`, `.ruler`). */
  rules: () =>
    z.optional(
      z.strictObject({
        /**
         * Formats delivered to the host; `[]` turns scoped rules off. A format the host reads itself is
         * never delivered, even when listed. @default every format the host does not read itself
         */
        formats: z.optional(z.array(ruleFormatSchema())),
      }),
    ),
  /**
   * OpenCode settings, same names as its `opencode.json` (preset `opencode`): `instructions`, files
   * and globs loaded after the AGENTS.md chain. Set here, it replaces the list OpenCode's own
   * configuration gives.
   */
  opencode: () => z.optional(z.strictObject({ instructions: z.optional(leaves().strings) })),
  /** Codex CLI settings, same names as `~/.codex/config.toml` (preset `codex`). */
  codex: () =>
    z.optional(
      z.strictObject({
        project_doc_max_bytes: z.optional(leaves().count),
        project_doc_fallback_filenames: z.optional(leaves().strings),
        project_root_markers: z.optional(leaves().strings),
      }),
    ),
};

type KeyBuilders = typeof KEY_BUILDERS;
type KeyShape = { [K in keyof KeyBuilders]: ReturnType<KeyBuilders[K]> };

/** Every key's schema, built on first use of any. */
const keyShape = once((): KeyShape => {
  const shape: Record<string, unknown> = {};
  for (const key of Object.keys(KEY_BUILDERS)) shape[key] = keySchema(key);
  return shape as KeyShape;
});

/** The keys a file section of one preset may set (all but `preset`). */
const configKeysSchema = once(() => z.strictObject(keyShape()));

/** The keys beside the per-key ones: sections per preset, the agent's own configuration. */
const TOP_BUILDERS = {
  /**
   * Settings for one preset only, applied over the rest of the file when that preset runs, e.g.
   * `{ "presets": { "gemini": { "files": { "names": ["GEMINI.md", "AGENTS.md"] } } } }`: a setting
   * meant for one agent never changes what another preset shows.
   */
  presets: () => z.optional(z.record(leaves().string, z.omit(configKeysSchema(), { preset: true }))),
  /** Read each agent's own configuration (Codex config.toml, Gemini settings.json, OpenCode opencode.json). @default true */
  agentConfig: () => leaves().optionalBoolean,
};

const built = new Map<string, z.ZodMiniType>();
const builders: Record<string, () => z.ZodMiniType> = { ...KEY_BUILDERS, ...TOP_BUILDERS };

/** The schema of one top-level config key, built on first use. */
function keySchema(key: string): z.ZodMiniType {
  let schema = built.get(key);
  if (!schema) built.set(key, (schema = builders[key]!()));
  return schema;
}

/**
 * The full configuration schema: the v1 keys plus extensions for presets and integrations.
 */
export const configSchema = once(() =>
  z.strictObject({
    ...keyShape(),
    presets: keySchema("presets") as ReturnType<typeof TOP_BUILDERS.presets>,
    agentConfig: keySchema("agentConfig") as ReturnType<typeof TOP_BUILDERS.agentConfig>,
  }),
);

export type AgentsConfig = z.infer<ReturnType<typeof configSchema>>;

export type ConfigParse = { success: true; data: AgentsConfig } | { success: false; error: z.core.$ZodError };

/**
 * Validates a config object as `configSchema()` does, building only the schemas of the keys it
 * holds; anything the per-key check does not accept goes to the whole schema (its exact issues).
 */
export function safeParseConfig(data: unknown): ConfigParse {
  if (typeof data === "object" && data !== null && !Array.isArray(data) && [Object.prototype, null].includes(Object.getPrototypeOf(data) as object | null)) {
    const keys = Object.keys(data);
    if (keys.every((key) => Object.hasOwn(builders, key))) {
      const out: Record<string, unknown> = {};
      let valid = true;
      for (const key of keys) {
        const result = z.safeParse(keySchema(key), (data as Record<string, unknown>)[key]);
        if (!result.success) {
          valid = false;
          break;
        }
        out[key] = result.data;
      }
      if (valid) return { success: true, data: out };
    }
  }
  return z.safeParse(configSchema(), data);
}

/**
 * Formats a zod error as `key.path: message` lines.
 * @example formatIssues(configSchema().safeParse({ initial: { maxFiles: -1 } }).error!) // "initial.maxFiles: ..."
 */
export function formatIssues(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : "(top level)";
      return `${where}: ${issue.message}`;
    })
    .join("\n");
}
