/**
 * The 12-hour limit on a message's visibility, which every hold relies on
 * (docs/adr/0067-holds-within-the-receive-budget.md): SQS lets a visibility end at most
 * 12 hours after the receive that gave the receipt handle, and refuses a change that asks
 * past it (InvalidParameterValue); it does not trim it, so the message keeps the visibility
 * it had. moto 5.2.1 counts the 12 hours from the send (pinned deviation); MiniStack enforces
 * no limit at all (pinned deviation).
 */
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import {
  createFifoQueue,
  endpointEngine,
  receive,
  receiveCount,
  refusalOf,
  sleep,
  sqs,
} from './support.js';

const TWELVE_HOURS = 43_200;

/** A new FIFO queue with a 2 s visibility and one message sent `sentAgoMs` before its receive. */
async function receivedMessage(prefix: string, sentAgoMs = 0) {
  const { url } = await createFifoQueue(prefix, { visibilityTimeout: 2 });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: 'held',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'held',
    }),
  );
  if (sentAgoMs > 0) await sleep(sentAgoMs);
  const [message] = await receive(url, 1);
  if (message?.ReceiptHandle === undefined) throw new Error('nothing received');
  return { url, handle: message.ReceiptHandle };
}

function change(url: string, handle: string, seconds: number) {
  return sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: url,
      ReceiptHandle: handle,
      VisibilityTimeout: seconds,
    }),
  );
}

describe('SQS visibility limit', () => {
  it('refuses a visibility ending past 12 hours from the receive (ministack: accepts it, pinned deviation)', async () => {
    const { url, handle } = await receivedMessage('vislimit-refuse');
    await sleep(1_100);

    const refusal = await refusalOf(change(url, handle, TWELVE_HOURS));

    if ((await endpointEngine()) === 'ministack') expect(refusal).toBeUndefined();
    else expect(refusal).toMatch(/InvalidParameterValue/);
  });

  it('does not trim a refused visibility: the message returns after the one it had (ministack: held, pinned deviation)', async () => {
    const { url, handle } = await receivedMessage('vislimit-untrimmed');
    await sleep(1_100);

    await refusalOf(change(url, handle, TWELVE_HOURS));
    const back = await receiveCount(url, 1, 30, 4_000);

    const expected = (await endpointEngine()) === 'ministack' ? 0 : 1;
    expect(back).toHaveLength(expected);
  });

  it('accepts a visibility that ends within 12 hours of the receive, less a margin', async () => {
    const { url, handle } = await receivedMessage('vislimit-within');

    const refusal = await refusalOf(change(url, handle, TWELVE_HOURS - 60));
    const back = await receiveCount(url, 1, 30, 3_500);

    expect(refusal).toBeUndefined();
    expect(back).toEqual([]);
  });

  it('moto: counts the 12 hours from the send, refusing what AWS allows from the receive (pinned deviation)', async () => {
    // Sent 3 s before its receive: 43,197 s from the receive ends within 12 hours of it, but
    // not within 12 hours of the send.
    const { url, handle } = await receivedMessage('vislimit-send', 3_000);

    const refusal = await refusalOf(change(url, handle, TWELVE_HOURS - 3));

    if ((await endpointEngine()) === 'moto') expect(refusal).toMatch(/InvalidParameterValue/);
    else expect(refusal).toBeUndefined();
  });

  it('moto: refuses a whole batch for one entry past the limit, where AWS fails only the entry (pinned deviation)', async () => {
    const { url, handle } = await receivedMessage('vislimit-batch');
    await sleep(1_100);

    const outcome = await sqs
      .send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: url,
          Entries: [{ Id: '0', ReceiptHandle: handle, VisibilityTimeout: TWELVE_HOURS }],
        }),
      )
      .then(
        (out) => (out.Failed ?? []).map((f) => f.Code ?? '').join(',') || 'accepted',
        (err: unknown) => `thrown ${(err as Error).name}`,
      );

    const engine = await endpointEngine();
    if (engine === 'moto') expect(outcome).toMatch(/^thrown .*InvalidParameterValue/);
    else if (engine === 'ministack') expect(outcome).toBe('accepted');
    else expect(outcome).toMatch(/InvalidParameterValue/);
  });
});
