/**
 * SQS FIFO: a message group is handed out strictly in order, one batch at a time. Tasklane's
 * per-key ordering rests on this (docs/adr/0001-fifo-queues.md).
 */
import { ChangeMessageVisibilityBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  bodiesOf,
  createFifoQueue,
  deleteMessage,
  drainInOrder,
  receive,
  receiveCount,
  sendToGroup,
  sleep,
  sqs,
} from './support.js';

const bodies = (prefix: string) => [0, 1, 2, 3, 4].map((n) => `${prefix}${n}`);

describe('SQS FIFO group blocking', () => {
  it('hands out no message of a group while an earlier one is in flight', async () => {
    const { url } = await createFifoQueue('blocking', { visibilityTimeout: 30 });
    await sendToGroup(url, 'a', ['a0', 'a1']);
    await sendToGroup(url, 'b', ['b0']);
    const [first] = await receive(url, 1);

    const others = await receiveCount(url, 2, 30, 1_500);

    expect(first?.Body).toBe('a0');
    expect(bodiesOf(others)).toEqual(['b0']);
  });

  it('hands out the next message of the group once the earlier one is deleted', async () => {
    const { url } = await createFifoQueue('unblocking', { visibilityTimeout: 30 });
    await sendToGroup(url, 'a', ['a0', 'a1']);
    const [first] = await receive(url, 1);
    if (!first) throw new Error('a0 was not received');

    await deleteMessage(url, first);
    const [next] = await receiveCount(url, 1, 30);

    expect(next?.Body).toBe('a1');
  });
});

describe('SQS FIFO redelivery order', () => {
  it('redelivers a whole in-flight group from its first message after visibility expiry', async () => {
    const { url } = await createFifoQueue('expiry', { visibilityTimeout: 1 });
    await sendToGroup(url, 'g', bodies('m'));
    const taken = await receiveCount(url, 5, 1);
    expect(bodiesOf(taken)).toEqual(bodies('m'));
    await sleep(1_500);

    const redelivered = await drainInOrder(url, 5);

    expect(redelivered).toEqual(bodies('m'));
  });

  it('redelivers the failed rest of a batch in order after some were deleted', async () => {
    // A Lambda partial batch failure: the successes are deleted, the failures are left to expire.
    const { url } = await createFifoQueue('partial', { visibilityTimeout: 1 });
    await sendToGroup(url, 'g', bodies('n'));
    const taken = await receiveCount(url, 5, 1);
    await deleteMessage(url, taken[0] ?? {});
    await deleteMessage(url, taken[1] ?? {});
    await sleep(1_500);

    const redelivered = await drainInOrder(url, 3);

    expect(redelivered).toEqual(['n2', 'n3', 'n4']);
  });

  it('keeps the group blocked behind a failed message whose followers were returned at once', async () => {
    // The worker's partial failure: the failed message keeps its visibility, the messages held
    // back behind it are returned with ChangeMessageVisibility 0.
    const { url } = await createFifoQueue('returned', { visibilityTimeout: 2 });
    await sendToGroup(url, 'g', bodies('k'));
    const taken = await receiveCount(url, 5, 2);
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: taken.slice(1).map((m, n) => ({
          Id: String(n),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );

    const whileInFlight = await receive(url, 10, 30);
    await sleep(2_500);
    const afterExpiry = await drainInOrder(url, 5);

    expect(bodiesOf(whileInFlight)).toEqual([]);
    expect(afterExpiry).toEqual(bodies('k'));
  });

  it('redelivers in order when a whole batch is returned with ChangeMessageVisibility 0', async () => {
    const { url } = await createFifoQueue('cmv-zero', { visibilityTimeout: 30 });
    await sendToGroup(url, 'g', bodies('c'));
    const taken = await receiveCount(url, 5, 30);
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        // Last first, to show that the order of the returns does not matter.
        Entries: [...taken].reverse().map((m, n) => ({
          Id: String(n),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );

    const redelivered = await drainInOrder(url, 5);

    expect(redelivered).toEqual(bodies('c'));
  });
});
