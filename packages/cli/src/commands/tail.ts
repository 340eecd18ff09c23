import type { Command } from 'commander';
import { durationMs, type TaskTransition } from 'tasklane';
import { outputClosed } from '../broken-pipe.js';
import { commandContext, positiveInt, statusList, taskStatuses } from '../context.js';
import { isoTime } from '../output.js';
import type { Styles, Text } from '../terminal-text.js';
import { instantOption } from '../time-option.js';

interface TailOptions {
  id?: string;
  status?: string[];
  since?: number;
  interval: number;
  wait: number;
}

/** How long `--id` waits for a task that does not exist yet, unless `--wait` says otherwise. */
const DEFAULT_WAIT_MS = 10_000;

/**
 * `tasklane tail`: transitions as they happen, until Ctrl-C (or the task ends, with --id).
 * Every task's are read from the table's stream, so none is missed however fast it runs
 * (docs/operations.md#following-transitions); one task's from its record.
 */
export function registerTail(program: Command): void {
  program
    .command('tail')
    .description(
      'follow every transition of every task as it happens (--json: one JSON object per line)',
    )
    .option('--id <id>', 'follow one task, from its first transition, until it ends')
    .option(
      '--status <statuses>',
      'only transitions into these statuses (comma-separated)',
      statusList,
    )
    .option(
      '--since <when>',
      'start this far back (2m) or at an ISO time; the stream keeps 24 hours',
      instantOption('--since'),
    )
    .option(
      '--wait <duration>',
      'with --id: how long to wait for a task not enqueued yet, then exit 4 (e.g. 30s)',
      (value: string) => durationMs(value, '--wait'),
      DEFAULT_WAIT_MS,
    )
    .option(
      '--interval <ms>',
      'pause between reads when nothing new came',
      positiveInt('--interval', 3_600_000),
      1000,
    )
    .action(async (opts: TailOptions, command: Command) => {
      const { out, client } = commandContext(command);
      const statuses =
        opts.status === undefined ? undefined : taskStatuses(opts.status, '--status');
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // A reader that went away (`| head`) ends the follow, as it ends `tail -f`.
      outputClosed.addEventListener('abort', stop, { once: true });
      try {
        const transitions = (await client()).watch({
          intervalMs: opts.interval,
          signal: controller.signal,
          onReady: () => out.note(readyNote(opts)),
          ...(opts.id === undefined
            ? {}
            : { taskId: opts.id, since: opts.since ?? 0, appearWithinMs: opts.wait }),
          ...(statuses === undefined ? {} : { statuses }),
          ...(opts.since === undefined || opts.id !== undefined ? {} : { since: opts.since }),
        });
        for await (const t of transitions) {
          if (out.json) out.jsonLine(t);
          else out.line(format(t, out.color));
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        outputClosed.removeEventListener('abort', stop);
      }
    });
}

/** The note on stderr once tail reads: from then on, nothing is missed (scripts may wait for it). */
function readyNote(opts: TailOptions): string {
  if (opts.id !== undefined) return `Following task ${opts.id} until it ends.`;
  const from = opts.since === undefined ? 'from now on' : `since ${isoTime(opts.since)}`;
  return `Following every task's transitions ${from} (Ctrl-C to stop).`;
}

/** One transition as a line: plain text, with the event coloured. */
function format(t: TaskTransition, color: Styles): Text[] {
  const event =
    t.event === 'dead'
      ? color.red(t.event)
      : t.event === 'succeeded'
        ? color.green(t.event)
        : t.event;
  const worker = t.workerId === undefined ? '' : ` by ${t.workerId}`;
  const detail = t.detail === undefined ? '' : ` - ${t.detail}`;
  return [
    `${isoTime(t.at)}  ${t.taskId} (${t.type})  `,
    event,
    ` -> ${t.status}, attempt ${t.attempt}${worker}${detail}`,
  ];
}
