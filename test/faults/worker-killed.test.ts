/**
 * (a) Worker killed. Four worker processes work through 1,000 tasks while the suite SIGKILLs
 * a random one 50 times at random moments and restarts it, as a crashing container or an
 * OOM-killed Lambda would. Tasks whose worker died are taken over when their lease expires:
 * by the sweeper, or by the redelivered message.
 *
 * Every fourth task (240 in all) carries one of 6 ordering keys, 40 tasks per key; the
 * handlers' own start and end times must show each key's tasks running one after another,
 * in the order their enqueue returned (lib/order.ts defines a violation).
 */
import { describe, it } from 'vitest';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { checkOrder } from './lib/order.js';
import { sleep } from './lib/random.js';
import { enqueueAll, type PlannedTask, range } from './lib/run.js';
import {
  allSucceed,
  checkCommon,
  checkDuplicatesExplained,
  checkSucceededOrExhausted,
  Scenario,
} from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 1000;
const KEYS = 6;
const PER_KEY = 40;
const WORKERS = 4;
const KILLS = 50;
const PROFILE: TaskProfile = {
  timeoutMs: 2000,
  maxAttempts: 6,
  baseDelayMs: 200,
  maxDelayMs: 2000,
};

describe('worker killed', () => {
  it(`loses nothing while ${KILLS} SIGKILLs hit ${WORKERS} workers running ${TASKS} tasks`, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'a',
      title: '(a) Worker killed',
      description:
        "4 worker processes run 1,000 tasks, 240 of them under 6 ordering keys (40 per key), while a random one is SIGKILLed 50 times, at random moments, and restarted. Lease 3 s with automatic heartbeat, visibility 6 s, sweeper every 8 s. Per-key order is judged from the handlers' own start and end times.",
      workerTimeoutSeconds: 1,
      maxAttempts: PROFILE.maxAttempts,
    });
    const fleet = s.fleet(PROFILE, {
      leaseGraceMs: 500,
      leaseDurationMs: 3000,
      concurrency: 1,
      batchSize: 10,
      waitTimeSeconds: 1,
    });
    fleet.start(WORKERS);
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 8000, pendingAgeMs: 5000 });
    const task = s.producerTask(PROFILE);
    // Every fourth task is keyed, round-robin over the keys, until each key has PER_KEY.
    const keyOf = (seq: number) =>
      seq % 4 === 0 && seq / 4 < KEYS * PER_KEY ? `key-${(seq / 4) % KEYS}` : undefined;
    const tasks: PlannedTask[] = range(TASKS).map((seq) => {
      const key = keyOf(seq);
      const payload = { seq, mode: WorkMode.OK, runMs: s.rng.int(20, 300) };
      return key === undefined
        ? { id: `a-${seq}`, payload }
        : { id: `a-${seq}`, payload: { ...payload, key }, orderingKey: key };
    });
    const killer = s.rng.fork('kills');
    const kills: number[] = [];

    // Act: the producer and the killer run side by side.
    const killing = (async () => {
      for (let n = 0; n < KILLS; n++) {
        await sleep(killer.int(400, 2400));
        const slot = killer.int(0, WORKERS - 1);
        fleet.kill(slot);
        kills.push(slot);
      }
    })();
    const { sqs } = s.executor.clients;
    const enqueued = await enqueueAll(s.client(), task, tasks, {
      pace: { sqs, queueUrl: s.executor.queueUrl, maxDepth: 150 },
    });
    await killing;
    await s.quiesce(enqueued.ids, 180_000);
    await sweeper.stop();
    await fleet.stopAll();

    // Assert
    const { figures, verdicts } = await s.classify(allSucceed(enqueued.ids));
    s.note('SIGKILLs', kills.length);
    s.note('worker restarts', fleet.restarts);
    s.note('worker crashes (not killed by the suite)', fleet.crashes);
    s.note('sweeper requeues', sweeper.stats.requeued);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    s.check(
      'kills',
      `${KILLS} SIGKILLs, each restarted`,
      kills.length === KILLS && fleet.restarts >= KILLS,
      `${kills.length} kills, ${fleet.restarts} restarts`,
    );
    checkSucceededOrExhausted(s, figures, verdicts);
    // Each key's tasks in the order their enqueue returned.
    const planned = new Map(tasks.map((t) => [t.id, t]));
    const keyed = enqueued.ids.flatMap((id) => {
      const key = planned.get(id)?.orderingKey;
      return key === undefined ? [] : [{ id, key }];
    });
    await checkOrder(s, keyed);
    await s.finish();
  });
});
