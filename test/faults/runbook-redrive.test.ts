/**
 * (r) Runbook redrive. On the real local executor, a dependency that every keyed task calls
 * is down, so the tasks of several ordering keys run out of attempts and end DEAD while
 * unkeyed tasks that do not call it succeed. Then an operator follows docs/runbook.md
 * ("Replay or redrive after an outage") step by step with the `tasklane` binary, as a child
 * process: look (`status`, `list --status DEAD`, `show`, `dlq peek`), redrive one canary and
 * follow it with `tail`, preview with `--dry-run`, redrive key by key, and confirm with
 * `status`. Every task must end SUCCEEDED with exactly one effect, each key's redriven tasks
 * must run in enqueue order, the DLQ must be empty, and each command must exit with the code
 * docs/operations.md documents.
 */
import { describe, it } from 'vitest';
import { EnvVars } from '../../src/settings/location.js';
import { type CliRun, runCli } from '../helpers/cli.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { CallLog } from './lib/ledger.js';
import { startLocalRun } from './lib/local.js';
import { checkKeyOrder, describeViolations, type KeyedTask } from './lib/order.js';
import { readAllRecords } from './lib/records.js';
import { enqueueAll, type PlannedTask, range } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';

const KEYS = 4;
const PER_KEY = 5;
const UNKEYED = 8;
const PROFILE: TaskProfile = { timeoutMs: 5000, maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 300 };
const OUTAGE_ERROR = 'orders API unavailable (503)';

/** The TASKLANE_* variables that point the CLI at the scenario's executor. */
function cliEnv(s: Scenario): Record<string, string> {
  const { executor } = s;
  const scheduler = executor.scheduler;
  if (scheduler === undefined) throw new Error('the scenario must be opened with scheduling');
  return {
    [EnvVars.TABLE_NAME]: executor.tableName,
    [EnvVars.QUEUE_URL]: executor.queueUrl,
    [EnvVars.DLQ_URL]: executor.deadLetterQueueUrl,
    [EnvVars.QUEUE_ARN]: executor.queueArn,
    [EnvVars.SCHEDULE_GROUP]: scheduler.scheduleGroup,
    [EnvVars.SCHEDULER_ROLE_ARN]: scheduler.schedulerRoleArn,
    [EnvVars.SCHEDULE_DLQ_ARN]: scheduler.scheduleDeadLetterArn,
  };
}

interface StatusJson {
  counts: { byStatus: Record<string, number> };
  deadLetters: { visible: number; inFlight: number } | null;
}

