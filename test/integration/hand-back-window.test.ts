/**
 * The hand-back window (docs/adr/0067-holds-within-the-receive-budget.md, "The hand-back
 * window"): the retries of one batch, decided within the window of each other, are handed back
 * in one ChangeMessageVisibilityBatch, not in several small ones, and each retry still starts
 * no earlier than its delay and no later than its delay, the window and a little slack.
 */
import type { SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { HAND_BACK_WINDOW_MS } from '../../src/worker/visibility.js';
import { testClients } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const TASKS = 10;
/**
 * SQS's whole seconds (a delay is rounded up to them) and the receive loop's latency, which
 * grows on a loaded machine (CI runs this file beside others on 2 cores).
 */
const SLACK_MS = 1_000 + 4_000;

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** An SQS client that counts its ChangeMessageVisibilityBatch requests and their entries. */
function countingSqs() {
  const requests: number[] = [];
  const sqs = testClients().sqs;
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ChangeMessageVisibilityBatchCommand') {
        const input = args.input as { Entries?: unknown[] };
        requests.push(input.Entries?.length ?? 0);
      }
      return next(args);
    },
    { step: 'initialize', name: 'count-hand-backs' },
  );
  return { sqs, requests };
}

/** The retry's delay the failure wrote ("next attempt in N ms") and when it wrote it. */
async function retryDue(id: string): Promise<number> {
  const record = await executor.store.get(id);
  const entry = [...(record?.history ?? [])]
    .reverse()
    .find((e) => /next attempt in \d+ ms/.test(e.detail ?? ''));
  const delayMs = Number(/next attempt in (\d+) ms/.exec(entry?.detail ?? '')?.[1]);
  expect(entry).toBeDefined();
  return (entry?.at ?? 0) + delayMs;
}

describe('the hand-back window', () => {
  it('hands back the retries of a batch of 10 together, each on time', async () => {
    // Arrange
    const started = new Map<string, number>();
    const flaky = defineTask('hand-back-window.flaky', {
      schema: z.object({ n: z.number() }),
      retry: { maxAttempts: 2, baseDelayMs: 3_000 },
      handler: async (_payload, ctx) => {
        if (ctx.attempt === 1) throw new Error('fails once');
        started.set(ctx.taskId, Date.now());
      },
    });
    const client = executor.client();
    const ids: string[] = [];
    for (let n = 0; n < TASKS; n++) ids.push((await client.enqueue(flaky, { n })).id);
    const batch: SQSRecord[] = [];
    while (batch.length < TASKS) batch.push(...(await executor.receive()));
    const { sqs, requests } = countingSqs();

    // Act: the batch of 10, every task failing at once...
    const response = await executor.deliver(executor.worker([flaky], { sqs }), batch);
    const dues = new Map<string, number>();
    for (const id of ids) dues.set(id, await retryDue(id));
    // ...then the retries, as the event source mapping receives them.
    const worker = executor.worker([flaky]);
    const until = Date.now() + 30_000;
    while (started.size < TASKS && Date.now() < until) {
      const records = await executor.receive();
      if (records.length > 0) await executor.deliver(worker, records);
    }

    // Assert
    expect(response.batchItemFailures).toHaveLength(TASKS);
    // One request on a quiet machine; two at most when load spreads the decisions past the
    // window's cap (before the window: one request per one to three retries, five in all).
    expect(requests.length).toBeLessThanOrEqual(2);
    expect(requests.reduce((sum, n) => sum + n, 0)).toBe(TASKS);
    for (const id of ids) {
      expect((await executor.store.get(id))?.status).toBe(TaskStatus.SUCCEEDED);
      const due = dues.get(id) ?? 0;
      const startedAt = started.get(id) ?? 0;
      expect(startedAt).toBeGreaterThanOrEqual(due);
      expect(startedAt).toBeLessThanOrEqual(due + HAND_BACK_WINDOW_MS + SLACK_MS);
    }
  }, 60_000);
});
