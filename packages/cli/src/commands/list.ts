import type { Command } from 'commander';
import type { TaskRecord, TaskStatus } from 'tasklane';
import { DEFAULT_LANE } from 'tasklane';
import { commandContext, positiveInt, statusList } from '../context.js';
import type { LocationOptions } from '../location.js';
import { isoTime } from '../output.js';
import { shellCommand } from '../shell.js';
import { instantOption } from '../time-option.js';

/** The options of `tasklane list`, as parsed. */
export interface ListOptions {
  status?: string[];
  type?: string;
  key?: string;
  since?: number;
  until?: number;
  limit: number;
  cursor?: string;
}

/** `tasklane list`: tasks newest first across shards, filtered. */
export function registerList(program: Command): void {
  program
    .command('list')
    .description('tasks, newest first across shards')
    .option(
      '--status <statuses>',
      'only these statuses (comma-separated, e.g. DEAD,QUEUED)',
      statusList,
    )
    .option('--type <type>', 'only tasks of this type')
    .option('--key <orderingKey>', 'only tasks with this ordering key')
    .option(
      '--since <when>',
      'changed at or after: a duration back (2h, 7d) or an ISO time',
      instantOption('--since'),
    )
    .option(
      '--until <when>',
      'changed at or before: a duration back or an ISO time',
      instantOption('--until'),
    )
    .option('--limit <n>', 'tasks to show, 1 to 1000', positiveInt('--limit', 1000), 50)
    .option('--cursor <cursor>', 'continue after a previous page (its cursor)')
    .action(async (opts: ListOptions, command: Command) => {
      const { out, client } = commandContext(command);
      const page = await (await client()).list({
        ...(opts.status === undefined ? {} : { status: opts.status as TaskStatus[] }),
        ...(opts.type === undefined ? {} : { type: opts.type }),
        ...(opts.key === undefined ? {} : { orderingKey: opts.key }),
        ...(opts.since === undefined ? {} : { since: opts.since }),
        ...(opts.until === undefined ? {} : { until: opts.until }),
        ...(opts.cursor === undefined ? {} : { cursor: opts.cursor }),
        limit: opts.limit,
      });
      if (out.json) {
        out.data({ items: page.items.map(summary), cursor: page.cursor ?? null });
        return;
      }
      if (page.items.length === 0) out.line('No tasks match.');
      else {
        // A lane column only where some task runs outside the default lane (docs/lanes.md).
        const lanes = page.items.some((r) => r.lane !== undefined);
        out.table(
          ['id', 'type', ...(lanes ? ['lane'] : []), 'status', 'attempt', 'key', 'updated'],
          page.items.map((r) => [
            r.id,
            r.type,
            ...(lanes ? [r.lane ?? DEFAULT_LANE] : []),
            r.status,
            `${r.attempt}/${r.maxAttempts}`,
            r.orderingKey ?? '',
            isoTime(r.updatedAt),
          ]),
        );
      }
      if (page.cursor !== undefined) out.note(`More: ${nextPage(command, opts, page.cursor)}`);
    });
}

/**
 * The command that lists the next page, ready to paste: where the executor is (the global
 * options given), the same filters (times as the instants they stood for, so that a
 * relative `--since 2h` does not move) and the cursor.
 */
export function nextPage(command: Command, opts: ListOptions, cursor: string): string {
  const globals = command.optsWithGlobals<LocationOptions>();
  const words = ['tasklane'];
  const add = (flag: string, value: string | undefined) => {
    if (value !== undefined && value !== '') words.push(flag, value);
  };
  add('--stack', globals.stack);
  add('--executor', globals.executor);
  add('--endpoint', globals.endpoint);
  // A region from AWS_REGION is still there when the line is pasted in the same shell.
  if (command.parent?.getOptionValueSource('region') === 'cli') add('--region', globals.region);
  words.push('list');
  add('--status', opts.status?.join(','));
  add('--type', opts.type);
  add('--key', opts.key);
  add('--since', opts.since === undefined ? undefined : isoTime(opts.since));
  add('--until', opts.until === undefined ? undefined : isoTime(opts.until));
  add('--limit', String(opts.limit));
  add('--cursor', cursor);
  return shellCommand(words);
}

/** The fields of a task a listing shows (history and payload are for `show`). */
function summary(r: TaskRecord) {
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    attempt: r.attempt,
    maxAttempts: r.maxAttempts,
    orderingKey: r.orderingKey ?? null,
    lane: r.lane ?? DEFAULT_LANE,
    debounce: r.debounce ?? null,
    createdAt: isoTime(r.createdAt),
    updatedAt: isoTime(r.updatedAt),
  };
}
