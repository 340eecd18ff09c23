import type { Command } from 'commander';
import type { TaskClient } from 'tasklane';
import { ConfigurationError } from 'tasklane';
import { commandContext } from '../context.js';
import { humanDuration } from '../output.js';

/** `tasklane status`: counts per status (and type), paused lanes, the DLQ, the schedules. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      'counts per status (--by-type: per task type, --by-lane: per lane), DLQ depth and oldest age (per lane), schedules',
    )
    .option('--by-type', 'break the counts down by task type')
    .option('--by-lane', 'break the counts down by lane')
    .action(async (opts: { byType?: boolean; byLane?: boolean }, command: Command) => {
      const { out, client: getClient } = commandContext(command);
      const client = await getClient();
      const bar = out.progress('counting');
      const counts = await client
        .counts({
          byType: opts.byType === true,
          byLane: opts.byLane === true,
          onProgress: (d, t) => bar.update(d, t),
        })
        .finally(() => bar.stop());
      const deadLetters = await optional(() => client.deadLetters.stats());
      const schedules = await optional(() => client.schedules.list());
      const lanes = await client.laneStates();
      const paused = lanes.filter((l) => l.paused);
      const now = Date.now();
      if (out.json) {
        out.data({
          counts,
          deadLetters:
            deadLetters.value === undefined
              ? null
              : {
                  ...deadLetters.value,
                  oldestAgeMs:
                    deadLetters.value.oldestSentAt === undefined
                      ? null
                      : now - deadLetters.value.oldestSentAt,
                },
          schedules: schedules.value ?? null,
          lanes,
          notConfigured: [deadLetters.missing, schedules.missing].filter((m) => m !== undefined),
        });
        return;
      }
      printCounts(out, counts);
      if (paused.length > 0) {
        // Only paused lanes are listed: a running lane is the normal case.
        out.line();
        out.table(
          ['paused lane', 'since', 'by', 'reason'],
          paused.map((l) => [
            out.color.yellow(l.lane),
            l.changedAt === undefined ? '' : `${humanDuration(now - l.changedAt)} ago`,
            l.principal ?? '',
            l.reason ?? '',
          ]),
        );
      }
      out.line();
      if (deadLetters.value === undefined) {
        out.line(`Dead-letter queue: not configured (${deadLetters.missing})`);
      } else {
        const { visible, inFlight, oldestSentAt } = deadLetters.value;
        const age =
          oldestSentAt === undefined ? '' : `, oldest ${humanDuration(now - oldestSentAt)} old`;
        const line = `Dead-letter queue: ${visible} waiting, ${inFlight} in flight${age}`;
        out.line(visible > 0 ? out.color.red(line) : line);
        const byLane = deadLetters.value.byLane;
        if (byLane !== undefined) {
          out.table(
            ['lane', 'dead letters', 'in flight', 'oldest'],
            Object.entries(byLane).map(([lane, s]) => [
              lane,
              s.visible > 0 ? out.color.red(String(s.visible)) : String(s.visible),
              String(s.inFlight),
              s.oldestSentAt === undefined ? '' : humanDuration(now - s.oldestSentAt),
            ]),
          );
        }
      }
      out.line();
      if (schedules.value === undefined) {
        out.line(`Schedules: not configured (${schedules.missing})`);
      } else if (schedules.value.length === 0) {
        out.line('Schedules: none');
      } else {
        out.table(
          ['schedule', 'state'],
          schedules.value.map((s) => [
            s.name,
            s.state === 'ENABLED' ? out.color.green(s.state) : out.color.yellow(s.state),
          ]),
        );
      }
    });
}

function printCounts(
  out: ReturnType<typeof commandContext>['out'],
  counts: Awaited<ReturnType<TaskClient['counts']>>,
): void {
  const statuses = Object.keys(counts.byStatus);
  if (counts.scanned.length > 0) {
    // RUNNING and the finished statuses are not in the status index (docs/status-index.md).
    out.line(out.color.dim(`${counts.scanned.join(', ')}: counted by a scan of the table`));
  }
  if (counts.retrying !== undefined) {
    // A retry leaves its task off the index (docs/adr/0068-a-retry-stays-off-the-index.md).
    out.line(
      out.color.dim(
        `QUEUED includes ${counts.retrying} waiting out a retry delay (found by the scan)`,
      ),
    );
  }
  if (counts.byLane !== undefined) {
    out.table(
      ['lane', ...statuses],
      Object.entries(counts.byLane).map(([lane, row]) => [
        lane,
        ...statuses.map((s) => String(row[s as keyof typeof row] ?? 0)),
      ]),
    );
    if (counts.byType === undefined) return;
  }
  if (counts.byType === undefined) {
    out.table(
      ['status', 'tasks'],
      [
        ...Object.entries(counts.byStatus).map(([s, n]) => [
          s === 'DEAD' && n > 0 ? out.color.red(s) : s,
          String(n),
        ]),
        [out.color.bold('total'), String(counts.total)],
      ],
    );
    return;
  }
  out.table(
    ['type', ...statuses],
    Object.entries(counts.byType).map(([type, row]) => [
      type,
      ...statuses.map((s) => String(row[s as keyof typeof row] ?? 0)),
    ]),
  );
}

/** Runs a read that needs optional configuration; a ConfigurationError becomes `missing`. */
async function optional<T>(read: () => Promise<T>): Promise<{ value?: T; missing?: string }> {
  try {
    return { value: await read() };
  } catch (err) {
    if (err instanceof ConfigurationError) return { missing: err.message };
    throw err;
  }
}
