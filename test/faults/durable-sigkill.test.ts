/**
 * (u) Durable tasks under SIGKILL. Three worker processes run 100 durable tasks of 10
 * memoized steps each, half of them on five ordering keys and half unkeyed, and a third of
 * them continuing once (`ctx.continue()`) after their fifth step, while the suite SIGKILLs a
 * random worker every 1.5-4 s and restarts it. Every step records its effect inside the step.
 * Judged: no task lost and no terminal write duplicated; every step's effect exactly once, or
 * once more only when the run that did it lost its lease during that very step (its process
 * was killed before the step's result was stored, so it never got past the step); no key-order
 * violation across slices; attempts bounded (docs/durable-tasks.md, ADR 0047).
 */
import { describe, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import type { Expectation } from './lib/classify.js';
import { stepEffectId, type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { checkOrder } from './lib/order.js';
import { sleep } from './lib/random.js';
import { enqueueAll, type PlannedTask, range } from './lib/run.js';
import { checkCommon, checkDuplicatesExplained, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 100;
const KEYS = 5;
const STEPS = 10;
const CONTINUE_AT = 5;
const WORKERS = 3;
const SETTINGS = {
  leaseGraceMs: 500,
  leaseDurationMs: 3000,
  concurrency: 1,
  batchSize: 10,
  waitTimeSeconds: 1,
};
// Ten steps, each two writes to the shared emulator, under three processes' load: a slice's
// timeout well above its work, and a short lease, so a killed worker's task is taken over soon.
const PROFILE: TaskProfile = {
  timeoutMs: 15_000,
  maxAttempts: 8,
  baseDelayMs: 100,
  maxDelayMs: 500,
};

describe('durable tasks under SIGKILL', () => {
  it('runs every step once (or once more per lost lease), in key order, through kills and continuations', async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'u',
      title: '(u) Durable tasks under SIGKILL',
      description: `${WORKERS} worker processes run ${TASKS} durable tasks of ${STEPS} memoized steps (half on ${KEYS} ordering keys, half unkeyed; a third continue once after step ${CONTINUE_AT}), while a random worker is SIGKILLed every 1.5-4 s and restarted. Every step records its effect inside the step; a step effect may repeat only when the run that did it was killed during that very step.`,
      workerTimeoutSeconds: 1,
      maxAttempts: PROFILE.maxAttempts,
    });
    const fleet = s.fleet(PROFILE, SETTINGS, 'durable');
    fleet.start(WORKERS);
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 2000, pendingAgeMs: 3000 });
    const client = s.client();
    const planned: (PlannedTask & { readonly continues: boolean })[] = range(TASKS).map((seq) => {
      const keyed = seq % 2 === 0;
      const continues = seq % 3 === 0;
      const payload = {
        seq,
        mode: WorkMode.DURABLE,
        runMs: s.rng.int(10, 40),
        steps: STEPS,
        ...(continues ? { continueAt: CONTINUE_AT } : {}),
      };
      const key = keyed ? { orderingKey: `durable-${seq % KEYS}` } : {};
      return { id: `u-${seq}`, payload, continues, ...key };
    });
    const killer = s.rng.fork('kills');
    let killing = true;
    let kills = 0;
    const killLoop = (async () => {
      while (killing) {
        await sleep(killer.int(1500, 4000));
        if (!killing) break;
        fleet.kill(killer.int(0, WORKERS - 1));
        kills += 1;
      }
    })();

    // Act
    const task = s.producerTask(PROFILE);
    const enqueued = await enqueueAll(client, task, planned);
    await s.quiesce(enqueued.ids, 150_000);
    killing = false;
    await killLoop;
    await sweeper.stop();
    await fleet.stopAll();

    // Assert
    const expected = new Map<string, Expectation>(
      enqueued.ids.map((id) => [id, { status: TaskStatus.SUCCEEDED, effects: 1 }]),
    );
    const { figures } = await s.classify(expected);
    s.note('SIGKILLs', kills);
    s.note('worker restarts', fleet.restarts);
    s.note('sweeper requeues', sweeper.stats.requeued);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    const records = await Promise.all(enqueued.ids.map((id) => client.get(id)));
    const succeeded = records.filter((r) => r?.status === TaskStatus.SUCCEEDED).length;
    s.check(
      'outcomes',
      'every task SUCCEEDED',
      succeeded === TASKS,
      `${succeeded} SUCCEEDED of ${TASKS}`,
    );

    // Every step's effect: once, or once more per run killed during that very step.
    const ledger = await s.ledger.readAll();
    const runOf = (e: { attempt: number; workerId: string }) => `${e.attempt}@${e.workerId}`;
    let stepEffects = 0;
    let repeated = 0;
    let unexplained = 0;
    let missing = 0;
    for (const { id } of planned) {
      const finals = ledger.filter((e) => e.taskId === id).map(runOf);
      const byStep = range(STEPS).map((n) =>
        ledger.filter((e) => e.taskId === stepEffectId(id, n)),
      );
      for (const [n, effects] of byStep.entries()) {
        stepEffects += effects.length;
        if (effects.length === 0) missing += 1;
        if (effects.length <= 1) continue;
        repeated += effects.length - 1;
        // A run that was killed during step n recorded nothing after it: no later step, no
        // final effect. Every repeat but one must be such a run.
        const later = new Set([
          ...finals,
          ...byStep.slice(n + 1).flatMap((list) => list.map(runOf)),
        ]);
        const wentOn = effects.filter((e) => later.has(runOf(e))).length;
        if (wentOn > 1) unexplained += wentOn - 1;
      }
    }
    s.note('step effects', stepEffects);
    s.note('step effects repeated after a kill during the step', repeated);
    s.check(
      'steps-once',
      'every step’s effect exactly once, or once more only by a run killed during that very step',
      missing === 0 && unexplained === 0 && repeated <= figures.lostLeases,
      `${missing} steps without an effect, ${repeated} repeated (${figures.lostLeases} lost leases), ${unexplained} unexplained`,
    );

    const continued = records.filter((r) =>
      r?.history.some((h) => h.event === AuditEvent.CONTINUED),
    ).length;
    const shouldContinue = planned.filter((p) => p.continues).length;
    s.note('tasks that continued', `${continued} of ${shouldContinue} planned`);
    s.check(
      'continued',
      'every task planned to continue did so, without spending an attempt on it',
      continued === shouldContinue && records.every((r) => (r?.continuations ?? 0) <= 1),
      `${continued} continued of ${shouldContinue}`,
    );
    await checkOrder(
      s,
      planned.flatMap((p) =>
        p.orderingKey === undefined ? [] : [{ id: p.id, key: p.orderingKey }],
      ),
    );
    await s.finish();
  });
});
