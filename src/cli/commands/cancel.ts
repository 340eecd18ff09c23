import type { Command } from 'commander';
import { TaskNotFoundError, TransitionRejectedError } from '../../errors.js';
import { commandContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';

type Outcome = {
  id: string;
  outcome: 'cancelled' | 'would-cancel' | 'not-found' | 'refused';
  detail: string;
};

/** `tasklane cancel <id...>`: tasks that have not started. */
export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description('cancel tasks that have not started (SCHEDULED, PENDING or QUEUED)')
    .argument('<ids...>', 'task ids')
    .option('--reason <text>', 'recorded in the history')
    .option('--dry-run', 'show what would be cancelled and change nothing')
    .action(
      async (ids: string[], opts: { reason?: string; dryRun?: boolean }, command: Command) => {
        const { out, client: getClient, confirm } = commandContext(command);
        const client = await getClient();
        const outcomes: Outcome[] = [];
        if (opts.dryRun === true) {
          for (const id of ids) {
            const r = await client.get(id);
            outcomes.push(
              r === undefined
                ? { id, outcome: 'not-found', detail: 'no task has this id' }
                : ['SCHEDULED', 'PENDING', 'QUEUED'].includes(r.status)
                  ? { id, outcome: 'would-cancel', detail: r.status }
                  : { id, outcome: 'refused', detail: `task is ${r.status}` },
            );
          }
        } else {
          await confirm(`Cancel ${ids.length} task(s)?`);
          for (const id of ids)
            outcomes.push(await cancelOne(id, opts.reason, client.cancel.bind(client)));
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

async function cancelOne(
  id: string,
  reason: string | undefined,
  cancel: (id: string, reason?: string) => Promise<unknown>,
): Promise<Outcome> {
  try {
    await cancel(id, reason ?? 'cancelled with tasklane cancel');
    return { id, outcome: 'cancelled', detail: '' };
  } catch (err) {
    if (err instanceof TaskNotFoundError)
      return { id, outcome: 'not-found', detail: 'no task has this id' };
    if (err instanceof TransitionRejectedError) {
      return {
        id,
        outcome: 'refused',
        detail: `task is ${err.current?.status ?? 'gone'}: only SCHEDULED, PENDING and QUEUED tasks can be cancelled`,
      };
    }
    throw err;
  }
}
