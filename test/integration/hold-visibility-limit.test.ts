/**
 * Holds within the receive's 12 hours (docs/adr/0067-holds-within-the-receive-budget.md): SQS
 * refuses a visibility that ends more than 12 hours after the receive (moto: after the send),
 * so a hold asked for 12 hours from now was refused, and the held message came back after
 * the queue's visibility timeout, spending a receive each time. Each hold here must keep its
 * message in flight past that timeout.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { ParkedKeys } from '../../src/store/parked-keys.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { VisibilityController } from '../../src/worker/visibility.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

const KEY = 'held-key';
const TWELVE_HOURS = 43_200;

let executor: TestExecutor;

beforeEach(async () => {
  // A 1 s worker timeout: the queue's visibility timeout is 6 s, so a refused hold shows soon.
  executor = await setupExecutor({ workerTimeoutSeconds: 1 });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits past the queue's visibility timeout: a message not held comes back by then. */
const pastDefaultVisibility = () => sleep((executor.visibilityTimeoutSeconds + 2) * 1000);

/** Messages in flight (received, hidden). */
async function inFlight(): Promise<number> {
  const out = await executor.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: executor.queueUrl,
      AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible);
}

/** Sends `count` plain messages to the queue and receives them. */
async function receivedMessages(count: number): Promise<SQSRecord[]> {
  for (let n = 0; n < count; n++) {
    await executor.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: executor.queueUrl,
        MessageBody: `{"n":${n}}`,
        MessageGroupId: `g${n}`,
        MessageDeduplicationId: `d${n}-${Date.now()}`,
      }),
    );
  }
  const records: SQSRecord[] = [];
  while (records.length < count) records.push(...(await executor.receive()));
  return records;
}

function controller(logger = recordingLogger()) {
  return new VisibilityController(
    executor.clients.sqs,
    logger,
    executor.queueUrl,
    executor.queueArn,
  );
}

const parking = (failing: Set<string>) =>
  defineTask('hold-limit.parking', {
    schema: z.object({ name: z.string() }),
    retry: { maxAttempts: 1 },
    onDead: 'park',
    handler: async ({ name }) => {
      if (failing.has(name)) throw new PermanentError(`${name} is broken`);
    },
  });

describe('holds by the worker', () => {
  it("keeps a parked key's held message in flight past the queue's visibility timeout", async () => {
    const task = parking(new Set(['A']));
    const client = executor.client();
    await client.enqueue(task, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueue(task, { name: 'B' }, { id: 'B', orderingKey: KEY });
    const worker = executor.worker([task]);
    await executor.drain(worker);

    await pastDefaultVisibility();
    const back = await executor.receive({ waitTimeSeconds: 0 });

    expect(back).toEqual([]);
    expect(await inFlight()).toBe(1);
    expect(await client.get('A')).toMatchObject({ status: TaskStatus.DEAD, parkedKey: KEY });
    expect(await client.get('B')).toMatchObject({ status: TaskStatus.PENDING, attempt: 0 });
  });

  it('holds a returned parked message again, with a fresh receive, and it stays held', async () => {
    const task = parking(new Set(['A']));
    const client = executor.client();
    await client.enqueue(task, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueue(task, { name: 'B' }, { id: 'B', orderingKey: KEY });
    const worker = executor.worker([task]);
    await executor.drain(worker);
    // The hold ends (as a hold cut to its receive's budget does): the message comes back.
    const parked = await executor.store.feature(ParkedKeys).get(KEY);
    await executor.clients.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: executor.queueUrl,
        ReceiptHandle: parked?.receiptHandle ?? '',
        VisibilityTimeout: 0,
      }),
    );

    const again = await executor.receive();
    await executor.deliver(worker, again);
    await pastDefaultVisibility();

    // A again, at its group's head (B, held back behind it before, may come with it).
    expect(again[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(JSON.parse(again[0]?.body ?? '{}')).toMatchObject({ id: 'A' });
    expect(await executor.receive({ waitTimeSeconds: 0 })).toEqual([]);
    const held = await executor.store.feature(ParkedKeys).get(KEY);
    expect(held?.receiptHandle).toBe(again[0]?.receiptHandle);
    expect(await client.get('B')).toMatchObject({ status: TaskStatus.PENDING, attempt: 0 });
  });

  it("keeps a paused keyed task's message in flight, holding its key", async () => {
    const ran: string[] = [];
    const task = defineTask('hold-limit.paused', {
      schema: z.object({ name: z.string() }),
      handler: async ({ name }) => {
        ran.push(name);
      },
    });
    const client = executor.client();
    const first = await client.enqueue(task, { name: 'first' }, { orderingKey: KEY });
    await client.enqueue(task, { name: 'second' }, { orderingKey: KEY });
    await client.pause(first.id);
    await executor.drain(executor.worker([task]));

    await pastDefaultVisibility();

    expect(await executor.receive({ waitTimeSeconds: 0 })).toEqual([]);
    expect(ran).toEqual([]);
    expect((await client.get(first.id))?.heldMessage).toBeDefined();
  });

  it("keeps a keyed task waiting for a signal in flight, its message at the key's head", async () => {
    const task = defineTask('hold-limit.waiting', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('go'),
    });
    const client = executor.client();
    const { id } = await client.enqueue(task, {}, { orderingKey: KEY });
    await executor.drain(executor.worker([task]));
    expect((await client.get(id))?.status).toBe(TaskStatus.SUSPENDED);

    await pastDefaultVisibility();

    expect(await executor.receive({ waitTimeSeconds: 0 })).toEqual([]);
    expect(await inFlight()).toBe(1);
  });
});

