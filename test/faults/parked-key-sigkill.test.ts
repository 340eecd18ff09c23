/**
 * (s) Parked key under SIGKILL. A task type with `onDead: 'park'` runs on three worker
 * processes while the suite SIGKILLs a random one at random moments, all through the run.
 * In each of three ordering keys, the fourth task is broken (a permanent error until a fix
 * is deployed, by restarting the workers with it), so it dies and parks its key. While parked, the keys' later tasks must wait
 * without being claimed. Once the fix is out, two keys are redriven with
 * `redrive({ orderingKey })` (the dead task must run first, then the rest in enqueue order)
 * and the third is released with `releaseKey` (its dead task stays DEAD, the rest run in
 * order). Per-key order is judged from the handlers' own start and end times over the whole
 * run: 0 violations (docs/parked-keys.md).
 */
import { describe, it } from 'vitest';
import { TaskStatus } from '../../src/core/constants.js';
import type { Expectation } from './lib/classify.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { checkOrder } from './lib/order.js';
import { sleep } from './lib/random.js';
import { enqueueAll, eventuallyTrue, type PlannedTask, range } from './lib/run.js';
import { checkCommon, checkDuplicatesExplained, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const KEYS = 3;
const PER_KEY = 8;
const BROKEN_AT = 3;
const UNKEYED = 12;
const WORKERS = 3;
const SETTINGS = {
  leaseGraceMs: 500,
  leaseDurationMs: 3000,
  concurrency: 1,
  batchSize: 10,
  waitTimeSeconds: 1,
};
const PROFILE: TaskProfile = {
  timeoutMs: 2000,
  maxAttempts: 6,
  baseDelayMs: 100,
  maxDelayMs: 500,
  onDead: 'park',
};

describe('parked key under SIGKILL', () => {
  it('keeps strict per-key order through a park, a redrive and a release', async () => {
    // Arrange
    const s = await Scenario.open({
      id: 's',
      title: '(s) Parked key under SIGKILL',
      description: `${WORKERS} worker processes run a task type with onDead: 'park', ${KEYS} ordering keys × ${PER_KEY} tasks and ${UNKEYED} unkeyed ones, while a random worker is SIGKILLed every 1.5-4 s and restarted, all run long. Each key's task #${BROKEN_AT + 1} fails permanently until a fix is deployed (the workers restarted with it), so it dies and parks its key; after the fix two keys are redriven with redrive({ orderingKey }) and one is released with releaseKey. Per-key order is judged from the handlers' own start and end times.`,
      workerTimeoutSeconds: 1,
      maxAttempts: PROFILE.maxAttempts,
    });
    let fleet = s.fleet(PROFILE, SETTINGS, 'broken');
    fleet.start(WORKERS);
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 2000, pendingAgeMs: 3000 });
    const client = s.client();
    const keyOf = (k: number) => `park-${k}`;
    const keyed = range(KEYS * PER_KEY).map((seq) => {
      const k = seq % KEYS;
      const position = Math.floor(seq / KEYS);
      const broken = position === BROKEN_AT;
      const mode = broken ? WorkMode.BROKEN_UNTIL_FIX : WorkMode.OK;
      const payload = { seq, mode, runMs: s.rng.int(20, 200), key: keyOf(k) };
      return { id: `s-${seq}`, orderingKey: keyOf(k), payload, broken };
    });
    const unkeyed: PlannedTask[] = range(UNKEYED).map((n) => ({
      id: `s-u${n}`,
      payload: { seq: KEYS * PER_KEY + n, mode: WorkMode.OK, runMs: s.rng.int(20, 200) },
    }));
    const killer = s.rng.fork('kills');
    let killing = true;
    let kills = 0;
    let restarts = 0;
    const killLoop = (async () => {
      while (killing) {
        await sleep(killer.int(1500, 4000));
        if (!killing) break;
        fleet.kill(killer.int(0, WORKERS - 1));
        kills += 1;
      }
    })();

    // Act: the keys park.
    const task = s.producerTask(PROFILE);
    const enqueued = await enqueueAll(client, task, [...keyed, ...unkeyed]);
    const brokenIds = keyed.filter((t) => t.broken).map((t) => t.id);
    const parkedInTime = await eventuallyTrue(
      async () => (await client.parkedKeys()).length === KEYS,
      120_000,
    ).then(
      () => true,
      () => false,
    );
    // Give a leak the time to show: a held key must keep its later tasks unclaimed.
    await sleep(4000);
    const parked = await client.parkedKeys();
    const waiting = keyed.filter((t) => Math.floor(Number(t.id.slice(2)) / KEYS) > BROKEN_AT);
    const waitingRecords = await Promise.all(waiting.map((t) => client.get(t.id)));

    // Act: the fix is deployed (the workers restart with it); two keys are redriven, one released.
    const old = fleet;
    fleet = s.fleet({ ...PROFILE, fixDeployed: true }, SETTINGS, 'fixed');
    fleet.start(WORKERS);
    restarts += old.restarts;
    await old.stopAll();
    const redriven = [];
    for (let k = 0; k < KEYS - 1; k++) {
      redriven.push(await client.redrive({ orderingKey: keyOf(k) }));
    }
    const released = await client.releaseKey(keyOf(KEYS - 1));
    await s.quiesce(enqueued.ids, 120_000);
    killing = false;
    await killLoop;
    await sweeper.stop();
    await fleet.stopAll();
    const parkedAfter = await client.parkedKeys();

    // Assert
    const releasedDead = brokenIds[KEYS - 1] as string;
    const expected = new Map<string, Expectation>(
      enqueued.ids.map((id) => [
        id,
        id === releasedDead
          ? { status: TaskStatus.DEAD, effects: 0 }
          : { status: TaskStatus.SUCCEEDED, effects: 1 },
      ]),
    );
    const { figures } = await s.classify(expected);
    s.note('SIGKILLs', kills);
    s.note('worker restarts', restarts + fleet.restarts);
    s.note('sweeper requeues', sweeper.stats.requeued);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    s.check(
      'outcomes',
      'every task as expected: the released key’s dead task DEAD, every other task SUCCEEDED',
      figures.unexpected === 0 && figures.tasks === keyed.length + unkeyed.length,
      `${figures.unexpected} unexpected of ${figures.tasks}`,
    );

    const parkedBy = parked.map((p) => `${p.orderingKey}:${p.task.id}`).sort();
    const expectedParks = range(KEYS).map((k) => `${keyOf(k)}:${brokenIds[k]}`);
    s.check(
      'parked',
      `each key's broken task died and parked its key (parkedKeys lists all ${KEYS})`,
      parkedInTime && parkedBy.join() === expectedParks.join(),
      parkedBy.join(' '),
    );
    const claimed = waitingRecords.filter(
      (r) => r === undefined || r.attempt !== 0 || r.history.some((h) => h.event === 'claimed'),
    );
    s.check(
      'waited',
      `while parked, the keys' ${waiting.length} later tasks were never claimed (0 attempts)`,
      claimed.length === 0,
      `${claimed.length} claimed`,
    );
    s.check(
      'redrive-release',
      'redrive({ orderingKey }) redrove each parked task in place; releaseKey released the third key; nothing is parked after',
      redriven.every((r, k) => r.redriven.join() === brokenIds[k]) &&
        released.released &&
        released.taskId === releasedDead &&
        parkedAfter.length === 0,
      `${redriven.map((r) => r.redriven.join()).join(' ')}; released ${released.taskId}; ${parkedAfter.length} parked after`,
    );
    s.note('SIGKILLs during the run', kills);
    await checkOrder(
      s,
      keyed.map((t) => ({ id: t.id, key: t.orderingKey })),
    );
    await s.finish();
  });
});
