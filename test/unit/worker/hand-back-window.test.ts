/**
 * The hand-back window of the VisibilityController
 * (docs/adr/0067-holds-within-the-receive-budget.md, "The hand-back window"): early changes
 * wait for those decided after them, within the quiet gap and the window, and each delay is
 * counted from its decision. The SQS client is a recorder: only what the controller asks is
 * checked (test/integration/hand-back-window.test.ts runs it against the emulator).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSqs } from '../../../src/aws/sdk.js';
import { silentLogger } from '../../../src/observability/logger.js';
import {
  HAND_BACK_QUIET_MS,
  HAND_BACK_WINDOW_MS,
  type VisibilityChange,
  VisibilityController,
} from '../../../src/worker/visibility.js';

const ARN = 'arn:aws:sqs:us-east-1:000000000000:q.fifo';
const URL = 'http://sqs.local/000000000000/q.fifo';

interface Entry {
  readonly ReceiptHandle: string;
  readonly VisibilityTimeout: number;
}

/** A controller whose SQS client records each batch's entries and answers at once. */
function recording() {
  const requests: Entry[][] = [];
  const sentAt: number[] = [];
  const sqs = {
    send: async (command: { input: { Entries?: Entry[] } }) => {
      requests.push(command.input.Entries ?? []);
      sentAt.push(Date.now());
      return {};
    },
  } as unknown as SQSClient;
  const controller = new VisibilityController(sqs, silentLogger, URL, ARN);
  return { controller, requests, sentAt };
}

const change = (n: number, delayMs: number, decidedAt = Date.now()): VisibilityChange => ({
  receiptHandle: `rh-${n}`,
  eventSourceARN: ARN,
  seconds: Math.ceil(delayMs / 1000),
  delayMs,
  decidedAt,
});

/** Lets the timers due within `ms` fire, and the requests they start be recorded. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  for (let n = 0; n < 5; n++) await new Promise((resolve) => setImmediate(resolve));
}

beforeAll(async () => {
  // The SDK's module is loaded on first use: loaded here, a request is only microtasks away.
  await loadSqs();
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the hand-back window', () => {
  it('sends changes decided less than the quiet gap apart in one request', async () => {
    const { controller, requests } = recording();
    for (let n = 0; n < 5; n++) {
      controller.handBack(change(n, 5_000));
      await advance(HAND_BACK_QUIET_MS - 50);
    }
    expect(requests).toHaveLength(0);
    await advance(50);
    expect(requests.map((r) => r.length)).toEqual([5]);
  });

  it('sends them no later than the window after the first, however they keep coming', async () => {
    const { controller, requests, sentAt } = recording();
    const started = Date.now();
    let n = 0;
    while (requests.length === 0 && n < 9) {
      controller.handBack(change(n++, 5_000));
      await advance(HAND_BACK_QUIET_MS - 50);
    }
    expect(requests.map((r) => r.length)).toEqual([8]);
    expect((sentAt[0] ?? 0) - started).toBe(HAND_BACK_WINDOW_MS);
  });

  it('sends at once when 10 wait, and the rest with the batch end in the same request', async () => {
    const { controller, requests } = recording();
    for (let n = 0; n < 10; n++) controller.handBack(change(n, 5_000));
    await advance(0);
    expect(requests.map((r) => r.length)).toEqual([10]);
    controller.handBack(change(10, 5_000));
    await controller.applyAll([{ receiptHandle: 'rh-held', eventSourceARN: ARN, seconds: 0 }]);
    expect(requests.map((r) => r.length)).toEqual([10, 2]);
  });

  it('takes the time waited off the visibility, rounding up, never below 1 s', async () => {
    const { controller, requests } = recording();
    controller.handBack(change(0, 2_300));
    controller.handBack(change(1, 1_000));
    controller.handBack(change(2, 3_000));
    await advance(400);
    // 2.3 s less 0.15 s waited: 2.15 s, two whole seconds would show it early: 3 s. 1 s less
    // 0.15 s: 1 s. 3 s less 0.15 s: 3 s (never before its delay).
    expect(requests[0]?.map((e) => e.VisibilityTimeout)).toEqual([3, 1, 3]);
    controller.handBack(change(3, 2_300, Date.now() - 400));
    await advance(HAND_BACK_QUIET_MS);
    // Decided 0.4 s before it was handed back and 0.15 s waiting: 1.75 s left, 2 s asked.
    expect(requests[1]?.map((e) => e.VisibilityTimeout)).toEqual([2]);
  });
});
