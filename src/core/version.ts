/**
 * The package version, read from package.json (one source: `npm version` is all a release needs).
 * Its own module so `agentsmd/mcp` can announce it without loading the CLI.
 */
import { createRequire } from "node:module";

/**
 * This package's version.
 */
export const VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
