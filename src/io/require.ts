/**
 * `require` for optional dependencies (picomatch, yaml, the agents' config parsers), made on first
 * use. node:module, which makes it, loads some twenty internal modules in a CommonJS process (the
 * hook bundle): a static import of it costs every hook call about a millisecond, and most calls
 * require nothing. `process.getBuiltinModule` (Node >= 20.16) gets it synchronously, only then.
 */

/**
 * A require resolving from `url()` (a module's `import.meta.url`, read only on the first call: in
 * the hook bundle it is built from the bundle's path).
 */
/**
 * os.homedir(), node:os loaded on the first call: callers ask only when HOME is not set, so a hook
 * process does not load node:os (about half a millisecond a call) for nothing.
 */
export function homedir(): string {
  return process.getBuiltinModule("node:os").homedir();
}

export function lazyRequire(url: () => string): (id: string) => unknown {
  let required: NodeJS.Require | undefined;
  return (id): unknown => (required ??= process.getBuiltinModule("node:module").createRequire(url()))(id) as unknown;
}
