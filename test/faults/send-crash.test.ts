/**
 * (b) Crash between write and send. The producer writes the task record, then its
 * SendMessage / SendMessageBatch fails: either before the request left (nothing was sent)
 * or after SQS accepted it (the response was lost, so the record is never marked sent).
 * Either way the task sits PENDING in the outbox, and the sweeper must recover it.
 */
import { describe, it } from 'vitest';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { faultyClients } from './lib/faults.js';
import { range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 200;
const PROFILE: TaskProfile = {
  timeoutMs: 20_000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2000,
};

describe('crash between write and send', () => {
  it(`recovers all ${TASKS} tasks whose send failed after the record was written`, async () => {
    // Arrange: every send of the producer fails, half before and half after reaching SQS.
    const s = await Scenario.open({
      id: 'b',
      title: '(b) Crash between write and send',
      description:
        '200 enqueues whose SendMessage / SendMessageBatch fails after the record was written: before reaching SQS, or after SQS accepted it (the response is lost). The sweeper must send them.',
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    const faults = s.rng.fork('faults');
    const producer = faultyClients((service, command) => {
      if (service !== 'sqs' || !command.startsWith('SendMessage')) return undefined;
      return faults.chance(0.5) ? 'crash-before' : 'crash-after';
    });
    const client = s.client({ clients: producer.clients });
    const task = s.producerTask(PROFILE);
    const stop = startPolling(s.worker({ profile: PROFILE }));
    const payload = (seq: number) => ({ seq, mode: WorkMode.OK, runMs: s.rng.int(10, 100) });

    // Act: half through enqueue (SendMessage), half through enqueueBatch (SendMessageBatch).
    const results: { id: string; sent: boolean }[] = [];
    for (const seq of range(TASKS / 2)) {
      const r = await client.enqueue(task, payload(seq), { id: `b-single-${seq}` });
      results.push({ id: r.id, sent: r.sent });
    }
    for (let i = 0; i < TASKS / 2; i += 10) {
      const batch = await client.enqueueBatch(
        range(10).map((n) => ({
          task,
          payload: payload(TASKS / 2 + i + n),
          options: { id: `b-batch-${i + n}` },
        })),
      );
      for (const r of batch) if (r.ok) results.push({ id: r.id, sent: r.sent });
    }
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 2000, pendingAgeMs: 3000 });
    const ids = results.map((r) => r.id);
    await s.quiesce(ids, 120_000);
    await sweeper.stop();
    await stop();

    // Assert
    const { figures } = await s.classify(allSucceed(ids));
    const unsent = results.filter((r) => !r.sent).length;
    s.note('enqueues that returned sent: false', unsent);
    s.note(
      'SendMessage(Batch) calls failed before reaching SQS',
      producer.stats.injected['crash-before'],
    );
    s.note(
      'SendMessage(Batch) calls accepted by SQS, response lost',
      producer.stats.injected['crash-after'],
    );
    s.note('outbox sends by the sweeper', sweeper.stats.sent);
    checkCommon(s, figures);
    s.check('faulted', `all ${TASKS} enqueues returned sent: false`, unsent === TASKS, unsent);
    s.check(
      'recovered',
      `${TASKS}/${TASKS} recovered (succeeded exactly once)`,
      figures.exactlyOnce === TASKS && figures.tasks === TASKS,
      `${figures.exactlyOnce}/${figures.tasks}`,
    );
    s.check(
      'no-duplicates',
      'duplicated side effects = 0',
      figures.duplicatedEffects === 0,
      figures.duplicatedEffects,
    );
    await s.finish();
  });
});
