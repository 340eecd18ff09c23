import type {
  SendMessageBatchCommandInput,
  SendMessageBatchCommandOutput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients } from '../helpers/aws.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const started: { key: string; seq: number }[] = [];
const step = defineTask('pipelined', {
  schema: z.object({ key: z.string(), seq: z.number() }),
  handler: (payload) => {
    started.push(payload);
  },
});

/** The ordering keys of one SendMessageBatch call, in entry order. */
function keysOf(input: SendMessageBatchCommandInput): string[] {
  return [...new Set((input.Entries ?? []).map((e) => e.MessageGroupId ?? '?'))];
}

type Hook = (input: SendMessageBatchCommandInput, call: number) => Promise<void> | void;

/** Runs `before` ahead of every SendMessageBatch the client sends, and logs its start and end. */
function watchBatches(sqs: SQSClient, before: Hook, log: string[]): void {
  let calls = 0;
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'SendMessageBatchCommand') return next(args);
      const input = args.input as SendMessageBatchCommandInput;
      const call = calls++;
      log.push(`start ${call} ${keysOf(input).join(',')}`);
      await before(input, call);
      const result = await next(args);
      log.push(`end ${call}`);
      return result;
    },
    { step: 'initialize', name: 'watchBatches' },
  );
}

/** Resolves when `ready()` is true, or after `ms` milliseconds, whichever comes first. */
async function until(ready: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

function entries(keys: readonly string[], perKey: number) {
  return keys.flatMap((key) =>
    Array.from({ length: perKey }, (_, seq) => ({
      task: step,
      payload: { key, seq },
      options: { id: `${key}-${seq}`, orderingKey: key },
    })),
  );
}

describe('TaskClient.enqueueBatch (pipelined)', () => {
  it('sends a chunk of another key while an earlier chunk is still in flight', async () => {
    // Arrange: the first call is held until a second call starts (or 10 s pass, which only a
    // chunk that waited for the first would need).
    const { sqs } = testClients();
    const log: string[] = [];
    watchBatches(
      sqs,
      (_, call) => (call === 0 ? until(() => log.length > 1, 10_000) : undefined),
      log,
    );
    const client = executor.client({ sqs });

    // Act: 10 tasks of key a, then 10 of key b: two chunks with nothing in common.
    const results = await client.enqueueBatch(entries(['a', 'b'], 10));

    // Assert: the second call started before the first ended.
    expect(results.every((r) => r.ok && r.sent)).toBe(true);
    expect(log.slice(0, 2)).toEqual([
      expect.stringMatching(/^start 0 /),
      expect.stringMatching(/^start 1 /),
    ]);
  });

  it('sends a chunk only after the earlier chunks of its key have been sent', async () => {
    // Arrange: the first call is held for up to 1.5 s, hoping (wrongly) for a second to start.
    const { sqs } = testClients();
    const log: string[] = [];
    watchBatches(
      sqs,
      (_, call) => (call === 0 ? until(() => log.length > 1, 1_500) : undefined),
      log,
    );
    const client = executor.client({ sqs });

    // Act: 25 tasks of one key: three chunks.
    const results = await client.enqueueBatch(entries(['a'], 25));

    // Assert
    expect(results.every((r) => r.ok && r.sent)).toBe(true);
    expect(log).toEqual(['start 0 a', 'end 0', 'start 1 a', 'end 1', 'start 2 a', 'end 2']);
  });

  it('keeps each key in input order across concurrent chunks, holding back a key after a failed send', async () => {
    // Arrange: 4 keys interleaved over 10 chunks; sends return out of order (random delays);
    // a-4 and c-11, each its key's last entry in its chunk, are refused by SQS (a per-entry
    // failure).
    const refused = new Set(['a-4', 'c-11']);
    const { sqs } = testClients();
    const log: string[] = [];
    watchBatches(sqs, () => new Promise((r) => setTimeout(r, Math.random() * 40)), log);
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'SendMessageBatchCommand') return next(args);
        const input = args.input as SendMessageBatchCommandInput;
        const out = (input.Entries ?? []).filter((e) =>
          refused.has(JSON.parse(e.MessageBody ?? '{}').id),
        );
        input.Entries = input.Entries?.filter((e) => !out.includes(e));
        const result = await next(args);
        const output = result.output as SendMessageBatchCommandOutput;
        output.Failed = [
          ...(output.Failed ?? []),
          ...out.map((e) => ({
            Id: e.Id,
            Code: 'InternalError',
            SenderFault: false,
            Message: 'injected',
          })),
        ];
        return result;
      },
      { step: 'initialize', name: 'refuseEntries' },
    );
    const client = executor.client({ sqs });
    const batch = Array.from({ length: 20 }, (_, seq) =>
      ['a', 'b', 'c', 'd'].map((key) => ({
        task: step,
        payload: { key, seq },
        options: { id: `${key}-${seq}`, orderingKey: key },
      })),
    ).flat();
    started.length = 0;

    // Act
    const results = await client.enqueueBatch(batch);

    // Assert: a from 4 on and c from 11 on wait PENDING; everything else went out.
    const heldBack = (key: string, seq: number) =>
      (key === 'a' && seq >= 4) || (key === 'c' && seq >= 11);
    results.forEach((r, n) => {
      const { key, seq } = (batch[n] as (typeof batch)[number]).payload;
      expect(r.ok && r.sent).toBe(!heldBack(key, seq));
      if (heldBack(key, seq)) expect(r.ok && r.record.status).toBe(TaskStatus.PENDING);
    });
    expect(log.filter((l) => l.startsWith('start'))).toHaveLength(8);

    // Act: the worker runs what was sent; then the sweeper sends the rest and they run.
    await executor.drain(executor.worker([step]));
    const report = await createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: silentLogger,
      pendingAgeMs: 0,
    }).run();
    await executor.drain(executor.worker([step]));

    // Assert: every key ran in input order, each task once.
    expect(report.sent).toBe(16 + 9);
    for (const key of ['a', 'b', 'c', 'd']) {
      expect(started.filter((s) => s.key === key).map((s) => s.seq)).toEqual(
        Array.from({ length: 20 }, (_, i) => i),
      );
    }
  });
});
