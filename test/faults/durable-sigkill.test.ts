/**
 * (u) Durable tasks under SIGKILL. Three worker processes run 100 durable tasks of 10
 * memoized steps each, half of them on five ordering keys and half unkeyed, and a third of
 * them continuing once (`ctx.continue()`) after their fifth step, while the suite SIGKILLs a
 * random worker every 5-9 s and restarts it. Every step records its effect inside the step.
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
  // The whole timeout plus grace: no automatic heartbeat loads the emulator.
  leaseDurationMs: 6000,
  concurrency: 2,
  // Small batches: a kill then leaves few lease takeovers, which run one at a time (ADR 0007).
  batchSize: 2,
  waitTimeSeconds: 1,
};
// Ten steps, each two writes to the shared emulator, under three processes' load: a slice's
// timeout well above its work, and a lease short enough for a killed worker's task to be taken
// over within seconds.
const PROFILE: TaskProfile = {
  timeoutMs: 5000,
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
      description: `${WORKERS} worker processes run ${TASKS} durable tasks of ${STEPS} memoized steps (half on ${KEYS} ordering keys, half unkeyed; a third continue once after step ${CONTINUE_AT}), while a random worker is SIGKILLed every 5-9 s and restarted. Every step records its effect inside the step; a step effect may repeat only when the run that did it was killed during that very step.`,
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
        runMs: s.rng.int(5, 15),
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
        await sleep(killer.int(5000, 9000));
        if (!killing) break;
        fleet.kill(killer.int(0, WORKERS - 1));
        kills += 1;
      }
    })();

    // Act
    const task = s.producerTask(PROFILE);
    const enqueued = await enqueueAll(client, task, planned);
    await s.quiesce(enqueued.ids, 170_000);
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

    // A slice killed between its checkpoint and its continuation hands over through the
    // checkpoint instead: the next slice sees it and runs on without continuing.
    const planned3 = planned.filter((p) => p.continues).map((p) => p.id);
    const byId = new Map(records.map((r) => [r?.id, r]));
    const continued = planned3.filter((id) =>
      byId.get(id)?.history.some((h) => h.event === AuditEvent.CONTINUED),
    ).length;
    const handedOver = planned3.filter((id) =>
      byId.get(id)?.history.some((h) => h.event === AuditEvent.CHECKPOINTED),
    ).length;
    s.note('tasks that continued', `${continued} of ${planned3.length} planned`);
    s.check(
      'continued',
      'every task planned to continue saved its checkpoint and continued (or was killed between the two), at most once, spending no attempt on it',
      handedOver === planned3.length && records.every((r) => (r?.continuations ?? 0) <= 1),
      `${continued} continued, ${handedOver} checkpointed, of ${planned3.length}`,
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
