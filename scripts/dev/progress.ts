/**
 * The demo's live progress: a bar redrawn in place on a terminal (plain ANSI escapes), or
 * one plain line per second when stdout is a pipe or a file.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskStatus } from '../../src/index.js';
import type { TerminalCounts, TerminalTracker } from './terminal-tracker.js';

const WIDTH = 30;
const PLAIN_EVERY_MS = 1_000;

/** Renders progress updates to a stream. */
export interface ProgressView {
  update(counts: TerminalCounts): void;
  /** Leaves the last state on screen and restores the cursor. */
  finish(): void;
}

/** Creates the view for `out`, choosing redraws or plain lines by whether it is a TTY. */
export function progressView(out: NodeJS.WriteStream, startedAt: number): ProgressView {
  const tty = out.isTTY === true;
  const color = tty && process.env.NO_COLOR === undefined;
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  let last: TerminalCounts | undefined;
  let printed: TerminalCounts | undefined;
  let printedAt = 0;
  const line = (counts: TerminalCounts): string => {
    const elapsed = (Date.now() - startedAt) / 1000;
    const ratio = counts.total === 0 ? 1 : counts.finished / counts.total;
    const filled = Math.round(ratio * WIDTH);
    const bar = tty
      ? paint('32', '█'.repeat(filled)) + paint('2', '░'.repeat(WIDTH - filled))
      : `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
    const succeeded = counts.byStatus[TaskStatus.SUCCEEDED] ?? 0;
    const dead = counts.byStatus[TaskStatus.DEAD] ?? 0;
    return [
      `[${bar}]`,
      `${String(Math.floor(ratio * 100)).padStart(3)}%`,
      `${counts.finished}/${counts.total}`,
      paint('32', `succeeded ${succeeded}`),
      paint(dead > 0 ? '31' : '2', `dead ${dead}`),
      `${(counts.finished / Math.max(elapsed, 0.001)).toFixed(1)} tasks/s`,
      `${elapsed.toFixed(1)} s`,
    ].join('  ');
  };
  if (tty) out.write('\x1b[?25l');
  return {
    update(counts) {
      last = counts;
      if (tty) {
        out.write(`\r\x1b[2K${line(counts)}`);
      } else if (Date.now() - printedAt >= PLAIN_EVERY_MS) {
        printedAt = Date.now();
        printed = counts;
        out.write(`${line(counts)}\n`);
      }
    },
    finish() {
      if (tty) {
        out.write(`${last === undefined ? '' : `\r\x1b[2K${line(last)}`}\n\x1b[?25h`);
      } else if (last !== undefined && last !== printed) {
        out.write(`${line(last)}\n`);
      }
    },
  };
}

/**
 * Refreshes the counts about five times a second until every task is terminal (true) or
 * the deadline passes (false). Rejects with an AbortError when `signal` aborts.
 */
export async function watchUntilFinished(
  tracker: TerminalTracker,
  view: ProgressView,
  options: { deadline: number; signal: AbortSignal; intervalMs?: number },
): Promise<boolean> {
  for (;;) {
    options.signal.throwIfAborted();
    const counts = await tracker.refresh();
    view.update(counts);
    if (counts.finished === counts.total) return true;
    if (Date.now() >= options.deadline) return false;
    await sleep(options.intervalMs ?? 200, undefined, { signal: options.signal });
  }
}
