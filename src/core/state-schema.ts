/**
 * The persisted-session schema, built on first use (core/schema.ts exports the built schemas).
 * A hook process reads a state file this agentsmd wrote through its checksum instead
 * (integrations/host/store.ts), so it never builds these unless a file needs checking.
 */
import * as z from "zod/mini";
import "./zod-locale.js";
import { configSchema, leaves, once } from "./config-schema.js";

export const SESSION_STATE_VERSION = 1;

const MAX_STATE_ENTRIES = 1_000_000;
const entries = <T extends z.ZodMiniType>(item: T) => z.array(item).check(z.maxLength(MAX_STATE_ENTRIES));

/** user: home-level files; project: the chain; path: delivered on touch; config: listed by the agent's configuration (OpenCode's `instructions`). */
export const layerSchema = once(() => z.enum(["user", "project", "path", "config"]));

/** One file of the initial bundle, as `agentsmd list --json` prints it. */
export const initialFileSchema = once(() => {
  const { string, mtime, count, boolean } = leaves();
  return z.strictObject({
    path: string,
    layer: layerSchema(),
    mtimeMs: mtime,
    sizeBytes: count,
    includedBytes: count,
    truncated: boolean,
  });
});

/** One loaded version: a file the model has been given, at the mtime it had then. */
export const loadedVersionSchema = once(() => z.strictObject({ path: leaves().string, mtimeMs: leaves().mtime, layer: layerSchema() }));

/** A persisted session (`snapshot()` / `restoreSession`, the CLI's `--state` file). */
export const sessionStateSchema = once(() => {
  const { string, strings, count, boolean, mtime } = leaves();
  return z.strictObject({
    version: z.literal(SESSION_STATE_VERSION),
    preset: string,
    cwd: string,
    root: string,
    markers: strings,
    config: configSchema(),
    initialFiles: entries(initialFileSchema()),
    initialMessage: string,
    coveredDirs: entries(string),
    /**
     * Every directory a touch reached, written by earlier builds and read by nothing: accepted in an
     * older file, never written (it made each tool call in a new directory save the state).
     */
    seenDirs: z.optional(entries(string)),
    loaded: entries(loadedVersionSchema()),
    lazyLoadedFiles: count,
    lazyLoadedBytes: count,
    lazyCapped: boolean,
    /** Initial-scope files the budget left out, at the version seen then (a resume does not report them as changed). */
    leftOut: z.optional(entries(z.strictObject({ path: string, mtimeMs: mtime }))),
  });
});

export type SessionState = z.infer<ReturnType<typeof sessionStateSchema>>;
