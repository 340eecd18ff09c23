/**
 * (o) Short queue retention, long retries. A retry reuses the task's first message, and SQS
 * counts retention from that message's first send: a retry delay that ends past the
 * retention finds no message, and the task, QUEUED, would wait forever. The sweeper must
 * notice QUEUED tasks whose turn is long overdue and send them again under a new
 * generation. Here the queue keeps messages 60 s (SQS's minimum) and the first retry's
 * delay is drawn up to 80 s, so about a quarter of the retries outlive their message.
 */
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { describe, it } from 'vitest';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 40;
const RETENTION_SECONDS = 60;
/** Full jitter: the first retry waits a uniform 0–80 s. */
const PROFILE: TaskProfile = {
  timeoutMs: 5000,
  maxAttempts: 3,
  baseDelayMs: 80_000,
  maxDelayMs: 80_000,
};
const OVERDUE_MS = 10_000;

describe('short retention, long retries', () => {
  it(`strands nothing when ${TASKS} retries outlive a ${RETENTION_SECONDS} s retention`, async () => {
    // Arrange: every task fails its first attempt, then succeeds.
    const s = await Scenario.open({
      id: 'o',
      title: '(o) Short retention, long retries',
      description: `${TASKS} tasks fail their first attempt; the retry waits a uniform 0–80 s (full jitter) on a queue whose MessageRetentionPeriod is ${RETENTION_SECONDS} s, so retries due after the retention find their message gone. The sweeper (every 2 s) sends a QUEUED task again once it is ${OVERDUE_MS / 1000} s overdue.`,
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    await s.executor.clients.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: s.executor.queueUrl,
        Attributes: { MessageRetentionPeriod: String(RETENTION_SECONDS) },
      }),
    );
    const worker = s.worker({ profile: PROFILE });
    const stop = startPolling(worker, { concurrency: 2, batchSize: 10 });
    const sweeper = startSweeperLoop(s.executor, {
      intervalMs: 2000,
      pendingAgeMs: 2000,
      queuedOverdueMs: OVERDUE_MS,
    });
    const tasks = range(TASKS).map((seq) => ({
      id: `o-${seq}`,
      payload: { seq, mode: WorkMode.FAIL_ONCE, runMs: s.rng.int(20, 200) },
    }));

    // Act
    const enqueued = await enqueueAll(s.client(), s.producerTask(PROFILE), tasks);
    await s.quiesce(enqueued.ids, 150_000);
    await sweeper.stop();
    await stop();

    // Assert
    const { figures } = await s.classify(allSucceed(enqueued.ids));
    // A retry that came after the retention: its second call is over 60 s after the first.
    const firstCall = new Map<string, number>();
    let late = 0;
    for (const call of s.calls.entries) {
      const first = firstCall.get(call.taskId);
      if (first === undefined) firstCall.set(call.taskId, call.at);
      else if (call.attempt === 2 && call.at - first > RETENTION_SECONDS * 1000) late += 1;
    }
    s.note("retries run after their message's retention", late);
    s.note('overdue QUEUED tasks sent again by the sweeper', sweeper.stats.resent);
    checkCommon(s, figures);
    s.check(
      'succeeded',
      'every task SUCCEEDED exactly once (none stranded QUEUED)',
      figures.exactlyOnce === figures.tasks && figures.tasks === TASKS,
      `${figures.exactlyOnce} of ${figures.tasks}`,
    );
    s.check(
      'exercised',
      'some retries outlived their message and were sent again by the sweeper',
      late > 0 && sweeper.stats.resent > 0,
      `${late} late retries, ${sweeper.stats.resent} re-sent`,
    );
    await s.finish();
  });
});
