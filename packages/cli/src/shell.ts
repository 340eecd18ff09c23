/**
 * Words for a POSIX shell: what the CLI prints for pasting (`More: tasklane list …`) or for
 * sourcing (`tasklane dev`'s env file) must mean, once the shell has read it, exactly the
 * values it was made from.
 */

/** Characters a word may hold without quotes in sh, bash and zsh. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `value` as one shell word: as it is when that is safe, else in single quotes. */
export function shellWord(value: string): string {
  if (PLAIN.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A command line of shell words. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
