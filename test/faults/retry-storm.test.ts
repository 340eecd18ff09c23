/**
 * (h) Retry storm. Every task calls a dependency that is down for its first seconds and
 * then recovers. The failed attempts are retried with exponential backoff and full jitter,
 * so the dependency sees a bounded number of calls, spread out, and every task succeeds
 * once it is back.
 */
import { describe, it } from 'vitest';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 200;
const OUTAGE_MS = 6000;
const PROFILE: TaskProfile = {
  timeoutMs: 10_000,
  maxAttempts: 10,
  baseDelayMs: 250,
  maxDelayMs: 2000,
};

describe('retry storm', () => {
  it(`bounds the calls to a dependency that is down for ${OUTAGE_MS / 1000} s, then recovers`, async () => {
    // Arrange: the outage starts with the first call.
    const s = await Scenario.open({
      id: 'h',
      title: '(h) Retry storm',
      description:
        'A backlog of 200 tasks calls a dependency that is down for its first 6 s. maxAttempts 10, backoff from 250 ms doubling to 2 s, full jitter.',
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    let downUntil: number | undefined;
    const calls: { at: number; ok: boolean }[] = [];
    const dependency = async () => {
      downUntil ??= Date.now() + OUTAGE_MS;
      const ok = Date.now() >= downUntil;
      calls.push({ at: Date.now(), ok });
      if (!ok) throw new Error('dependency unavailable (503)');
    };
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 3000, pendingAgeMs: 10_000 });
    const tasks = range(TASKS).map((seq) => ({
      id: `h-${seq}`,
      payload: { seq, mode: WorkMode.DEPENDENCY, runMs: s.rng.int(10, 50) },
    }));

    // Act: the backlog is waiting when the workers start, so it all hits the outage.
    const { ids } = await enqueueAll(s.client(), s.producerTask(PROFILE), tasks, { chunk: 100 });
    const stops = [0, 1].map((n) =>
      startPolling(s.worker({ profile: PROFILE, dependency }, { workerId: `worker-${n}` })),
    );
    await s.quiesce(ids, 120_000);
    await Promise.all(stops.map((stop) => stop()));
    await sweeper.stop();

    // Assert
    const { figures } = await s.classify(allSucceed(ids));
    const failed = calls.filter((c) => !c.ok);
    const perSecond = new Map<number, number>();
    for (const c of failed) {
      const second = Math.floor((c.at - (calls[0]?.at ?? 0)) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    const bound = PROFILE.maxAttempts * TASKS;
    s.note('outage', `${OUTAGE_MS / 1000} s`);
    s.note('dependency calls during the outage', failed.length);
    s.note(
      'failed calls per second of outage',
      [...perSecond].map(([second, n]) => `${second} s: ${n}`).join(', '),
    );
    s.note('dependency calls after recovery', calls.length - failed.length);
    s.note('retries (handler calls beyond one per task)', figures.handlerCalls - TASKS);
    checkCommon(s, figures);
    s.check(
      'calls-bounded',
      `handler calls ≤ (1 + retries) × tasks = ${PROFILE.maxAttempts} × ${TASKS}`,
      figures.handlerCalls <= bound,
      `${figures.handlerCalls} ≤ ${bound}`,
    );
    s.check(
      'all-once',
      `${TASKS}/${TASKS} SUCCEEDED exactly once after the recovery`,
      figures.exactlyOnce === TASKS,
      `${figures.exactlyOnce}/${figures.tasks}`,
    );
    await s.finish();
  });
});
