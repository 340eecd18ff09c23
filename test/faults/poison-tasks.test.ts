/**
 * (i) Poison. 10 poison tasks hide among 1,000: some throw on every attempt, some throw a
 * PermanentError, some hang past their timeout ignoring their signal, and some crash the
 * worker process with an uncaught exception. Each must end DEAD within its attempts, and
 * the 990 others must succeed although the crashes take their batches down with them.
 */
import { describe, it } from 'vitest';
import type { Expectation } from './lib/classify.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { enqueueAll, range } from './lib/run.js';
import { checkCommon, checkDuplicatesExplained, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 1000;
const POISON: readonly WorkMode[] = [
  WorkMode.THROW,
  WorkMode.THROW,
  WorkMode.THROW,
  WorkMode.PERMANENT,
  WorkMode.PERMANENT,
  WorkMode.HANG,
  WorkMode.HANG,
  WorkMode.CRASH,
  WorkMode.CRASH,
  WorkMode.CRASH,
];
const PROFILE: TaskProfile = {
  timeoutMs: 3000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 1000,
};

describe('poison', () => {
  it(`kills ${POISON.length} poison tasks and completes the ${TASKS - POISON.length} others`, async () => {
    // Arrange: poison at seeded positions.
    const s = await Scenario.open({
      id: 'i',
      title: '(i) Poison',
      description:
        '10 poison tasks among 1,000 on 3 worker processes: 3 always throw, 2 throw PermanentError, 2 hang past their timeout ignoring their signal, 3 crash the process.',
      workerTimeoutSeconds: 1,
      maxAttempts: PROFILE.maxAttempts,
    });
    const positions = new Map<number, WorkMode>();
    for (const mode of POISON) {
      let at = s.rng.int(0, TASKS - 1);
      while (positions.has(at)) at = s.rng.int(0, TASKS - 1);
      positions.set(at, mode);
    }
    const tasks = range(TASKS).map((seq) => ({
      id: `i-${seq}`,
      payload: { seq, mode: positions.get(seq) ?? WorkMode.OK, runMs: s.rng.int(20, 200) },
    }));
    const fleet = s.fleet(PROFILE, {
      leaseGraceMs: 500,
      leaseDurationMs: 3000,
      concurrency: 1,
      batchSize: 10,
      waitTimeSeconds: 1,
    });
    fleet.start(3);
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 8000, pendingAgeMs: 5000 });

    // Act
    const { sqs } = s.executor.clients;
    const { ids } = await enqueueAll(s.client(), s.producerTask(PROFILE), tasks, {
      pace: { sqs, queueUrl: s.executor.queueUrl, maxDepth: 120 },
    });
    await s.quiesce(ids, 180_000);
    await sweeper.stop();
    await fleet.stopAll();

    // Assert
    const poisonIds = new Set([...positions.keys()].map((seq) => `i-${seq}`));
    const expected = new Map<string, Expectation>(
      ids.map((id) => [
        id,
        poisonIds.has(id) ? { status: 'DEAD', effects: 0 } : { status: 'SUCCEEDED', effects: 1 },
      ]),
    );
    const { figures, verdicts } = await s.classify(expected);
    const poison = verdicts.filter((v) => poisonIds.has(v.id));
    const others = verdicts.filter((v) => !poisonIds.has(v.id));
    const deadPoison = poison.filter((v) => v.status === 'DEAD').length;
    const succeeded = others.filter((v) => v.status === 'SUCCEEDED').length;
    const poisonCalls = poison.reduce((n, v) => n + v.calls, 0);
    s.note('poison modes', POISON.join(', '));
    s.note('worker crashes (poison)', fleet.crashes);
    s.note('handler calls of poison tasks', poisonCalls);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    s.check(
      'poison-dead',
      `${POISON.length}/${POISON.length} poison tasks DEAD`,
      deadPoison === POISON.length,
      `${deadPoison}/${poison.length}`,
    );
    s.check(
      'others-succeeded',
      `${TASKS - POISON.length}/${TASKS - POISON.length} other tasks SUCCEEDED`,
      succeeded === TASKS - POISON.length,
      `${succeeded}/${others.length}`,
    );
    s.check(
      'poison-bounded',
      `poison handler calls ≤ maxAttempts each (${PROFILE.maxAttempts})`,
      poison.every((v) => v.calls <= PROFILE.maxAttempts),
      poison.map((v) => v.calls).join(', '),
    );
    await s.finish();
  });
});
