import type { Command } from 'commander';
import { ScheduleNotFoundError } from 'tasklane';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { isoTime } from '../output.js';

/** `tasklane schedules list|show|pause|resume|delete`: recurring schedules. */
export function registerSchedules(program: Command): void {
  const schedules = program.command('schedules').description('recurring schedules');
  schedules
    .command('list')
    .description('the recurring schedules and their states')
    .option('--delayed', 'also the one-time schedules of delayed tasks')
    .action(async (opts: { delayed?: boolean }, command: Command) => {
      const { out, client } = commandContext(command);
      const list = await (await client()).schedules.list({ includeDelayed: opts.delayed === true });
      if (out.json) out.data(list);
      else if (list.length === 0) out.line('No schedules.');
      else
        out.table(
          ['schedule', 'state', 'kind'],
          list.map((s) => [s.name, s.state, s.kind]),
        );
    });
  schedules
    .command('show')
    .description('one schedule: expression, time zone, task type and payload')
    .argument('<name>')
    .action(async (name: string, _opts: unknown, command: Command) => {
      const { out, client } = commandContext(command);
      const details = await (await client()).schedules.get(name);
      if (details === undefined) throw notFound(name);
      if (out.json) {
        out.data(details);
        return;
      }
      out.table(
        ['field', 'value'],
        [
          ['name', details.name],
          ['state', details.state],
          ['expression', details.expression],
          ['time zone', details.timezone],
          ['task type', details.taskType ?? '(not a Tasklane firing)'],
          ['payload', JSON.stringify(details.payload)],
          ['start', isoTime(details.startDate?.getTime())],
          ['end', isoTime(details.endDate?.getTime())],
        ],
      );
    });
  for (const [verb, description] of [
    ['pause', 'stop firings until resumed'],
    ['resume', 'resume firings (missed ones are not made up)'],
  ] as const) {
    schedules
      .command(verb)
      .description(description)
      .argument('<name>')
      .action(async (name: string, _opts: unknown, command: Command) => {
        const { out, client: getClient } = commandContext(command);
        const client = await getClient();
        try {
          if (verb === 'pause') await client.schedules.pause(name);
          else await client.schedules.resume(name);
        } catch (err) {
          throw err instanceof ScheduleNotFoundError ? notFound(name) : err;
        }
        const state = verb === 'pause' ? 'DISABLED' : 'ENABLED';
        if (out.json) out.data({ name, state });
        else out.line(`Schedule ${name} is ${state}.`);
      });
  }
  schedules
    .command('delete')
    .description('delete a schedule (tasks it already fired stay)')
    .argument('<name>')
    .option('--dry-run', 'say what would be deleted and change nothing')
    .action(async (name: string, opts: { dryRun?: boolean }, command: Command) => {
      const { out, client: getClient, confirm } = commandContext(command);
      const client = await getClient();
      if ((await client.schedules.get(name)) === undefined) throw notFound(name);
      if (opts.dryRun === true) {
        if (out.json) out.data({ name, dryRun: true, wouldDelete: true });
        else out.line(`Would delete schedule ${name}.`);
        return;
      }
      await confirm(`Delete schedule ${name}?`);
      const deleted = await client.schedules.delete(name);
      if (!deleted) throw notFound(name);
      if (out.json) out.data({ name, deleted: true });
      else out.line(`Deleted schedule ${name}.`);
    });
}

function notFound(name: string): CliError {
  return new CliError(
    `No schedule is named ${JSON.stringify(name)} in the executor's group.`,
    ExitCode.NOT_FOUND,
    { cause: new ScheduleNotFoundError(name), hint: 'tasklane schedules list shows them.' },
  );
}
