/**
 * `tasklane pause` and `tasklane resume` (docs/durable-tasks.md#pause-and-resume): tasks by id,
 * or a whole ordering key with `--key`, behind the confirmation every write asks for. A lane
 * (`--lane`) is not offered yet (docs/adr/0048-durable-sleep-signals-pause.md).
 */
import type { Command } from 'commander';
import type { KeyPauseResult, TaskClient } from 'tasklane';
import { TaskNotFoundError, TaskStatus, TransitionRejectedError } from 'tasklane';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

type Outcome = {
  id: string;
  outcome: 'paused' | 'requested' | 'resumed' | 'not-found' | 'refused';
  detail: string;
};

/** Registers `tasklane pause` and `tasklane resume`. */
export function registerPause(program: Command): void {
  for (const action of ['pause', 'resume'] as const) {
    const cmd = program
      .command(action)
      .description(
        action === 'pause'
          ? 'pause tasks: waiting, scheduled or suspended ones at once, running ones at their next step or heartbeat'
          : 'resume paused tasks where they were (due, scheduled, or still sleeping or waiting)',
      )
      .argument('[ids...]', 'task ids')
      .option(
        '--key <orderingKey>',
        action === 'pause'
          ? 'every unfinished task of this ordering key'
          : 'every paused task of this ordering key',
      );
    if (action === 'pause') cmd.option('--reason <text>', 'recorded in the history');
    cmd.action(async (ids: string[], opts: { key?: string; reason?: string }, command: Command) => {
      const { out, client: getClient, confirm } = commandContext(command);
      if (ids.length > 0 === (opts.key !== undefined)) {
        throw new CliError('Give task ids or --key <orderingKey>, not both.', ExitCode.USAGE);
      }
      const client = await getClient();
      const verb = action === 'pause' ? 'Pause' : 'Resume';
      await confirm(
        opts.key === undefined
          ? `${verb} ${ids.length} task(s)?`
          : `${verb} every ${action === 'pause' ? 'unfinished' : 'paused'} task of key ${JSON.stringify(opts.key)}?`,
      );
      const reason = opts.reason ?? `paused with tasklane pause`;
      const outcomes =
        opts.key === undefined
          ? await byIds(client, action, ids, reason)
          : keyOutcomes(
              action,
              action === 'pause'
                ? await client.pause({ orderingKey: opts.key }, reason)
                : await client.resume({ orderingKey: opts.key }),
            );
      if (out.json) out.data(outcomes);
      else
        out.table(
          ['task', 'outcome', 'detail'],
          outcomes.map((o) => [o.id, o.outcome, o.detail]),
        );
      const failed = outcomes.filter((o) => o.outcome === 'not-found' || o.outcome === 'refused');
      if (failed.length > 0) {
        process.exitCode = failed.every((o) => o.outcome === 'not-found')
          ? ExitCode.NOT_FOUND
          : ExitCode.PARTIAL;
      }
    });
  }
}

async function byIds(
  client: TaskClient,
  action: 'pause' | 'resume',
  ids: readonly string[],
  reason: string,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const id of ids) {
    try {
      const record = action === 'pause' ? await client.pause(id, reason) : await client.resume(id);
      outcomes.push(
        record.status === TaskStatus.RUNNING
          ? {
              id,
              outcome: action === 'pause' ? 'requested' : 'resumed',
              detail: runningDetail(action),
            }
          : { id, outcome: action === 'pause' ? 'paused' : 'resumed', detail: record.status },
      );
    } catch (err) {
      if (err instanceof TaskNotFoundError) {
        outcomes.push({ id, outcome: 'not-found', detail: 'no task has this id' });
      } else if (err instanceof TransitionRejectedError) {
        const status = err.current?.status;
        outcomes.push({ id, outcome: 'refused', detail: `task is ${status ?? 'gone'}` });
      } else {
        throw err;
      }
    }
  }
  return outcomes;
}

function runningDetail(action: 'pause' | 'resume'): string {
  return action === 'pause'
    ? 'RUNNING: it pauses at its next step, checkpoint or heartbeat'
    : 'RUNNING: its pause request was taken back';
}

function keyOutcomes(action: 'pause' | 'resume', result: KeyPauseResult): Outcome[] {
  const done = action === 'pause' ? 'paused' : 'resumed';
  return [
    ...result.done.map((id): Outcome => ({ id, outcome: done, detail: '' })),
    ...result.requested.map(
      (id): Outcome => ({ id, outcome: 'requested', detail: runningDetail(action) }),
    ),
    ...result.skipped.map(
      (id): Outcome => ({ id, outcome: 'refused', detail: 'finished or moved on meanwhile' }),
    ),
  ];
}
