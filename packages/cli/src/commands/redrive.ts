import type { Command } from 'commander';
import type { RedriveSelection, TaskClient, TaskRecord } from 'tasklane';
import { ConfigurationError, TaskStatus } from 'tasklane';
import { commaList, commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

interface RedriveOptions {
  ids?: string[];
  all?: boolean;
  key?: string;
  dryRun?: boolean;
}

/** `tasklane redrive`: DEAD tasks back to work, by id, all, or one ordering key in order. */
export function registerRedrive(program: Command): void {
  program
    .command('redrive')
    .description('move DEAD tasks back to the queue with a fresh attempt budget (history kept)')
    .option('--ids <ids>', 'these tasks (comma-separated)', commaList)
    .option('--all', 'every DEAD task, and drain the dead-letter queue')
    .option(
      '--key <orderingKey>',
      "every DEAD task of this ordering key, in the key's order (a parked key's task first)",
    )
    .option('--dry-run', 'show what would be redriven and change nothing')
    .action(async (opts: RedriveOptions, command: Command) => {
      const { out, client: getClient, confirm } = commandContext(command);
      const selection = selectionOf(opts);
      const client = await getClient();
      const preview = await previewOf(client, selection);
      // --all and --key also drain the dead-letter queue, where the tasks are not DEAD but
      // QUEUED (runbook, "The DLQ alarm"): with no DEAD task, there may still be work to do.
      const deadLetters = 'ids' in selection ? 0 : await deadLetterCount(client);
      if (opts.dryRun === true || (preview.dead.length === 0 && deadLetters === 0)) {
        if (out.json)
          out.data({
            dryRun: opts.dryRun === true,
            wouldRedrive: preview.dead,
            skipped: preview.skipped,
          });
        else {
          out.line(
            preview.dead.length === 0
              ? 'No DEAD task matches: nothing to redrive.'
              : `Would redrive ${preview.dead.length} DEAD task(s): ${preview.dead.join(', ')}`,
          );
          for (const s of preview.skipped) out.line(`  skipped ${s.id}: ${s.reason}`);
          if (deadLetters > 0)
            out.line(`Would drain the dead-letter queue: ${deadLetters} message(s) waiting.`);
        }
        // Nothing to redrive, and some ids named are not DEAD: skipped, as documented.
        if (opts.dryRun !== true && preview.skipped.length > 0) process.exitCode = ExitCode.PARTIAL;
        return;
      }
      await confirm(
        deadLetters === 0
          ? `Redrive ${preview.dead.length} DEAD task(s)?`
          : `Redrive ${preview.dead.length} DEAD task(s) and drain ${deadLetters} dead-letter message(s)?`,
      );
      if (!out.json) out.note(`Redriving ${preview.dead.length} task(s)...`);
      const bar = out.progress('redriving');
      const result = await client
        .redrive(selection, { onProgress: (done, total) => bar.update(done, total) })
        .finally(() => bar.stop());
      if (out.json) out.data(result);
      else {
        out.line(`Redriven: ${result.redriven.length} (${result.redriven.join(', ')})`);
        if (result.unsent.length > 0) {
          out.line(
            out.color.yellow(`Not sent yet (the sweeper sends them): ${result.unsent.join(', ')}`),
          );
        }
        for (const s of result.skipped) out.line(out.color.yellow(`Skipped ${s.id}: ${s.reason}`));
        out.line(
          `Dead-letter queue: ${result.dlq.deleted} deleted, ${result.dlq.movedBack} moved back to the work queue`,
        );
      }
      if (result.skipped.length > 0 || result.unsent.length > 0) {
        process.exitCode = ExitCode.PARTIAL;
      }
    });
}

function selectionOf(opts: RedriveOptions): RedriveSelection {
  const given = [opts.ids !== undefined, opts.all === true, opts.key !== undefined].filter(Boolean);
  if (given.length !== 1) {
    throw new CliError(
      'redrive needs exactly one of --ids <id,...>, --all or --key <orderingKey> (to see what is DEAD: tasklane list --status DEAD).',
      ExitCode.USAGE,
    );
  }
  if (opts.ids !== undefined) {
    if (opts.ids.length === 0)
      throw new CliError('--ids needs at least one task id.', ExitCode.USAGE);
    return { ids: opts.ids };
  }
  return opts.key === undefined ? { all: true } : { orderingKey: opts.key };
}

/** The DEAD tasks a selection would redrive, and the ids it would skip. */
async function previewOf(
  client: TaskClient,
  selection: RedriveSelection,
): Promise<{ dead: string[]; skipped: { id: string; reason: string }[] }> {
  if ('ids' in selection) {
    const records = await Promise.all(selection.ids.map((id) => client.get(id)));
    return sortDead(selection.ids, records);
  }
  const dead: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({
      status: TaskStatus.DEAD,
      limit: 1000,
      ...(selection.orderingKey === undefined ? {} : { orderingKey: selection.orderingKey }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    dead.push(...page.items.map((r) => r.id));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return { dead, skipped: [] };
}

/**
 * The ids whose records are DEAD, and the others as skipped, with the reasons
 * `client.redrive` gives in its result for the same records.
 */
function sortDead(
  ids: readonly string[],
  records: readonly (TaskRecord | undefined)[],
): { dead: string[]; skipped: { id: string; reason: string }[] } {
  const dead: string[] = [];
  const skipped: { id: string; reason: string }[] = [];
  records.forEach((record, i) => {
    const id = ids[i] as string;
    if (record === undefined) skipped.push({ id, reason: 'no task has this id' });
    else if (record.status !== TaskStatus.DEAD)
      skipped.push({ id, reason: `task is ${record.status}, not DEAD` });
    else dead.push(id);
  });
  return { dead, skipped };
}

/** Messages in the dead-letter queue (visible or held); 0 when none is configured. */
async function deadLetterCount(client: TaskClient): Promise<number> {
  try {
    const { visible, inFlight } = await client.deadLetters.stats({ sample: 1 });
    return visible + inFlight;
  } catch (err) {
    if (err instanceof ConfigurationError) return 0;
    throw err;
  }
}
