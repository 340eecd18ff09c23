/**
 * SQS FIFO deduplication and dead-letter redrive: a producer's retried send never makes a
 * second message, and a message received too often lands in the DLQ intact
 * (docs/adr/0003-outbox-and-sweeper.md, docs/adr/0001-fifo-queues.md).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  bodiesOf,
  createFifoQueue,
  deleteMessage,
  receive,
  receiveCount,
  sleep,
  sqs,
} from './support.js';

async function send(url: string, body: string, dedupId: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      MessageGroupId: 'g',
      MessageDeduplicationId: dedupId,
    }),
  );
}

describe('SQS FIFO deduplication', () => {
  it('accepts a second send with the same deduplication id but delivers one message', async () => {
    const { url } = await createFifoQueue('dedup', { visibilityTimeout: 30 });

    await send(url, 'first', 'task-1#0');
    await send(url, 'retried', 'task-1#0');
    await send(url, 'next generation', 'task-1#1');
    const received = await receiveCount(url, 3, 30, 1_500);

    expect(bodiesOf(received)).toEqual(['first', 'next generation']);
  });

  it('drops a resend within 5 minutes even after the first message was deleted', async () => {
    const { url } = await createFifoQueue('dedup-deleted', { visibilityTimeout: 30 });
    await send(url, 'first', 'task-2#0');
    const [first] = await receiveCount(url, 1, 30);
    await deleteMessage(url, first ?? {});

    await send(url, 'resent', 'task-2#0');
    const received = await receiveCount(url, 1, 30, 1_500);

    expect(bodiesOf(received)).toEqual([]);
  });
});

describe('SQS redrive to the dead-letter queue', () => {
  it('moves a message after maxReceiveCount receives, keeping its body and group', async () => {
    const dlq = await createFifoQueue('dlq', { visibilityTimeout: 30 });
    const { url } = await createFifoQueue('work', {
      visibilityTimeout: 1,
      redrive: { deadLetterTargetArn: dlq.arn, maxReceiveCount: 2 },
    });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: '{"taskId":"t-1"}',
        MessageGroupId: 'key-1',
        MessageDeduplicationId: 't-1#0',
      }),
    );

    // Receive and never delete, until the message shows up in the DLQ.
    let receives = 0;
    let dead: Awaited<ReturnType<typeof receive>> = [];
    const deadline = Date.now() + 15_000;
    while (dead.length === 0 && Date.now() < deadline) {
      receives += (await receive(url, 1)).length;
      dead = await receive(dlq.url, 1);
      if (dead.length === 0) await sleep(200);
    }

    expect(receives).toBe(2);
    expect(dead[0]?.Body).toBe('{"taskId":"t-1"}');
    expect(dead[0]?.Attributes?.MessageGroupId).toBe('key-1');
  });
});
