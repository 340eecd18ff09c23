import type { Command } from 'commander';
import type { TaskTransition } from 'tasklane';
import { commandContext, positiveInt, statusList, taskStatuses } from '../context.js';
import { isoTime } from '../output.js';
import type { Styles, Text } from '../terminal-text.js';
import { instantOption } from '../time-option.js';

interface TailOptions {
  id?: string;
  status?: string[];
  since?: number;
  interval: number;
}

/** `tasklane tail`: transitions as they happen, until Ctrl-C (or the task ends, with --id). */
export function registerTail(program: Command): void {
  program
    .command('tail')
    .description('follow transitions as they happen (--json: one JSON object per line)')
    .option('--id <id>', 'follow one task, from its first transition, until it ends')
    .option('--status <statuses>', 'only tasks now in these statuses (comma-separated)', statusList)
    .option(
      '--since <when>',
      'start this far back (2m) or at an ISO time',
      instantOption('--since'),
    )
    .option('--interval <ms>', 'pause between polls', positiveInt('--interval', 3_600_000), 2000)
    .action(async (opts: TailOptions, command: Command) => {
      const { out, client } = commandContext(command);
      const statuses =
        opts.status === undefined ? undefined : taskStatuses(opts.status, '--status');
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        const transitions = (await client()).watch({
          intervalMs: opts.interval,
          signal: controller.signal,
          ...(opts.id === undefined ? {} : { taskId: opts.id, since: opts.since ?? 0 }),
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
      }
    });
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
