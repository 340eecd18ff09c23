/**
 * (j) FIFO partial failure. A batch of 10 messages of one ordering key, where the message at
 * position k fails (k = 0…9). The processor must report k and every later message of the
 * group as failed, and none of them may overtake k: the key runs 0…k-1, k (failed), k
 * (retried), k+1…9, each exactly once.
 */
import { DeleteMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { describe, it } from 'vitest';
import { type TaskProfile, WorkMode, type WorkPayload } from './lib/fault-tasks.js';
import { receiveRecords } from './lib/messages.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';

const SIZE = 10;
const PROFILE: TaskProfile = { timeoutMs: 5000, maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 500 };

describe('FIFO partial failure', () => {
  it(`holds back the rest of the group after a failure at each position k of ${SIZE}`, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'j',
      title: '(j) FIFO partial failure at k of 10',
      description:
        'For each k = 0...9, a batch of 10 messages of one ordering key whose k-th task fails once, handed to the processor as Lambda would hand it.',
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    const starts = new Map<string, string[]>();
    const onCall = (payload: WorkPayload, run: { attempt: number }) => {
      const key = payload.key ?? '';
      starts.set(key, [...(starts.get(key) ?? []), `${payload.seq % SIZE}#${run.attempt}`]);
    };
    const worker = s.worker({ profile: PROFILE, onCall });
    const task = s.producerTask(PROFILE);
    const reported: string[] = [];
    const ids: string[] = [];

    // Act: per k, one batch of the key's 10 messages, processed as Lambda would get it.
    for (const k of range(SIZE)) {
      const key = `j-k${k}-${s.seed}`;
      const planned = range(SIZE).map((i) => ({
        id: `j-${k}-${i}`,
        orderingKey: key,
        payload: {
          seq: k * SIZE + i,
          key,
          mode: i === k ? WorkMode.FAIL_ONCE : WorkMode.OK,
          runMs: 5,
        },
      }));
      const enqueued = await enqueueAll(s.client(), task, planned, { chunk: SIZE });
      ids.push(...enqueued.ids);
      const records: SQSRecord[] = [];
      const deadline = Date.now() + 20_000;
      while (records.length < SIZE && Date.now() < deadline) {
        const batch = await receiveRecords(s.executor, 30);
        records.push(...batch.filter((r) => r.attributes.MessageGroupId === key));
      }
      const response = await worker.processBatch(records);
      const failed = response.batchItemFailures.map((f) => f.itemIdentifier);
      const expected = records.slice(k).map((r) => r.messageId);
      reported.push(
        JSON.stringify(failed) === JSON.stringify(expected) && records.length === SIZE
          ? 'ok'
          : `k=${k}: reported ${failed.length} failed, expected ${expected.length} (batch of ${records.length})`,
      );
      const done = records.filter((r) => !failed.includes(r.messageId));
      if (done.length > 0) {
        await s.executor.clients.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: s.executor.queueUrl,
            Entries: done.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
          }),
        );
      }
      // The key finishes through the poll loop before the next key starts, so that no
      // leftover of this key is in the next manual batch.
      const stop = startPolling(worker, { concurrency: 1 });
      await s.quiesce(enqueued.ids, 60_000);
      await stop();
    }

    // Assert
    const { figures } = await s.classify(allSucceed(ids));
    const orderErrors = range(SIZE).flatMap((k) => {
      const key = `j-k${k}-${s.seed}`;
      const want = [
        ...range(k).map((i) => `${i}#1`),
        `${k}#1`,
        `${k}#2`,
        ...range(SIZE - k - 1).map((i) => `${k + 1 + i}#1`),
      ];
      const got = starts.get(key) ?? [];
      return JSON.stringify(got) === JSON.stringify(want)
        ? []
        : [`k=${k}: ran ${got.join(' ')}, expected ${want.join(' ')}`];
    });
    const badReports = reported.filter((r) => r !== 'ok');
    checkCommon(s, figures);
    s.check(
      'reported',
      'batchItemFailures = positions k…9 of the batch, for every k',
      badReports.length === 0,
      badReports.join('; ') || `${SIZE}/${SIZE} batches`,
    );
    s.check(
      'order',
      'each key ran 0…k-1, k (failed), k (retried), k+1…9: nothing overtook the failure',
      orderErrors.length === 0,
      orderErrors.join('; ') || `${SIZE}/${SIZE} keys in order`,
    );
    s.check(
      'all-once',
      `${SIZE * SIZE}/${SIZE * SIZE} completed exactly once`,
      figures.exactlyOnce === SIZE * SIZE,
      `${figures.exactlyOnce}/${figures.tasks}`,
    );
    await s.finish();
  });
});
