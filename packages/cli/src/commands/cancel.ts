import type { Command } from 'commander';
import type { CancelResult, TaskClient } from 'tasklane';
import { TaskStatus } from 'tasklane';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

type Outcome = {
  id: string;
  outcome: 'cancelled' | 'requested' | 'would-cancel' | 'would-request' | 'not-found' | 'refused';
  detail: string;
};

const WAITING: readonly string[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  // Sleeping, waiting for a signal, or paused: cancelled at once too.
  TaskStatus.SUSPENDED,
  TaskStatus.PAUSED,
];

/** `tasklane cancel <id...>` or `tasklane cancel --key <key>`: tasks that have not finished. */
export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description(
      'cancel tasks that have not finished: waiting ones at once, running ones at their next heartbeat',
    )
    .argument('[ids...]', 'task ids')
    .option('--key <orderingKey>', 'every unfinished task of this ordering key')
    .option('--reason <text>', 'recorded in the history')
    .option('--dry-run', 'show what would be cancelled and change nothing')
    .action(
      async (
        ids: string[],
        opts: { key?: string; reason?: string; dryRun?: boolean },
        command: Command,
      ) => {
        const { out, client: getClient, confirm } = commandContext(command);
        if (ids.length > 0 === (opts.key !== undefined)) {
          throw new CliError('Give task ids or --key <orderingKey>, not both.', ExitCode.USAGE);
        }
        const client = await getClient();
        const reason = opts.reason ?? 'cancelled with tasklane cancel';
        let outcomes: Outcome[];
        if (opts.dryRun === true) {
          outcomes = await preview(client, ids, opts.key);
        } else {
          await confirm(
            opts.key === undefined
              ? `Cancel ${ids.length} task(s)?`
              : `Cancel every unfinished task of key ${JSON.stringify(opts.key)}?`,
          );
          const selection = opts.key === undefined ? { ids } : { orderingKey: opts.key };
          outcomes = toOutcomes(await client.cancelMany({ ...selection, reason }));
        }
        if (out.json) out.data(outcomes);
        else {
          out.table(
            ['task', 'outcome', 'detail'],
            outcomes.map((o) => [
              o.id,
              o.outcome === 'cancelled' ? out.color.green(o.outcome) : o.outcome,
              o.detail,
            ]),
          );
        }
        const failed = outcomes.filter((o) => o.outcome === 'not-found' || o.outcome === 'refused');
        if (failed.length > 0) {
          process.exitCode = failed.every((o) => o.outcome === 'not-found')
            ? ExitCode.NOT_FOUND
            : ExitCode.PARTIAL;
        }
      },
    );
}

async function preview(
  client: TaskClient,
  ids: readonly string[],
  key: string | undefined,
): Promise<Outcome[]> {
  const records =
    key === undefined
      ? await Promise.all(ids.map(async (id) => ({ id, record: await client.get(id) })))
      : (
          await client.list({
            status: [...WAITING, TaskStatus.RUNNING] as TaskStatus[],
            orderingKey: key,
            limit: 1000,
          })
        ).items.map((record) => ({ id: record.id, record }));
  return records.map(({ id, record: r }): Outcome => {
    if (r === undefined) return { id, outcome: 'not-found', detail: 'no task has this id' };
    if (WAITING.includes(r.status)) return { id, outcome: 'would-cancel', detail: r.status };
    if (r.status === TaskStatus.RUNNING) {
      return { id, outcome: 'would-request', detail: 'RUNNING: stops at its next heartbeat' };
    }
    return { id, outcome: 'refused', detail: `task is ${r.status}` };
  });
}

function toOutcomes(result: CancelResult): Outcome[] {
  return [
    ...result.cancelled.map((id): Outcome => ({ id, outcome: 'cancelled', detail: '' })),
    ...result.requested.map(
      (id): Outcome => ({
        id,
        outcome: 'requested',
        detail: 'RUNNING: its worker ends it CANCELLED at its next heartbeat',
      }),
    ),
    ...result.finished.map(
      ({ id, status }): Outcome => ({
        id,
        outcome: 'refused',
        detail: `task is ${status}: it has finished`,
      }),
    ),
    ...result.notFound.map(
      (id): Outcome => ({ id, outcome: 'not-found', detail: 'no task has this id' }),
    ),
  ];
}
