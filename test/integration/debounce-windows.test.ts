import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { MAX_WAIT_WINDOWS } from '../../src/core/debounce.js';
import { PermanentError, ScheduleFailedError } from '../../src/core/errors.js';
import { pointerKey } from '../../src/store/debounce.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { failingScheduler } from '../helpers/failing-commands.js';

const save = defineTask('save', { schema: z.object({ n: z.number() }), handler: () => undefined });
const doomed = defineTask('doomed', {
  schema: z.object({ n: z.number() }),
  handler: () => {
    throw new PermanentError('bad input');
  },
});

let executor: TestExecutor;
let keys = 0;
const nextKey = () => `key-${++keys}`;

beforeAll(async () => {
  executor = await setupExecutor();
});

describe("TaskClient.enqueue with debounce 'last', over many windows", () => {
  it(`stops absorbing ${MAX_WAIT_WINDOWS} windows after the task was created`, async () => {
    // Arrange
    const debounce = { key: nextKey(), windowMs: 1000, mode: 'last' } as const;
    const first = await executor.client().enqueue(save, { n: 1 }, { debounce });
    const later = (ms: number) => executor.client({ clock: () => Date.now() + ms });

    // Act
    const within = await later(MAX_WAIT_WINDOWS * 1000 - 2000).enqueue(
      save,
      { n: 2 },
      { debounce },
    );
    const beyond = await later(MAX_WAIT_WINDOWS * 1000 + 2000).enqueue(
      save,
      { n: 3 },
      { debounce },
    );

    // Assert
    expect(within.id).toBe(first.id);
    expect(beyond.id).not.toBe(first.id);
    expect(beyond.created).toBe(true);
    expect((await executor.store.get(first.id))?.payload).toEqual({ n: 2 });
  });
});

describe('TaskClient.enqueueBatch with debounce', () => {
  it('folds entries that share a key into one task', async () => {
    // Arrange
    const debounce = { key: nextKey(), windowMs: 5000, mode: 'first' } as const;
    const entries = [1, 2, 3, 4].map((n) => ({
      task: save,
      payload: { n },
      options: { debounce },
    }));

    // Act
    const results = await executor.client().enqueueBatch(entries);

    // Assert
    const ok = results.flatMap((r) => (r.ok ? [r] : []));
    expect(ok).toHaveLength(4);
    expect(new Set(ok.map((r) => r.id)).size).toBe(1);
    expect(ok.filter((r) => r.created)).toHaveLength(1);
    expect((await executor.store.get(ok[0]?.id as string))?.debounce?.absorbed).toBe(3);
  });
});

describe('TaskClient.enqueue with debounce, through a one-time schedule', () => {
  it('folds into the scheduled task its creator confirmed, so nothing can roll it back', async () => {
    // Arrange
    const client = executor.client({ scheduleThresholdMs: 0 });
    const debounce = { key: nextKey(), windowMs: 120_000, mode: 'first' } as const;
    const first = await client.enqueue(save, { n: 1 }, { debounce });

    // Act
    const second = await client.enqueue(save, { n: 2 }, { debounce });

    // Assert
    // The creator confirms its record once its schedule exists (ADR 0038).
    expect(first.record.scheduleConfirmed).toBe(true);
    expect([second.id, second.absorbed]).toEqual([first.id, true]);
    const record = await executor.store.get(first.id);
    expect(record?.scheduleConfirmed).toBe(true);
    expect(record?.payload).toEqual({ n: 1 });
  });

  it('creates the next generation after a rolled-back task instead of folding into it', async () => {
    // Arrange
    const debounce = { key: nextKey(), windowMs: 120_000, mode: 'last' } as const;
    const failing = executor.client({
      scheduleThresholdMs: 0,
      scheduler: failingScheduler({ name: 'Error', message: 'outage' }),
    });
    const failed = await failing.enqueue(save, { n: 1 }, { debounce }).catch((e: unknown) => e);

    // Act
    const next = await executor
      .client({ scheduleThresholdMs: 0 })
      .enqueue(save, { n: 2 }, { debounce });

    // Assert
    expect(failed).toBeInstanceOf(ScheduleFailedError);
    const rolledBack = await executor.store.get((failed as ScheduleFailedError).taskId);
    expect(rolledBack?.status).not.toBe(TaskStatus.SCHEDULED);
    expect(next.created).toBe(true);
    expect(next.id).not.toBe(rolledBack?.id);
    expect(next.record.status).toBe(TaskStatus.SCHEDULED);
  });
});

describe('TaskClient.enqueue with debounce, without its pointer', () => {
  it('finds its way past the finished generations and creates the next one', async () => {
    // Arrange: a finished (cancelled) task, and its pointer gone (TTL, or never written)
    const client = executor.client();
    const debounce = { key: nextKey(), windowMs: 5000, mode: 'last' } as const;
    const first = await client.enqueue(save, { n: 1 }, { debounce });
    await client.cancel(first.id);
    await executor.clients.dynamodb.send(
      new DeleteItemCommand({
        TableName: executor.tableName,
        Key: { [TableSchema.PARTITION_KEY]: { S: pointerKey('save', debounce.key) } },
      }),
    );

    // Act
    const next = await client.enqueue(save, { n: 2 }, { debounce });
    const again = await client.enqueue(save, { n: 3 }, { debounce });

    // Assert
    expect(next.id).not.toBe(first.id);
    expect(next.created).toBe(true);
    expect([again.id, again.absorbed]).toEqual([next.id, true]);
    expect((await executor.store.get(first.id))?.status).toBe(TaskStatus.CANCELLED);
  });
});

describe('TaskClient.enqueue with debounce, after a redrive', () => {
  it('does not fold into a redriven task: it retries its own payload', async () => {
    // Arrange: the key's task died and was redriven before anything else was enqueued
    const client = executor.client();
    const debounce = { key: nextKey(), windowMs: 200, mode: 'last' } as const;
    const first = await client.enqueue(doomed, { n: 1 }, { debounce });
    const worker = executor.worker([doomed, save]);
    await eventually(async () => {
      await executor.drain(worker);
      return (await client.get(first.id))?.status === TaskStatus.DEAD;
    });
    await client.redrive({ ids: [first.id] });

    // Act
    const next = await client.enqueue(doomed, { n: 2 }, { debounce });

    // Assert
    expect(next.id).not.toBe(first.id);
    expect(next.created).toBe(true);
    expect((await client.get(first.id))?.payload).toEqual({ n: 1 });
  });
});
