import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { runEventSourceMapping } from '../../src/local/event-source-mapping.js';
import { silentLogger } from '../../src/observability/logger.js';
import type { BatchSummary } from '../../src/worker/sqs-poller.js';
import { testClients, uniqueName } from '../helpers/aws.js';
import { eventually } from '../helpers/executor.js';

const { sqs } = testClients();
let queueUrl: string;

beforeEach(async () => {
  // A FIFO queue with a 1-second visibility timeout, so failures come back quickly.
  const out = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${uniqueName('poller')}.fifo`,
      Attributes: { FifoQueue: 'true', VisibilityTimeout: '1' },
    }),
  );
  queueUrl = out.QueueUrl ?? '';
});

async function sendBodies(bodies: string[]): Promise<void> {
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, n) => ({
        Id: String(n),
        MessageBody: body,
        MessageGroupId: body,
        MessageDeduplicationId: body,
      })),
    }),
  );
}

async function visibleBodies(): Promise<string[]> {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 2,
      VisibilityTimeout: 0,
    }),
  );
  return (out.Messages ?? []).map((m) => m.Body ?? '').sort();
}

async function approximateCount(): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(out.Attributes?.ApproximateNumberOfMessages) +
    Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

/** Runs the event source mapping until the first batch is handled, then stops it. */
async function runOneBatch(handler: (event: SQSEvent) => Promise<unknown>): Promise<{
  events: SQSEvent[];
  summary: BatchSummary;
}> {
  const controller = new AbortController();
  const events: SQSEvent[] = [];
  let summary: BatchSummary | undefined;
  const running = runEventSourceMapping({
    sqs,
    queueUrl,
    signal: controller.signal,
    logger: silentLogger,
    maximumConcurrency: 1,
    waitTimeSeconds: 1,
    handler: async (event) => {
      events.push(event);
      return handler(event);
    },
    onBatch: (s) => {
      summary ??= s;
      controller.abort();
    },
  });
  await eventually(() => summary !== undefined);
  await running;
  if (summary === undefined) throw new Error('no batch handled');
  return { events, summary };
}

describe('local event source mapping', () => {
  it('delivers a real SQSEvent with the attributes Lambda sets', async () => {
    await sendBodies(['a']);

    const { events } = await runOneBatch(async () => undefined);

    const record = events[0]?.Records[0];
    expect(record).toMatchObject({
      body: 'a',
      eventSource: 'aws:sqs',
      awsRegion: 'us-east-1',
      attributes: {
        MessageGroupId: 'a',
        MessageDeduplicationId: 'a',
        ApproximateReceiveCount: '1',
      },
    });
    expect(record?.eventSourceARN).toMatch(/^arn:aws:sqs:us-east-1:\d+:poller-.*\.fifo$/);
    expect(Number(record?.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(record?.attributes.SequenceNumber).toMatch(/^\d+$/);
  });

  it('deletes the successes and leaves reported failures to come back after the visibility timeout', async () => {
    await sendBodies(['ok-1', 'fail-1', 'ok-2']);

    const { summary } = await runOneBatch(async (event) => ({
      batchItemFailures: event.Records.filter((r) => r.body.startsWith('fail')).map((r) => ({
        itemIdentifier: r.messageId,
      })),
    }));

    expect(summary).toEqual({ received: 3, deleted: 2, failed: 1 });
    expect(await approximateCount()).toBe(1);
    await new Promise((r) => setTimeout(r, 1200));
    expect(await visibleBodies()).toEqual(['fail-1']);
  });

  it.each([
    ['an unknown message id', { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }],
    ['an empty itemIdentifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['a misspelled key', { batchItemFailures: [{ itemIdentifer: 'x' }] }],
    ['a non-object response', 42],
  ])('fails the whole batch on a malformed response: %s', async (_name, response) => {
    await sendBodies(['m-1', 'm-2']);

    const { summary } = await runOneBatch(async () => response);

    expect(summary).toMatchObject({ received: 2, deleted: 0, failed: 2 });
    expect(summary.batchError).toBeDefined();
    expect(await approximateCount()).toBe(2);
  });

  it('fails the whole batch when the handler throws', async () => {
    await sendBodies(['t-1', 't-2']);

    const { summary } = await runOneBatch(async () => {
      throw new Error('crash');
    });

    expect(summary).toEqual({
      received: 2,
      deleted: 0,
      failed: 2,
      batchError: 'handler failed: crash',
    });
    await new Promise((r) => setTimeout(r, 1200));
    expect(await visibleBodies()).toEqual(['t-1', 't-2']);
  });

  it('treats an empty response as success for every message', async () => {
    await sendBodies(['e-1', 'e-2']);

    const { summary } = await runOneBatch(async () => ({ batchItemFailures: [] }));

    expect(summary).toEqual({ received: 2, deleted: 2, failed: 0 });
    expect(await approximateCount()).toBe(0);
  });
});
