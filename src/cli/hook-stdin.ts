/**
 * A hook's stdin, read once: by the launcher when it asks the hook server (the request carries
 * it), else by the hook process itself, which then continues from what the launcher read.
 */
import { readDescriptorSync } from "../io/descriptors.js";

/** A hook event is bounded: more than this on stdin is an error, not a longer read. */
export const MAX_STDIN = 16 * 1024 * 1024;

/** stdin as far as it could be read without blocking (`complete` false: the rest comes from the stream), or why it could not. */
export type StdinRead = { bytes: Buffer; complete: boolean } | { error: Error };

/**
 * Reads descriptor 0 to its end, or as far as it goes without blocking.
 */
export function readStdinOnce(maxBytes: number = MAX_STDIN): StdinRead {
  try {
    return readDescriptorSync(0, maxBytes);
  } catch (error) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }
}
