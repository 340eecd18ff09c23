import type { Command } from 'commander';
import type { Duration } from '../../client/duration.js';
import { TaskStatus } from '../../core/constants.js';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

interface PurgeCliOptions {
  dead?: boolean;
  olderThan?: string;
  dryRun?: boolean;
}

/** `tasklane purge --dead --older-than 30d`: deletes old DEAD tasks for good. */
export function registerPurge(program: Command): void {
  program
    .command('purge')
    .description('delete DEAD tasks that died longer ago than --older-than (for good)')
    .option('--dead', 'purge DEAD tasks (the only status purged: others expire by retention)')
    .option('--older-than <duration>', 'only tasks that died longer ago than this, e.g. 30d, 12h')
    .option('--dry-run', 'show what would be deleted and change nothing')
    .action(async (opts: PurgeCliOptions, command: Command) => {
      const { out, client: getClient, confirm } = commandContext(command);
      if (opts.dead !== true || opts.olderThan === undefined) {
        throw new CliError(
          'purge needs --dead and --older-than <duration>, e.g. tasklane purge --dead --older-than 30d (only DEAD tasks are purged; SUCCEEDED and CANCELLED ones expire after the retention period).',
          ExitCode.USAGE,
        );
      }
      const olderThan = opts.olderThan as Duration;
      const client = await getClient();
      const preview = await client.purge({ status: TaskStatus.DEAD, olderThan, dryRun: true });
      if (opts.dryRun === true || preview.purged.length === 0) {
        if (out.json) out.data(preview);
        else if (preview.purged.length === 0)
          out.line(`No DEAD task died more than ${olderThan} ago.`);
        else
          out.line(
            `Would delete ${preview.purged.length} DEAD task(s): ${preview.purged.join(', ')}`,
          );
        return;
      }
      await confirm(
        `Delete ${preview.purged.length} DEAD task(s) for good? This cannot be undone.`,
      );
      const bar = out.progress('purging');
      const result = await client
        .purge({ status: TaskStatus.DEAD, olderThan, onProgress: (d, t) => bar.update(d, t) })
        .finally(() => bar.stop());
      if (out.json) out.data(result);
      else {
        out.line(`Deleted ${result.purged.length} DEAD task(s).`);
        for (const s of result.skipped) out.line(out.color.yellow(`Kept ${s.id}: ${s.reason}`));
      }
      if (result.skipped.length > 0) process.exitCode = ExitCode.PARTIAL;
    });
}
