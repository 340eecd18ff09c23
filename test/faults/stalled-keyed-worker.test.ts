/**
 * (n) A stalled worker loses its lease on a keyed task. A worker process is frozen (SIGSTOP:
 * a long GC pause, throttled heartbeats) while it runs a task with an ordering key, until
 * the lease has expired and the sweeper has requeued the task and sent it again (the new
 * message joins the tail of the key's message group). Then it resumes (SIGCONT): its
 * heartbeat learns of the lost lease, its fenced write is refused, and the original message
 * must go back to the head of its group rather than be acknowledged, so that the next task
 * of the key does not run before the retry. Repeated several times; per-key order is judged
 * from the handlers' own start and end times (lib/order.ts).
 */
import { describe, it } from 'vitest';
import { leaseLosses } from './lib/classify.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { checkOrder } from './lib/order.js';
import { sleep } from './lib/random.js';
import { readRecords } from './lib/records.js';
import { enqueueAll, eventuallyTrue, type PlannedTask, range } from './lib/run.js';
import {
  allSucceed,
  checkCommon,
  checkDuplicatesExplained,
  checkSucceededOrExhausted,
  Scenario,
} from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const KEYS = 6;
const PER_KEY = 20;
const STALLS = 5;
const STALL_MS = 6000;
const PROFILE: TaskProfile = {
  timeoutMs: 4000,
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 1000,
};

describe('stalled worker with ordering keys', () => {
  it(`keeps per-key order while a worker stalls ${STALLS} times past its lease`, async () => {
    // Arrange: a worker that will be frozen and a healthy one, over keyed tasks only.
    const s = await Scenario.open({
      id: 'n',
      title: '(n) Stalled worker, ordering keys',
      description: `${KEYS} ordering keys × ${PER_KEY} tasks, two worker processes. One is SIGSTOPped ${STALLS} times for ${STALL_MS / 1000} s while it runs a keyed task: past its 2 s lease (heartbeat every 0.67 s), within the 12 s message visibility, so the sweeper (every 1 s) requeues and re-sends the task before the frozen worker resumes. Per-key order is judged from the handlers' own start and end times.`,
      workerTimeoutSeconds: 2,
      maxAttempts: PROFILE.maxAttempts,
    });
    const settings = {
      leaseGraceMs: 500,
      leaseDurationMs: 2000,
      concurrency: 1,
      // Small batches, so that neither worker holds every key's messages at once.
      batchSize: 3,
      waitTimeSeconds: 1,
    };
    const victim = s.fleet(PROFILE, settings, 'victim');
    const healthy = s.fleet(PROFILE, settings, 'healthy');
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 1000, pendingAgeMs: 2000 });
    const tasks: PlannedTask[] = range(KEYS * PER_KEY).map((seq) => {
      const key = `key-${seq % KEYS}`;
      return {
        id: `n-${seq}`,
        payload: { seq, mode: WorkMode.OK, runMs: s.rng.int(800, 1500), key },
        orderingKey: key,
      };
    });
    const enqueued = await enqueueAll(s.client(), s.producerTask(PROFILE), tasks);
    victim.start(1);
    healthy.start(1);
    // Handlers the victim has started and not ended, from its own reports (no reads).
    const runningOnVictim = () => {
      const ended = new Set(s.calls.ends.map((e) => `${e.taskId}#${e.attempt}#${e.workerId}`));
      return s.calls.entries
        .filter((c) => c.workerId.startsWith('victim'))
        .filter((c) => !ended.has(`${c.taskId}#${c.attempt}#${c.workerId}`))
        .map((c) => c.taskId);
    };

    // Act: freeze the victim while it runs a keyed task, past its lease; then resume it.
    // A stall counts once a task the victim was running has lost its lease (a task whose
    // final write was already on the wire when the process froze may not have).
    const stalls: string[][] = [];
    const effective = async () => {
      const held = [...new Set(stalls.flat())];
      const records = await readRecords(s.executor, held);
      return stalls.filter((ids) =>
        ids.some((id) => leaseLosses(records.get(id)?.history ?? []).lost > 0),
      ).length;
    };
    const giveUpAt = Date.now() + 180_000;
    while ((await effective()) < STALLS && Date.now() < giveUpAt) {
      const running = await eventuallyTrue(
        () => runningOnVictim().length > 0,
        Math.max(0, giveUpAt - Date.now()),
      ).then(
        () => true,
        (err: unknown) => {
          console.log(`[faults] (n) no task running on the victim to stall: ${String(err)}`);
          return false;
        },
      );
      if (!running) break;
      victim.workers[0]?.signal('SIGSTOP');
      stalls.push(runningOnVictim());
      await sleep(STALL_MS);
      victim.workers[0]?.signal('SIGCONT');
      await sleep(s.rng.int(1000, 2500));
    }
    const stalled = [...new Set(stalls.flat())];
    const stallsThatTookLeases = await effective();
    await s.quiesce(enqueued.ids, 120_000);
    await sweeper.stop();
    await Promise.all([victim.stopAll(), healthy.stopAll()]);

    // Assert
    const { figures, verdicts } = await s.classify(allSucceed(enqueued.ids));
    const stalledLost = verdicts.filter((v) => stalled.includes(v.id) && v.lostLeases > 0).length;
    s.note(
      'handler calls on the stalled worker',
      s.calls.entries.filter((c) => c.workerId.startsWith('victim')).length,
    );
    s.note('stalls (SIGSTOP while a keyed task ran)', stalls.length);
    s.note('tasks running on the worker when it froze', stalled.length);
    s.note('of which lost their lease', stalledLost);
    s.note('sweeper requeues', sweeper.stats.requeued);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    checkSucceededOrExhausted(s, figures, verdicts);
    s.check(
      'stalls',
      `${STALLS} stalls made a running keyed task lose its lease`,
      stallsThatTookLeases >= STALLS,
      `${stallsThatTookLeases} of ${stalls.length} stalls`,
    );
    const keyed = enqueued.ids.map((id) => ({ id, key: `key-${Number(id.slice(2)) % KEYS}` }));
    await checkOrder(s, keyed);
    await s.finish();
  });
});
