/**
 * (d) Duplicate delivery. SQS delivers at least once, and replays happen: every task's
 * message is delivered 2–3 times: copies in its own group (queued behind the original, and
 * sometimes long after the task finished), and deliveries straight to another worker while
 * the original is in flight. The handler must run once.
 */
import { describe, it } from 'vitest';
import { AuditEvent } from '../../src/core/constants.js';
import type { Worker } from '../../src/worker/create-worker.js';
import { recordingLogger } from '../helpers/executor.js';
import { FAULT_TASK_TYPE, type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { duplicateOf, type RawMessage, sendRaw, syntheticDelivery } from './lib/messages.js';
import { sleep } from './lib/random.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 500;
// A generous timeout: this scenario is about deliveries, not slow handlers.
const PROFILE: TaskProfile = {
  timeoutMs: 20_000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2000,
};

describe('duplicate delivery', () => {
  it(`runs each of ${TASKS} tasks once although each is delivered 2-3 times`, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'd',
      title: '(d) Duplicate delivery',
      description:
        '500 tasks. SQS delivers every message a second time (in another group), and half of them a third time: later (a replay, in its own or another group) or straight to the other worker while the task runs.',
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    const logger = recordingLogger();
    // Each task is delivered once more by SQS, and half of them a third time: later through
    // SQS (in its own or another group), or straight to the other worker while it runs.
    const third = new Map<string, 'none' | 'later' | 'in-flight'>();
    const racing: Promise<unknown>[] = [];
    const workers: Worker[] = [];
    for (const n of [0, 1]) {
      const onCall = (_payload: unknown, run: { taskId: string; attempt: number }) => {
        if (run.attempt !== 1 || third.get(run.taskId) !== 'in-flight') return;
        third.set(run.taskId, 'none');
        const delivery = syntheticDelivery(s.executor, run.taskId, FAULT_TASK_TYPE);
        racing.push((workers[1 - n] as Worker).processBatch([delivery]));
      };
      workers.push(s.worker({ profile: PROFILE, onCall }, { logger, workerId: `worker-${n}` }));
    }
    const stops = workers.map((w) => startPolling(w));
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 5000, pendingAgeMs: 10_000 });
    const task = s.producerTask(PROFILE);
    const tasks = range(TASKS).map((seq) => ({
      id: `d-${seq}`,
      payload: { seq, mode: WorkMode.OK, runMs: s.rng.int(10, 150) },
    }));
    for (const { id } of tasks) {
      third.set(id, s.rng.chance(0.5) ? 'none' : s.rng.pick(['later', 'in-flight']));
    }
    const { sqs } = s.executor.clients;
    const { queueUrl } = s.executor;
    let copies = 0;
    let late: RawMessage[] = [];

    // Act: a chunk's copies go out right after it; later copies one chunk later, when the
    // task has often finished already (a replay).
    const enqueued = await enqueueAll(s.client(), task, tasks, {
      pace: { sqs, queueUrl, maxDepth: 120 },
      afterChunk: async (ids) => {
        const records = await Promise.all(ids.map((id) => s.executor.store.get(id)));
        const now: RawMessage[] = [];
        const next: RawMessage[] = [];
        for (const record of records) {
          if (record === undefined) continue;
          now.push(duplicateOf(record, 1));
          const plan = third.get(record.id);
          if (plan === 'later') {
            next.push(duplicateOf(record, 2));
          }
        }
        await sendRaw(sqs, queueUrl, [...now, ...late]);
        copies += now.length + late.length;
        late = next;
      },
    });
    await sendRaw(sqs, queueUrl, late);
    copies += late.length;
    await s.quiesce(enqueued.ids, 120_000);
    await Promise.all(racing);
    // Let the last copies drain before stopping, so that every delivery is observed.
    await sleep(3000);
    await Promise.all(stops.map((stop) => stop()));
    await sweeper.stop();

    // Assert
    const { figures } = await s.classify(allSucceed(enqueued.ids));
    const dropped = logger.lines.filter(
      (l) => l.attributes.event === AuditEvent.DUPLICATE_DROPPED,
    ).length;
    const deferred = logger.lines.filter((l) => l.message === 'message deferred').length;
    s.note(
      'deliveries',
      `${enqueued.ids.length + copies + racing.length} (${copies} SQS copies, ${racing.length} straight to the other worker during the run)`,
    );
    s.note('duplicates deferred while the task ran', deferred);
    s.note('duplicate-dropped audit events', dropped);
    checkCommon(s, figures);
    s.check(
      'no-duplicates',
      'duplicated side effects = 0',
      figures.duplicatedEffects === 0,
      figures.duplicatedEffects,
    );
    s.check(
      'all-once',
      `${TASKS}/${TASKS} completed exactly once`,
      figures.exactlyOnce === TASKS,
      `${figures.exactlyOnce}/${figures.tasks}`,
    );
    await s.finish();
  });
});
