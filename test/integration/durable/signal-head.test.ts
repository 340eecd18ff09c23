/**
 * ADR 0066: a signal's head lives in an item of its own. A sender checks the task's item and
 * writes only `signal …` items; the claim its message brings, or the sweeper, wakes the task.
 */

import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TableSchema, TaskStatus } from '../../../src/core/constants.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { noopMetrics } from '../../../src/observability/metrics.js';
import { signalWrites } from '../../../src/store/signal-writes.js';
import { SignalStore, signalHeadKey } from '../../../src/store/signals.js';
import { createSweeper } from '../../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, stopWorker, useDurableExecutor } from '../../helpers/durable.js';
import { eventually } from '../../helpers/executor.js';
import { heldHolds } from '../../helpers/held-holds.js';

useDurableExecutor();

describe('the signal head (ADR 0066)', () => {
  it('leaves the task item untouched: a signal to a RUNNING task is counted in its head', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const task = defineTask('durable.signal.head.running', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await gate;
        const got = await ctx.waitForSignal('go', { timeoutMs: 60_000 });
        return got;
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.RUNNING);
    const before = await executor.store.get(id);
    const sent = await client.signal(id, 'go', { n: 1 });
    const after = await executor.store.get(id);
    const head =
      before === undefined ? undefined : await executor.store.feature(SignalStore).head(before);
    release();
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(sent).toMatchObject({ seq: 0, woke: false });
    expect(after).toEqual(before);
    expect(after?.signals).toBeUndefined();
    expect(head).toMatchObject({ epoch: 0, count: 1, filed: true });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: { n: 1 } });
  });

  it('reads the head again before a later wait suspends: a signal sent since the first wait is received at once', async () => {
    const gates = [0, 1].map(() => {
      let open: () => void = () => undefined;
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      return { open, opened };
    });
    let firstDone = false;
    const task = defineTask('durable.signal.head.second-wait', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await gates[0]?.opened;
        const a = await ctx.waitForSignal('a', { timeoutMs: 60_000 });
        firstDone = true;
        await gates[1]?.opened;
        const b = await ctx.waitForSignal('b', { timeoutMs: 60_000 });
        return [a, b];
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.RUNNING);
    await client.signal(id, 'a', 1);
    gates[0]?.open();
    await eventually(async () => firstDone);
    // Sent after the first wait read the head: its sender sees the task RUNNING.
    const sent = await client.signal(id, 'b', 2);
    gates[1]?.open();
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(sent).toMatchObject({ seq: 1, woke: false });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual([
      { received: true, data: 1 },
      { received: true, data: 2 },
    ]);
    // Neither wait suspended: the second found its signal in the run, with no wake and replay.
    expect(record.history.map((h) => h.event)).not.toContain(AuditEvent.SUSPENDED);
  });

  it('reads the head again before a later wait times out: a poll (timeoutMs 0) finds a signal sent since the first wait', async () => {
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let firstDone = false;
    const task = defineTask('durable.signal.head.second-poll', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        const a = await ctx.waitForSignal('a', { timeoutMs: 60_000 });
        firstDone = true;
        await opened;
        const b = await ctx.waitForSignal('b', { timeoutMs: 0 });
        return [a, b];
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await client.signal(id, 'a', 1);
    runWorker(task);
    await eventually(async () => firstDone);
    await client.signal(id, 'b', 2);
    open();
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual([
      { received: true, data: 1 },
      { received: true, data: 2 },
    ]);
  });

  it('has the sweeper wake a waiter whose sender stored its signal and crashed before its wake', async () => {
    const task = defineTask('durable.signal.head.lost-wake', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        const a = await ctx.waitForSignal('go', { timeoutMs: 120_000 });
        const b = await ctx.waitForSignal('go', { timeoutMs: 120_000 });
        return [a, b];
      },
    });
    runWorker(task);
    const client = executor.client();
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: silentLogger,
      metrics: noopMetrics,
      suspendedGraceMs: 0,
    });

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    // The worker stops once its batch ended: the hold sent and the check after it made
    // (ADR 0067), so the signal below comes after both, as a signal sent later would.
    await stopWorker();
    // The sender's one write, without its wake: as if it crashed right after it.
    const seen = await executor.store.get(id);
    if (seen === undefined) throw new Error('task not found');
    const stored = await signalWrites(executor.store).send(seen, undefined, {
      name: 'go',
      dataJson: '1',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const still = await client.get(id);
    const report = await sweeper.run();
    runWorker(task);
    // The second wait: woken promptly by the sender's own wake.
    await eventually(async () => {
      const now = await client.get(id);
      return now?.status === TaskStatus.SUSPENDED && now.wait?.step === 1;
    });
    const second = await client.signal(id, 'go', 2);
    const record = await client.wait(id, { timeoutMs: 30_000 });
    const head = await executor.store.feature(SignalStore).head(record);

    expect(stored).toMatchObject({ kind: 'stored', seq: 0, woke: true });
    expect(still?.status).toBe(TaskStatus.SUSPENDED);
    expect(still?.woken).toBeUndefined();
    expect(report.woken).toBe(1);
    expect(second).toMatchObject({ seq: 1, woke: true });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual([
      { received: true, data: 1 },
      { received: true, data: 2 },
    ]);
    expect(record.attempt).toBe(1);
    expect(head?.count).toBe(2);
  });

  it('finds a signal stored before the wait, consuming signals of one name in order', async () => {
    const task = defineTask('durable.signal.head.before', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('first', 1_500);
        const a = await ctx.waitForSignal('x', { timeoutMs: 60_000 });
        const b = await ctx.waitForSignal('x', { timeoutMs: 60_000 });
        return [a, b];
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    await client.signal(id, 'x', 'a');
    await client.signal(id, 'x', 'b');
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual([
      { received: true, data: 'a' },
      { received: true, data: 'b' },
    ]);
  });
  it('wakes from the head when it names the one new signal, and reads the item for a head without a name', async () => {
    const task = defineTask('durable.signal.head.named', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('go', { timeoutMs: 120_000 }),
    });
    runWorker(task);
    const client = executor.client();
    const suspended = async () => {
      const { id } = await client.enqueue(task, {});
      await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
      const record = await executor.store.get(id);
      if (record === undefined) throw new Error(`task ${id} is gone`);
      return record;
    };
    const store = async (record: Awaited<ReturnType<typeof suspended>>, name: string) =>
      signalWrites(executor.store).send(
        record,
        await executor.store.feature(SignalStore).head(record),
        {
          name,
        },
      );

    // Arrange: one task sent a signal of another name; one sent its own, by a head that
    // predates the name (the attribute removed).
    const other = await suspended();
    const legacy = await suspended();
    // The worker stops once its batch ended (the hold sent and checked after, ADR 0067).
    await stopWorker();
    await store(other, 'other');
    await store(legacy, 'go');
    await DynamoDBDocumentClient.from(executor.clients.dynamodb).send(
      new UpdateCommand({
        TableName: executor.tableName,
        Key: { [TableSchema.PARTITION_KEY]: signalHeadKey(legacy.id) },
        UpdateExpression: 'REMOVE #last',
        ExpressionAttributeNames: { '#last': 'last' },
      }),
    );

    // Act
    const otherHead = await executor.store.feature(SignalStore).head(other);
    const notWoken = await executor.store.feature(SignalStore).wakeIfSignalled(other, Date.now());
    const legacyHead = await executor.store.feature(SignalStore).head(legacy);
    const woken = await executor.store.feature(SignalStore).wakeIfSignalled(legacy, Date.now());

    expect(otherHead).toMatchObject({ count: 1, last: 'other' });
    expect(notWoken).toBeUndefined();
    expect((await executor.store.get(other.id))?.woken).toBeUndefined();
    expect(legacyHead?.last).toBeUndefined();
    expect(woken).toMatchObject({ id: legacy.id, status: TaskStatus.SUSPENDED, woken: true });
  });
  it('wakes a waiter whose signal came while its hold waited to be sent (the hold hid the wake)', async () => {
    const task = defineTask('durable.signal.head.hold-race', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('go', { timeoutMs: 120_000 }),
    });
    // The worker's holds wait until the test opens them.
    const holds = heldHolds();
    runWorker(task, { sqs: holds.sqs });
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    // Act: the signal's sender shows the message before the hold is sent, which hides it.
    const sent = await client.signal(id, 'go', 'now');
    holds.open();
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(sent).toMatchObject({ seq: 0, woke: true });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: 'now' });
  });
  it('wakes a waiter whose signal came while the claim re-held an early message', async () => {
    const task = defineTask('durable.signal.head.rehold-race', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('go', { timeoutMs: 120_000 }),
    });
    // The claim's re-holds (a single change of visibility past a minute) wait for the test.
    const holds = heldHolds('ChangeMessageVisibilityCommand');
    runWorker(task, { sqs: holds.sqs });
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    // Suspended, and its hold sent: a show before the hold would be hidden by it.
    await eventually(async () => (await client.get(id))?.heldMessage !== undefined);
    await holds.batchSent;
    const waiting = await executor.store.get(id);
    // Arrange: the held message comes back early (a stray show), and the claim re-holds it.
    await executor.clients.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: executor.queueUrl,
        ReceiptHandle: waiting?.heldMessage?.receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    await holds.reached;

    // Act: the signal's sender shows the message before the re-hold hides it.
    const sent = await client.signal(id, 'go', 'late');
    holds.open();
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(sent.woke).toBe(true);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: 'late' });
  });
});
