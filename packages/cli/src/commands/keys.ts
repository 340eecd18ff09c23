import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { isoTime } from '../output.js';

/**
 * `tasklane keys parked|release`: ordering keys parked by a DEAD task of an `onDead: 'park'`
 * type (docs/parked-keys.md). Redriving one is `tasklane redrive --key <orderingKey>`.
 */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('parked ordering keys');
  keys
    .command('parked')
    .description('the parked keys and the DEAD task that holds each')
    .action(async (_opts: unknown, command: Command) => {
      const { out, client } = commandContext(command);
      const parked = await (await client()).parkedKeys();
      if (out.json) {
        out.data(
          parked.map((p) => ({
            orderingKey: p.orderingKey,
            taskId: p.task.id,
            taskType: p.task.type,
            deadReason: p.task.deadReason,
            parkedAt: isoTime(p.parkedAt),
            messageSentAt: isoTime(p.messageSentAt),
          })),
        );
      } else if (parked.length === 0) out.line('No parked keys.');
      else
        out.table(
          ['key', 'held by', 'type', 'parked at', 'reason'],
          parked.map((p) => [
            p.orderingKey,
            p.task.id,
            p.task.type,
            isoTime(p.parkedAt),
            p.task.deadReason ?? '',
          ]),
        );
    });
  keys
    .command('release')
    .description('give up on the DEAD task that parks a key: it stays DEAD, the rest proceed')
    .argument('<orderingKey>')
    .action(async (orderingKey: string, _opts: unknown, command: Command) => {
      const { out, client: getClient, confirm } = commandContext(command);
      const client = await getClient();
      await confirm(`Release ordering key ${orderingKey}? Its DEAD task will not run first.`);
      const result = await client.releaseKey(orderingKey);
      if (out.json) out.data(result);
      else
        out.line(
          result.released
            ? `Released ${orderingKey}; ${result.taskId} stays DEAD (redrive it by id if needed).`
            : `${orderingKey} is not parked: nothing to release.`,
        );
      if (!result.released) process.exitCode = ExitCode.NOT_FOUND;
    });
}