describe('VisibilityController against the limit', () => {
  it('cuts a 12-hour hold to its receive budget instead of being refused', async () => {
    const [record] = await receivedMessages(1);
    if (record === undefined) throw new Error('nothing received');
    const visibility = controller();
    visibility.received([record], Date.now());

    await visibility.extend({
      receiptHandle: record.receiptHandle,
      eventSourceARN: record.eventSourceARN,
      seconds: TWELVE_HOURS,
    });
    await pastDefaultVisibility();

    expect(await executor.receive({ waitTimeSeconds: 0 })).toEqual([]);
  });

  it('falls back to what the send allows when refused, with one warning', async () => {
    const [record] = await receivedMessages(1);
    if (record === undefined) throw new Error('nothing received');
    const logger = recordingLogger();
    // A receive time an hour late (a wrong clock): the cut ask still reaches past the limit.
    const change = {
      receiptHandle: record.receiptHandle,
      eventSourceARN: record.eventSourceARN,
      seconds: TWELVE_HOURS,
      receivedAt: Date.now() + 3_600_000,
      sentAt: Number(record.attributes.SentTimestamp),
    };

    await controller(logger).extend(change);
    await pastDefaultVisibility();

    expect(await executor.receive({ waitTimeSeconds: 0 })).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('falls back to 1 s without a send time: the message comes back soon, never failed', async () => {
    const [record] = await receivedMessages(1);
    if (record === undefined) throw new Error('nothing received');
    const logger = recordingLogger();
    const change = {
      receiptHandle: record.receiptHandle,
      eventSourceARN: record.eventSourceARN,
      seconds: TWELVE_HOURS,
      receivedAt: Date.now() + 3_600_000,
    };

    await controller(logger).extend(change);
    const back = await executor.receive({ waitTimeSeconds: 4 });

    expect(back.map((r) => r.messageId)).toEqual([record.messageId]);
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('applies a batch whose one entry is refused: every message is held', async () => {
    const records = await receivedMessages(2);
    const [late, fresh] = records;
    if (late === undefined || fresh === undefined) throw new Error('nothing received');
    const visibility = controller();
    visibility.received([fresh], Date.now());

    await visibility.applyAll([
      {
        receiptHandle: late.receiptHandle,
        eventSourceARN: late.eventSourceARN,
        seconds: TWELVE_HOURS,
        receivedAt: Date.now() + 3_600_000,
        sentAt: Number(late.attributes.SentTimestamp),
      },
      { receiptHandle: fresh.receiptHandle, eventSourceARN: fresh.eventSourceARN, seconds: 3_600 },
    ]);
    await pastDefaultVisibility();

    expect(await executor.receive({ waitTimeSeconds: 0 })).toEqual([]);
    expect(await inFlight()).toBe(2);
  });
});
