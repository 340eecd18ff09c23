import type { Command } from 'commander';
import type { Duration, RecoverResult, TaskClient } from 'tasklane';
import type { CommandContext } from '../context.js';
import { commandContext } from '../context.js';

interface RecoverCliOptions {
  olderThan: string;
  dryRun?: boolean;
}

/**
 * `tasklane recover-lost --older-than 15m`: puts back to work the RUNNING and QUEUED tasks
 * whose messages left the work queue without the sweeper seeing them go (a purge of the
 * queue, a retention that ran out): `TaskClient.recoverLost`
 * (docs/adr/0052-running-and-queued-leave-the-index.md, docs/runbook.md).
 */
export function registerRecover(program: Command): void {
  program
    .command('recover-lost')
    .description(
      'after a purge of a work queue: put back to work RUNNING and QUEUED tasks that lost their message (scans the table)',
    )
    .option(
      '--older-than <duration>',
      'only tasks quiet for longer than this: a lease that ended, or a QUEUED task unchanged, e.g. 15m',
      '15m',
    )
    .option('--dry-run', 'show what would be put back to work and change nothing')
    .action(async (opts: RecoverCliOptions, command: Command) => {
      const context = commandContext(command);
      const client = await context.client();
      await recoverCommand(client, context, {
        olderThan: opts.olderThan as Duration,
        dryRun: opts.dryRun === true,
      });
    });
}

/** The tasks a result names, as one line of ids per kind of repair. */
function describe(result: RecoverResult): string[] {
  const kinds: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['requeued (RUNNING, lease ended)', result.requeued],
    ['declared DEAD (RUNNING, lease ended on the final attempt)', result.killed],
    ['sent again (QUEUED)', result.resent],
  ];
  return kinds
    .filter(([, ids]) => ids.length > 0)
    .map(([what, ids]) => `  ${what}: ${ids.join(', ')}`);
}

/**
 * The command's steps: a dry run, shown and confirmed, then the recovery. Each repair is
 * fenced by the record the recovery reads, so a task a worker moved since the dry run is
 * left alone; one that became quiet since is repaired too, and named in the result.
 */
export async function recoverCommand(
  client: TaskClient,
  context: Pick<CommandContext, 'out' | 'confirm'>,
  options: { readonly olderThan: Duration; readonly dryRun: boolean },
): Promise<RecoverResult | undefined> {
  const { out, confirm } = context;
  const { olderThan } = options;
  const preview = await client.recoverLost({ olderThan, dryRun: true });
  const found = preview.requeued.length + preview.killed.length + preview.resent.length;
  if (options.dryRun || found === 0) {
    if (out.json) out.data(preview);
    else if (found === 0)
      out.line(
        `No RUNNING or QUEUED task has been quiet for more than ${olderThan} (${preview.scanned} scanned).`,
      );
    else {
      out.line(`Would put ${found} task(s) back to work:`);
      for (const line of describe(preview)) out.line(line);
    }
    return undefined;
  }
  await confirm(
    `Put ${found} task(s) back to work? A task whose message is in fact still queued runs once all the same.`,
  );
  const result = await client.recoverLost({ olderThan });
  if (out.json) out.data(result);
  else {
    const done = result.requeued.length + result.killed.length + result.resent.length;
    out.line(`Put ${done} task(s) back to work; ${result.sent} message(s) sent.`);
    for (const line of describe(result)) out.line(line);
    if (result.unsent > 0)
      out.line(
        out.color.yellow(
          `${result.unsent} send(s) failed: those tasks are PENDING, and the sweeper sends them.`,
        ),
      );
  }
  return result;
}
