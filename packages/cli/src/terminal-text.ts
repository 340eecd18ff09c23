/**
 * Text for a terminal. Ids, types, errors, history details and dead reasons come from
 * producers and handlers, and a terminal acts on some of the characters they may hold: ESC
 * starts a sequence that can clear the screen, retitle the window, hide text or forge a
 * link; BEL, backspace and carriage return rewrite what is shown; bidi controls reorder it.
 * Every human-readable line the CLI prints passes through {@link printable} (the Output of
 * output.ts calls it; commands never write to the terminal themselves), so no command can
 * forget. JSON output is not touched: `JSON.stringify` is exact, and a script reads it.
 */

/**
 * The characters shown as escapes: the control characters (`Cc`: C0, tab and newline too,
 * so one value cannot forge a line of its own; DEL; C1, where 0x9B is a one-byte CSI in some
 * terminals), the bidi controls (marks, embeddings, overrides, isolates) and the line and
 * paragraph separators.
 */
const UNSAFE = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every character a terminal would act on replaced by a visible escape:
 * `\n`, `\r`, `\t`, `\xHH` for the other C0 and C1 controls and DEL, `\uHHHH` for the rest.
 * Printable text, including any other Unicode, is unchanged.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * Like {@link printable}, but keeps the line breaks: for a message of several lines (a
 * validation error lists one problem a line), each line made printable on its own.
 */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** The styles the CLI uses. */
export type StyleName = 'red' | 'green' | 'yellow' | 'bold' | 'dim';

/**
 * Text to print in a style. The style is applied when the line is written, after the text
 * is made {@link printable}: a colour's own escape sequence is the only one that reaches
 * the terminal.
 */
export class Styled {
  constructor(
    readonly style: StyleName,
    readonly text: string,
  ) {}
}

/** A piece of a line: plain text or styled text. */
export type Text = string | Styled;

/** Builds {@link Styled} text, one function per style (`out.color.red('DEAD')`). */
export type Styles = { readonly [S in StyleName]: (text: string) => Styled };

/** The style functions. */
export const styles: Styles = {
  red: (text) => new Styled('red', text),
  green: (text) => new Styled('green', text),
  yellow: (text) => new Styled('yellow', text),
  bold: (text) => new Styled('bold', text),
  dim: (text) => new Styled('dim', text),
};
