/**
 * What a host's own record of the conversation says the model still holds, for a server that lives
 * through the conversation without being told of resumes and compactions (the MCP server). The host
 * folder reads its record (`HostDefinition.mcp`); the server asks at each tool call. Host-neutral:
 * no host is named here.
 */
import type { FileSystem } from "../../io/file-system.js";

/** One look at the host's record. */
export interface HeldView {
  /** The host compacted since the last look: what was given before is gone, but for what `holds` finds. */
  compacted: boolean;
  /**
   * The history in front of the model holds this file's text (a resumed history, or what a
   * compaction kept). When unsure (two possible records that disagree, a record unreadable), false:
   * a file is then given again, never lost.
   */
  holds(file: { path: string; content: string }): boolean;
}

/** The host's record as a server sees it over the conversation. */
export interface HostHistory {
  look(): Promise<HeldView>;
}

/** Where the server runs: its working directory (the host's), home, environment and file system. */
export interface HostHistoryContext {
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  fs: FileSystem;
}
