import type { Command } from 'commander';
import type { Duration, PurgeResult, TaskClient } from 'tasklane';
import { TaskStatus } from 'tasklane';
import { type CommandContext, commandContext } from '../context.js';
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
      const context = commandContext(command);
      if (opts.dead !== true || opts.olderThan === undefined) {
        throw new CliError(
          'purge needs --dead and --older-than <duration>, e.g. tasklane purge --dead --older-than 30d (only DEAD tasks are purged; SUCCEEDED and CANCELLED ones expire after the retention period).',
          ExitCode.USAGE,
        );
      }
      const client = await context.client();
      await purgeCommand(client, context, {
        olderThan: opts.olderThan as Duration,
        dryRun: opts.dryRun === true,
      });
    });
}

/**
 * The purge command's steps: a dry run, shown and confirmed, then the delete of exactly the
 * tasks the dry run listed (`ids`), never of what matches by the time it is confirmed: a task
 * that died meanwhile was not shown, and is kept (docs/adr/0039-operator-audit.md).
 */
export async function purgeCommand(
  client: TaskClient,
  context: Pick<CommandContext, 'out' | 'confirm'>,
  options: { readonly olderThan: Duration; readonly dryRun: boolean },
): Promise<PurgeResult | undefined> {
  const { out, confirm } = context;
  const { olderThan } = options;
  const preview = await client.purge({ status: TaskStatus.DEAD, olderThan, dryRun: true });
  if (options.dryRun || preview.purged.length === 0) {
    if (out.json) out.data(preview);
    else if (preview.purged.length === 0) out.line(`No DEAD task died more than ${olderThan} ago.`);
    else
      out.line(`Would delete ${preview.purged.length} DEAD task(s): ${preview.purged.join(', ')}`);
    return undefined;
  }
  await confirm(`Delete ${preview.purged.length} DEAD task(s) for good? This cannot be undone.`);
  const bar = out.progress('purging');
  const result = await client
    .purge({
      status: TaskStatus.DEAD,
      olderThan,
      ids: preview.purged,
      onProgress: (d, t) => bar.update(d, t),
    })
    .finally(() => bar.stop());
  if (out.json) out.data(result);
  else {
    out.line(`Deleted ${result.purged.length} DEAD task(s).`);
    for (const s of result.skipped) out.line(out.color.yellow(`Kept ${s.id}: ${s.reason}`));
  }
  if (result.skipped.length > 0) process.exitCode = ExitCode.PARTIAL;
  return result;
}