describe('runbook redrive', () => {
  it('recovers an outage by following the runbook with the tasklane CLI', async () => {
    // Arrange: the outage. Keyed tasks call the dependency (down); unkeyed ones do not.
    const s = await Scenario.open({
      id: 'r',
      title: '(r) Runbook redrive',
      description: `On the real local executor, a dependency is down while ${KEYS} ordering keys × ${PER_KEY} tasks call it (maxAttempts ${PROFILE.maxAttempts}), so they all end DEAD; ${UNKEYED} unkeyed tasks do not call it. With the dependency back, the \`tasklane\` binary follows docs/runbook.md's redrive steps: status, list --status DEAD, show, dlq peek, a canary redrive --ids followed by tail --id, redrive --all --dry-run, redrive --key per key, a repeated redrive, status.`,
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
      scheduling: true,
    });
    let healthy = false;
    const dependency = async () => {
      if (!healthy) throw new Error(OUTAGE_ERROR);
    };
    const run = await startLocalRun(s, PROFILE, { dependency });
    const env = cliEnv(s);
    const exits: { command: string; code: number | null; expected: number }[] = [];
    const cli = async (args: string[], expected: number): Promise<CliRun> => {
      const out = await runCli(args, env);
      exits.push({ command: args.join(' '), code: out.code, expected });
      if (out.code !== expected) console.log(`[faults] (r) tasklane ${args.join(' ')}:`, out);
      return out;
    };
    const keyed: (PlannedTask & { orderingKey: string })[] = range(KEYS * PER_KEY).map((seq) => ({
      id: `r-${seq}`,
      orderingKey: `r-key-${seq % KEYS}`,
      payload: { seq, mode: WorkMode.DEPENDENCY, runMs: s.rng.int(20, 120) },
    }));
    const unkeyed: PlannedTask[] = range(UNKEYED).map((n) => ({
      id: `r-u${n}`,
      payload: { seq: KEYS * PER_KEY + n, mode: WorkMode.OK, runMs: s.rng.int(20, 120) },
    }));
    const task = s.producerTask(PROFILE);
    const enqueued = await enqueueAll(run.local.client, task, [...keyed, ...unkeyed]);
    await s.quiesce(enqueued.ids, 90_000);

    // Act: the runbook's "Look" steps.
    const before = JSON.parse((await cli(['status', '--by-type', '--json'], 0)).stdout);
    const statusText = await cli(['status'], 0);
    const listed = await cli(['list', '--status', 'DEAD', '--since', '6h', '--json'], 0);
    const deadIds: string[] = JSON.parse(listed.stdout).items.map((i: { id: string }) => i.id);
    const canary = keyed[0] as PlannedTask;
    const shown = JSON.parse((await cli(['show', canary.id, '--json'], 0)).stdout);
    const peek = await cli(['dlq', 'peek'], 0);

    // Act: the "Do" steps, once the dependency is healthy.
    healthy = true;
    const redriveStarted = Date.now();
    await cli(['redrive', '--ids', canary.id, '--yes'], 0);
    const tail = await cli(['tail', '--id', canary.id, '--json', '--interval', '500'], 0);
    const dry = await cli(['redrive', '--all', '--dry-run', '--json'], 0);
    const byKey: Record<string, string[]> = {};
    for (let k = 0; k < KEYS; k++) {
      const out = await cli(['redrive', '--key', `r-key-${k}`, '--yes', '--json'], 0);
      byKey[`r-key-${k}`] = JSON.parse(out.stdout).redriven;
    }
    await s.quiesce(enqueued.ids, 90_000);
    const again = await cli(['redrive', '--ids', canary.id, '--yes', '--json'], 5);

    // Act: "Confirm".
    const after: StatusJson = JSON.parse((await cli(['status', '--json'], 0)).stdout);
    const deadAfter = JSON.parse(
      (await cli(['list', '--status', 'DEAD', '--since', '6h', '--json'], 0)).stdout,
    ).items;
    const peekAfter = await cli(['dlq', 'peek'], 0);
    await run.local.stop();

    // Assert
    const { figures } = await s.classify(allSucceed(enqueued.ids));
    checkCommon(s, figures);
    s.check(
      'succeeded-once',
      'every task SUCCEEDED once, with exactly one effect (the redriven ones after their DEAD)',
      figures.exactlyOnce === figures.tasks && figures.tasks === keyed.length + unkeyed.length,
      `${figures.exactlyOnce} exactly once of ${figures.tasks}`,
    );
    const keyedIds = keyed.map((t) => t.id);
    const beforeCounts = (before as StatusJson).counts.byStatus;
    s.check(
      'look',
      `status shows ${keyed.length} DEAD and the DLQ empty; list --status DEAD lists them; show names the outage's error`,
      beforeCounts.DEAD === keyed.length &&
        beforeCounts.SUCCEEDED === unkeyed.length &&
        (before as StatusJson).deadLetters?.visible === 0 &&
        statusText.stdout.includes('Dead-letter queue: 0 waiting') &&
        [...deadIds].sort().join() === [...keyedIds].sort().join() &&
        JSON.stringify(shown.lastError ?? '').includes(OUTAGE_ERROR) &&
        peek.stdout.includes('The dead-letter queue is empty.'),
      `DEAD ${beforeCounts.DEAD}, SUCCEEDED ${beforeCounts.SUCCEEDED}, DLQ ${(before as StatusJson).deadLetters?.visible}, listed ${deadIds.length}, error ${JSON.stringify(shown.lastError?.message ?? '')}`,
    );
    const tailEvents = tail.stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l).event as string);
    s.check(
      'canary',
      'tail --id follows the redriven canary until it succeeds',
      tailEvents.at(-1) === 'succeeded',
      tailEvents.join(' > '),
    );
    const wouldRedrive: string[] = JSON.parse(dry.stdout).wouldRedrive;
    s.check(
      'dry-run',
      `redrive --all --dry-run names the ${keyed.length - 1} DEAD tasks left`,
      wouldRedrive.length === keyed.length - 1 && !wouldRedrive.includes(canary.id),
      wouldRedrive.length,
    );
    const inOrder = Object.entries(byKey).every(
      ([key, ids]) =>
        ids.join() ===
        keyed
          .filter((t) => t.orderingKey === key && t.id !== canary.id)
          .map((t) => t.id)
          .join(),
    );
    s.check(
      'redrive-order',
      'redrive --key re-sends each key in enqueue order',
      inOrder,
      Object.values(byKey)
        .map((ids) => ids.length)
        .join(' + '),
    );
    // Order of the runs after the redrive (the outage's failed runs came before).
    const redriveRuns = new CallLog();
    for (const e of s.calls.entries) if (e.at >= redriveStarted) redriveRuns.record(e);
    for (const e of s.calls.ends) if (e.at >= redriveStarted) redriveRuns.recordEnd(e);
    const keyedTasks: KeyedTask[] = keyed.map((t) => ({ id: t.id, key: t.orderingKey }));
    const order = checkKeyOrder(keyedTasks, await readAllRecords(s.executor), redriveRuns);
    if (order.violations.length > 0) console.log(describeViolations(order));
    s.check(
      'key-order',
      'per-key order after the redrive: no task starts before the previous task of its key finished',
      order.violations.length === 0,
      `${order.violations.length} violation(s) in ${order.pairs} consecutive pairs`,
    );
    s.check(
      'redrive-twice',
      'redriving the canary again changes nothing and exits 5 (skipped)',
      JSON.parse(again.stdout).skipped?.[0]?.id === canary.id,
      JSON.stringify(JSON.parse(again.stdout).skipped ?? []),
    );
    s.check(
      'confirm',
      'status: 0 DEAD, every task SUCCEEDED, DLQ empty; list --status DEAD empty',
      after.counts.byStatus.DEAD === 0 &&
        after.counts.byStatus.SUCCEEDED === keyed.length + unkeyed.length &&
        after.deadLetters?.visible === 0 &&
        after.deadLetters?.inFlight === 0 &&
        deadAfter.length === 0 &&
        peekAfter.stdout.includes('The dead-letter queue is empty.'),
      `DEAD ${after.counts.byStatus.DEAD}, SUCCEEDED ${after.counts.byStatus.SUCCEEDED}, DLQ ${after.deadLetters?.visible}`,
    );
    const wrongExits = exits.filter((e) => e.code !== e.expected);
    s.note('tasklane commands run', exits.length);
    s.check(
      'exit-codes',
      'every tasklane command exits with its documented code',
      wrongExits.length === 0,
      wrongExits.length === 0
        ? `${exits.length}/${exits.length}`
        : wrongExits.map((e) => `${e.command}: ${e.code} (expected ${e.expected})`).join('; '),
    );
    await s.finish();
  });
});
