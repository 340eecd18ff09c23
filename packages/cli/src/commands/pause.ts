/**
 * `tasklane pause` and `tasklane resume` (docs/durable-tasks.md#pause-and-resume): tasks by id
 * (arguments or `--id`), a whole ordering key with `--key`, or a whole lane with `--lane`,
 * behind the confirmation every write asks for. A lane's pause is audited by the client with
 * the principal (docs/adr/0039-operator-audit.md).
 */
import type { Command } from 'commander';
import type { KeyPauseResult, LanePauseResult, TaskClient } from 'tasklane';
import { TaskNotFoundError, TaskStatus, TransitionRejectedError, UnknownLaneError } from 'tasklane';
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
      .option('--id <id>', 'a task id (repeatable), as the arguments', collect, [])
      .option(
        '--lane <name>',
        action === 'pause'
          ? 'a whole lane: its tasks stay QUEUED and wait in its queue; running ones finish'
          : 'a paused lane: its queue is received from again',
      )
      .option(
        '--key <orderingKey>',
        action === 'pause'
          ? 'every unfinished task of this ordering key'
          : 'every paused task of this ordering key',
      );
    if (action === 'pause') cmd.option('--reason <text>', 'recorded in the history');
    cmd.action(
      async (
        args: string[],
        opts: { id: string[]; key?: string; lane?: string; reason?: string },
        command: Command,
      ) => {
        const { out, client: getClient, confirm } = commandContext(command);
        const ids = [...args, ...opts.id];
        const chosen = [ids.length > 0, opts.key !== undefined, opts.lane !== undefined];
        if (chosen.filter(Boolean).length !== 1) {
          throw new CliError(
            'Give task ids (or --id), --key <orderingKey> or --lane <name>: one of them.',
            ExitCode.USAGE,
          );
        }
        const client = await getClient();
        const verb = action === 'pause' ? 'Pause' : 'Resume';
        if (opts.lane !== undefined) {
          await laneAction(client, action, opts.lane, opts.reason, out, confirm);
          return;
        }
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
      },
    );
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Pauses or resumes a lane, after the confirmation; an unknown lane exits NOT_FOUND (4)
 * naming the executor's lanes. Pausing a paused lane (or resuming a running one) changes
 * nothing and exits 0, as pausing a PAUSED task does.
 */
async function laneAction(
  client: TaskClient,
  action: 'pause' | 'resume',
  lane: string,
  reason: string | undefined,
  out: ReturnType<typeof commandContext>['out'],
  confirm: (question: string) => Promise<void>,
): Promise<void> {
  let states: Awaited<ReturnType<TaskClient['laneStates']>>;
  try {
    states = await client.laneStates([lane]);
  } catch (err) {
    if (err instanceof UnknownLaneError) {
      throw new CliError(`No lane is named ${JSON.stringify(lane)}.`, ExitCode.NOT_FOUND, {
        cause: err,
        hint: `The executor's lanes: ${err.known.join(', ')}.`,
      });
    }
    throw err;
  }
  await confirm(
    action === 'pause'
      ? `Pause lane ${JSON.stringify(lane)}? Its tasks stay QUEUED until it is resumed; running ones finish.`
      : `Resume lane ${JSON.stringify(lane)}?${states[0]?.paused === true ? '' : ' (it is not paused)'}`,
  );
  const result: LanePauseResult =
    action === 'pause'
      ? await client.pauseLane(lane, { reason: reason ?? 'paused with tasklane pause --lane' })
      : await client.resumeLane(lane);
  if (out.json) {
    out.data(result);
    return;
  }
  out.table(
    ['lane', 'outcome', 'mappings', 'by'],
    [
      [
        lane,
        result.changed
          ? action === 'pause'
            ? 'paused'
            : 'resumed'
          : `already ${result.paused ? 'paused' : 'running'}`,
        result.switchedMappings.length === 0
          ? 'none switched (no Lambda mapping polls it; pollers read the pause)'
          : `${action === 'pause' ? 'disabled' : 'enabled'} ${result.switchedMappings.join(', ')}`,
        result.principal ?? '',
      ],
    ],
  );
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
