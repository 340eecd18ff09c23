import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import { createColors } from 'picocolors';
import {
  printable,
  printableLines,
  Styled,
  type Styles,
  styles,
  type Text,
} from './terminal-text.js';

/**
 * How a command writes: tables and colour for people, JSON with `--json`. Everything meant
 * for people is made printable here (terminal-text.ts), whoever composed it; JSON is exact.
 */
export interface Output {
  readonly json: boolean;
  /** Styles, shown only when stdout is a TTY and NO_COLOR is unset. */
  readonly color: Styles;
  /** Writes a line for people to stdout: one piece of text, or several joined. */
  line(text?: Text | readonly Text[]): void;
  /** Writes a note to stderr (never mixed into JSON on stdout). */
  note(text: Text): void;
  /** Prints rows as a table (people) or nothing (JSON callers print the data instead). */
  table(head: readonly string[], rows: readonly (readonly unknown[])[]): void;
  /** Prints `value` as JSON on stdout. */
  data(value: unknown): void;
  /** Prints `value` as one line of JSON on stdout (a stream of objects, as `tail --json`). */
  jsonLine(value: unknown): void;
  /** Reports a failed command on stderr: `tasklane: <message>`, then the hint if any. */
  error(message: string, hint?: string): void;
  /** A progress bar on stderr when it is a TTY; a no-op otherwise. */
  progress(label: string): Progress;
}

/** See {@link Output.progress}. */
export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/** Streams the CLI writes to; injectable for tests. */
export interface OutputStreams {
  readonly stdout: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean };
  readonly stderr: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean };
}

/** Builds the {@link Output} of one command run. */
export function createOutput(
  json: boolean,
  streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
): Output {
  const tty = streams.stdout.isTTY === true && process.env.NO_COLOR === undefined;
  const terminal = createColors(tty && !json);
  const render = (text: Text): string =>
    text instanceof Styled ? terminal[text.style](printable(text.text)) : printable(text);
  const cell = (value: unknown): string => {
    if (value === undefined || value === null) return '';
    if (typeof value === 'string' || value instanceof Styled) return render(value);
    return printable(JSON.stringify(value) ?? String(value));
  };
  return {
    json,
    color: styles,
    line: (text = '') => {
      const pieces: readonly Text[] =
        typeof text === 'string' || text instanceof Styled ? [text] : text;
      streams.stdout.write(`${pieces.map(render).join('')}\n`);
    },
    note: (text) => {
      streams.stderr.write(`${render(text)}\n`);
    },
    table: (head, rows) => {
      const table = new Table({
        head: head.map((h) => terminal.bold(printable(h))),
        style: { head: [], border: [] },
        wordWrap: true,
      });
      for (const row of rows) table.push(row.map(cell));
      streams.stdout.write(`${table.toString()}\n`);
    },
    data: (value) => {
      streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    jsonLine: (value) => {
      streams.stdout.write(`${JSON.stringify(value)}\n`);
    },
    error: (message, hint) => {
      const text = hint === undefined ? message : `${message}\n${hint}`;
      streams.stderr.write(`${printableLines(`tasklane: ${text}`)}\n`);
    },
    progress: (label) => {
      if (streams.stderr.isTTY !== true || json) return { update: () => {}, stop: () => {} };
      const bar = new SingleBar({
        format: `${label} [{bar}] {value}/{total}`,
        stream: streams.stderr as NodeJS.WriteStream,
        hideCursor: true,
        clearOnComplete: true,
      });
      let started = false;
      return {
        update: (done, total) => {
          if (!started) bar.start(total, 0);
          started = true;
          bar.setTotal(total);
          bar.update(done);
        },
        stop: () => {
          if (started) bar.stop();
        },
      };
    },
  };
}

/** An instant as ISO 8601 (UTC), or '' when absent. */
export function isoTime(ms: number | undefined): string {
  return ms === undefined || !Number.isFinite(ms) ? '' : new Date(ms).toISOString();
}

/** A span of milliseconds for people: `850ms`, `12.3s`, `4m 05s`, `3h 12m`, `2d 4h`. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}
