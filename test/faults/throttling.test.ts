/**
 * (g) Throttling. 30% of the DynamoDB and SQS calls of the producer, the workers and the
 * sweeper are throttled, plus bursts where every call is. The SDK's standard retry mode
 * (Tasklane's one retry layer) retries them; what it cannot absorb fails the call, and the
 * queue's redelivery is the outer safety net.
 */
import { describe, it } from 'vitest';
import { awsClientConfig } from '../../src/aws/clients.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { type FaultPlan, faultyClients } from './lib/faults.js';
import { sleep } from './lib/random.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import {
  allSucceed,
  checkCommon,
  checkDuplicatesExplained,
  checkSucceededOrExhausted,
  Scenario,
} from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 200;
const THROTTLED = 0.3;
const PROFILE: TaskProfile = {
  timeoutMs: 10_000,
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 2000,
};

describe('throttling', () => {
  it(`completes ${TASKS} tasks with ${THROTTLED * 100}% of AWS calls throttled, plus bursts`, async () => {
    // Arrange: a seeded schedule of bursts (every call throttled for 1-1.5 s, every 8-15 s).
    const s = await Scenario.open({
      id: 'g',
      title: '(g) Throttling',
      description:
        "200 tasks. 30% of the DynamoDB and SQS calls of the producer, the workers and the sweeper are throttled, plus 1-1.5 s bursts of 100% every 8-15 s; the SDK's standard retry mode (5 attempts) retries them.",
      workerTimeoutSeconds: 2,
      maxAttempts: PROFILE.maxAttempts,
    });
    const faults = s.rng.fork('faults');
    const bursts: { start: number; end: number }[] = [];
    for (let t = s.rng.int(3000, 6000); t < 300_000; t += s.rng.int(8000, 15_000)) {
      bursts.push({ start: t, end: t + s.rng.int(1000, 1500) });
    }
    let started = Number.POSITIVE_INFINITY;
    const plan: FaultPlan = () => {
      const at = Date.now() - started;
      const inBurst = bursts.some((b) => at >= b.start && at < b.end);
      return inBurst || faults.chance(THROTTLED) ? 'throttle' : undefined;
    };
    const producer = faultyClients(plan);
    const workers = [0, 1].map(() => faultyClients(plan));
    const sweeping = faultyClients(plan);
    let pollCrashes = 0;
    const pollers = workers.map(({ clients }, n) => {
      const worker = s.worker({ profile: PROFILE }, { clients, workerId: `worker-${n}` });
      // Supervised like an ECS service: a poll loop that dies is counted and restarted.
      const stop = startPolling(worker, { onCrash: () => (pollCrashes += 1) });
      return () => stop();
    });
    const sweeper = startSweeperLoop(s.executor, {
      intervalMs: 2000,
      pendingAgeMs: 5000,
      clients: sweeping.clients,
    });
    const tasks = range(TASKS).map((seq) => ({
      id: `g-${seq}`,
      payload: { seq, mode: WorkMode.OK, runMs: s.rng.int(20, 200) },
    }));

    // Act
    started = Date.now();
    const enqueued = await enqueueAll(
      s.client({ clients: producer.clients }),
      s.producerTask(PROFILE),
      tasks,
      {
        pace: { sqs: s.executor.clients.sqs, queueUrl: s.executor.queueUrl, maxDepth: 120 },
      },
    );
    await s.quiesce(enqueued.ids, 180_000);
    await sleep(2000);
    await Promise.all(pollers.map((stop) => stop()));
    await sweeper.stop();

    // Assert
    const { figures, verdicts } = await s.classify(allSucceed(enqueued.ids));
    const stats = [producer.stats, ...workers.map((w) => w.stats), sweeping.stats];
    const sum = (f: (x: (typeof stats)[number]) => number) => stats.reduce((n, x) => n + f(x), 0);
    const maxSdkAttempts = Math.max(...stats.map((x) => x.maxAttemptsPerCall));
    const failedCalls = sum((x) => Object.values(x.failedCalls).reduce((a, b) => a + b, 0));
    s.note(
      'AWS calls',
      sum((x) => x.calls),
    );
    s.note(
      'HTTP attempts throttled',
      sum((x) => x.injected.throttle),
    );
    s.note('bursts', bursts.filter((b) => b.start < Date.now() - started).length);
    s.note('calls failed after the SDK retries', failedCalls);
    s.note('max SDK attempts per call', maxSdkAttempts);
    s.note('enqueue entries that failed (retried by the producer)', enqueued.errors);
    s.note('enqueueBatch calls rejected as a whole', enqueued.batchRejections.length);
    s.note('sweeps failed (retried next run)', sweeper.stats.errors);
    s.note('worker poll loops that crashed', pollCrashes);
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    checkSucceededOrExhausted(s, figures, verdicts);
    s.check(
      'sdk-attempts',
      `SDK attempts per call never exceed the configured maximum (${awsClientConfig().maxAttempts})`,
      maxSdkAttempts <= awsClientConfig().maxAttempts,
      maxSdkAttempts,
    );
    s.check(
      'task-attempts',
      `task attempts never exceed maxAttempts (${PROFILE.maxAttempts})`,
      figures.maxAttemptsSeen <= PROFILE.maxAttempts,
      figures.maxAttemptsSeen,
    );
    s.check(
      'batch-isolation',
      'enqueueBatch reports failures per entry, never rejecting the whole call (its documented contract)',
      enqueued.batchRejections.length === 0,
      `${enqueued.batchRejections.length} enqueueBatch calls rejected${enqueued.batchRejections.length > 0 ? ` (${enqueued.batchRejections[0]})` : ''}`,
    );
    s.check(
      'poll-alive',
      'no worker poll loop dies of a throttled call',
      pollCrashes === 0,
      pollCrashes,
    );
    await s.finish();
  });
});
