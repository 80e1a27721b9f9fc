/**
 * The options a session is created with (its own module, so set-up and the facade share them
 * without importing each other).
 */
import type { FileSystem } from "../io/file-system.js";
import type { AgentsConfig, RuleFormat } from "../core/schema.js";
import type { WatchOptions } from "./watch.js";

export interface SessionOptions {
  /** Working directory. @default process.cwd() */
  cwd?: string;
  /** Preset name. @default "codelia" */
  preset?: string;
  /** Explicit options: beat env and the config file. */
  config?: AgentsConfig;
  /** Path of a JSON config file. */
  configFile?: string;
  /** Home directory for user layers and `stopAtFsRoot: false`. @default os.homedir() */
  home?: string;
  /** Environment variables. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** File system to use (inject faults, count calls). @default nodeFileSystem */
  fs?: FileSystem;
  /**
   * Watch the scanned directories (one `fs.watch` each, loaded on demand) so the cache
   * can trust its entries until a change is seen; `session.close()` stops it. @default false
   */
  watch?: boolean | WatchOptions;
  /** The integration consuming the session (`claude-code`, `opencode`, ...), for its own records. */
  host?: string;
  /**
   * Scoped-rule formats the consuming host reads itself (its definition's `nativeRuleFormats`,
   * `hostById(id).nativeRuleFormats`): never delivered. @default none (every format is delivered)
   */
  nativeRuleFormats?: readonly RuleFormat[];
}
