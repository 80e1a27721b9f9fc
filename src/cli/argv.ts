/**
 * The little argv knowledge needed before any command module loads (no imports: the bin reads it
 * to choose between the full CLI and the hook bundle).
 */

/** Global options that take a value (the CLI contract); `--json` takes none. */
export const GLOBAL_VALUE_OPTIONS: ReadonlySet<string> = new Set(["--cwd", "--root", "--markers", "--config", "--preset", "--home"]);

/**
 * The command word of argv: the first argument that is neither a global option nor its value.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (GLOBAL_VALUE_OPTIONS.has(arg)) index++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/**
 * A call that only asks for the version (`--version` or `-V`, as commander takes them), answered
 * before anything else loads.
 */
export function isVersionCall(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V");
}
