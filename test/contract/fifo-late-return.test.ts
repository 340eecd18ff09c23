/**
 * SQS FIFO: a message hidden again by ChangeMessageVisibility after its visibility had
 * expired keeps its group locked. The worker does this when a stall outlived a message's
 * visibility and its fenced write was then refused: it hands the message back with a retry
 * delay and returns the rest of the group at once (docs/adr/0007-lease-takeovers-run-alone.md).
 */
import { ChangeMessageVisibilityCommand, type Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  bodiesOf,
  createFifoQueue,
  drainInOrder,
  receive,
  receiveCount,
  sendToGroup,
  sleep,
  sqs,
} from './support.js';

function changeVisibility(url: string, message: Message | undefined, seconds: number) {
  return sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: url,
      ReceiptHandle: message?.ReceiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}

describe('SQS FIFO late hand-back', () => {
  it('hands out no later message of the group while an expired one hidden again is invisible', async () => {
    const { url } = await createFifoQueue('late-return', { visibilityTimeout: 30 });
    await sendToGroup(url, 'g', ['s0', 's1']);
    const [first, second] = await receiveCount(url, 2, 30);
    await changeVisibility(url, first, 1);
    await sleep(1_500);
    // s0 is visible again, s1 still in flight: the group stays locked.
    const whileSecondInFlight = await receive(url, 10, 30);

    // The late hand-back: s0 hidden for a retry delay, s1 returned at once. Should SQS refuse
    // to hide a message that is no longer in flight, s0 simply stays visible at the head.
    await changeVisibility(url, first, 3).catch(() => undefined);
    await changeVisibility(url, second, 0);
    const handedOut = await drainInOrder(url, 2);

    expect(bodiesOf(whileSecondInFlight)).toEqual([]);
    expect(handedOut).toEqual(['s0', 's1']);
  });
});
