/**
 * SQS: only the receipt handle of a message's most recent receive deletes it. A worker that
 * stalled past its message's visibility holds an older handle once another receive has taken
 * the message; whatever it does with that handle must not remove the newer delivery
 * (docs/adr/0007-lease-takeovers-run-alone.md).
 */
import { describe, expect, it } from 'vitest';
import {
  bodiesOf,
  deleteMessage,
  endpointEngine,
  receive,
  receiveCount,
  refusalOf,
  sleep,
  staleReceipt,
} from './support.js';

describe('SQS DeleteMessage with a stale receipt handle', () => {
  it('succeeds but leaves a message that has been received again since (ministack: refuses it, pinned deviation)', async () => {
    const { url, first } = await staleReceipt('stale');
    const [second] = await receiveCount(url, 1, 2);
    expect(second?.Body).toBe('once');

    // "The request succeeds, but the message will not be deleted" (DeleteMessage reference).
    const refusal = await refusalOf(deleteMessage(url, first ?? {}));
    await sleep(2_500);
    const afterwards = await receive(url, 1);

    // MiniStack 1.5.33 refuses the stale handle instead; the message stays either way, which
    // is what the worker relies on (a refused batch entry is left to come back).
    const expected =
      (await endpointEngine()) === 'ministack' ? 'ReceiptHandleIsInvalid' : undefined;
    expect(refusal).toBe(expected);
    expect(bodiesOf(afterwards)).toEqual(['once']);
  });
});
