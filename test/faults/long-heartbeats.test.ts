/**
 * (l) Long tasks that heartbeat thousands of times. A task's record must not grow with its
 * run time: a 12-hour task heartbeats thousands of times, and an item past DynamoDB's 400 KB
 * would refuse every later write (the task stuck RUNNING) and could stop the sweeper. Here a
 * few tasks call `ctx.heartbeat()` thousands of times each, while the producer's sends fail
 * so that ordinary tasks depend on the sweeper; the raw items are measured throughout.
 */
import { describe, it } from 'vitest';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { faultyClients } from './lib/faults.js';
import { itemBytes, rawTaskItem } from './lib/item-size.js';
import { sleep } from './lib/random.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

/** One task heartbeats ten thousand times (a 12-hour task at a lease of 13 s), three a thousand. */
const BEATS = [10_000, 1000, 1000, 1000];
const LONG = BEATS.length;
const TOTAL_BEATS = BEATS.reduce((sum, n) => sum + n, 0);
const SHORT = 30;
/** "Well under" the limit: 64 KB, a sixth of it. */
const SIZE_BUDGET = 64 * 1024;
const PROFILE: TaskProfile = {
  timeoutMs: 900_000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 1000,
};

describe('long heartbeating tasks', () => {
  it(`keeps items small and sweeps working while ${LONG} tasks heartbeat up to ${BEATS[0]} times each`, async () => {
    // Arrange: long tasks on one worker, ordinary ones on another, a sweeper throughout.
    const s = await Scenario.open({
      id: 'l',
      title: '(l) Long tasks heartbeating thousands of times',
      description: `${LONG} tasks call ctx.heartbeat() ${BEATS.map((n) => n.toLocaleString('en')).join(', ')} times in a row, while ${SHORT} ordinary tasks are enqueued by a producer whose every SendMessage fails, so that only the sweeper (every 2 s) sends them. The raw items of the long tasks are measured every 2 s with GetItem.`,
      workerTimeoutSeconds: 60,
      maxAttempts: PROFILE.maxAttempts,
    });
    const longWorker = s.worker({ profile: PROFILE }, { leaseDurationMs: 30_000 });
    const shortWorker = s.worker({ profile: PROFILE });
    const stopLong = startPolling(longWorker, { concurrency: LONG, batchSize: 1 });
    const stopShort = startPolling(shortWorker, { concurrency: 1, batchSize: 10 });
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 2000, pendingAgeMs: 1000 });
    const long = range(LONG).map((seq) => ({
      id: `l-long-${seq}`,
      payload: { seq, mode: WorkMode.OK, runMs: 0, beats: BEATS[seq] ?? 0 },
    }));
    const short = range(SHORT).map((seq) => ({
      id: `l-short-${seq}`,
      payload: { seq, mode: WorkMode.OK, runMs: s.rng.int(20, 200) },
    }));
    const { dynamodb } = s.executor.clients;
    const sizes = new Map<string, number>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const t of long) {
          const item = await rawTaskItem(dynamodb, s.executor.tableName, t.id);
          if (item !== undefined) sizes.set(t.id, Math.max(sizes.get(t.id) ?? 0, itemBytes(item)));
        }
        await sleep(2000);
      }
    })();

    // Act: the long tasks first; the ordinary ones while they heartbeat.
    const started = Date.now();
    const first = await enqueueAll(s.client(), s.producerTask(PROFILE), long);
    await sleep(3000);
    const noSends = faultyClients((service, command) =>
      service === 'sqs' && command.startsWith('SendMessage') ? 'crash-before' : undefined,
    );
    const second = await enqueueAll(
      s.client({ clients: noSends.clients }),
      s.producerTask(PROFILE),
      short,
    );
    const ids = [...first.ids, ...second.ids];
    await s.quiesce(ids, 840_000);
    const elapsedMs = Date.now() - started;
    sampling = false;
    await sampler;
    await sweeper.stop();
    await Promise.all([stopLong(), stopShort()]);

    // Assert
    const finals = await Promise.all(
      long.map((t) => rawTaskItem(dynamodb, s.executor.tableName, t.id)),
    );
    for (const [n, item] of finals.entries()) {
      const id = (long[n] as (typeof long)[number]).id;
      if (item !== undefined) sizes.set(id, Math.max(sizes.get(id) ?? 0, itemBytes(item)));
    }
    const counted = finals.reduce((n, item) => n + Number(item?.heartbeats?.N ?? 0), 0);
    const largest = Math.max(0, ...sizes.values());
    const { figures } = await s.classify(allSucceed(ids));
    s.note('heartbeats called by the handlers', TOTAL_BEATS);
    s.note('heartbeats counted on the records', counted);
    s.note(
      'heartbeat rate',
      `${(TOTAL_BEATS / (elapsedMs / 1000)).toFixed(0)} /s over ${(elapsedMs / 1000).toFixed(0)} s`,
    );
    s.note('largest item of a long task', `${(largest / 1024).toFixed(1)} KB`);
    s.note('enqueues that returned sent: false', second.unsent);
    s.note('sweeps', `${sweeper.stats.runs} run, ${sweeper.stats.errors} failed`);
    s.note('tasks sent by the sweeper', sweeper.stats.sent);
    checkCommon(s, figures);
    s.check(
      'succeeded',
      'every task SUCCEEDED exactly once',
      figures.exactlyOnce === figures.tasks && figures.tasks === LONG + SHORT,
      `${figures.exactlyOnce} of ${figures.tasks}`,
    );
    s.check(
      'item-size',
      `every long task's item stays under ${SIZE_BUDGET / 1024} KB (a sixth of the 400 KB limit)`,
      sizes.size === LONG && largest < SIZE_BUDGET,
      `largest ${(largest / 1024).toFixed(1)} KB`,
    );
    s.check(
      'sweeps',
      'no sweep fails, and the sweeper sends every unsent task',
      sweeper.stats.errors === 0 && sweeper.stats.sent >= second.unsent && second.unsent === SHORT,
      `${sweeper.stats.errors} failed sweeps, ${sweeper.stats.sent} sent, ${second.unsent} unsent`,
    );
    await s.finish();
  }, 900_000);
});
