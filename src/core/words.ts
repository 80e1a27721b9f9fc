/**
 * Counted words for CLI and report text: the one place a count meets its noun ("1 directory",
 * "2 directories").
 */

/** Nouns whose plural is not the noun plus "s". */
const IRREGULAR: Readonly<Record<string, string>> = { directory: "directories", entry: "entries", info: "info" };

/**
 * The noun for `count`: singular for exactly 1, plural otherwise.
 */
export function plural(count: number, noun: string): string {
  if (count === 1) return noun;
  const last = noun.lastIndexOf(" ");
  const head = noun.slice(0, last + 1);
  const word = noun.slice(last + 1);
  return `${head}${IRREGULAR[word] ?? `${word}s`}`;
}

/**
 * `count` followed by its noun.
 */
export function countOf(count: number, noun: string): string {
  return `${count} ${plural(count, noun)}`;
}
