/**
 * Firing admission (ADR 0013): a firing names its own task type and payload, so the worker
 * believes one only from the scheduler's SenderId. The emulator reports the access key id
 * that signed a send as its SenderId; the pump signs with its own, producers with theirs.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { firingTemplate, taskMessage } from '../../src/core/message.js';
import { formatScheduledTime } from '../../src/scheduler/occurrences.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { schedulerPumpSqs } from '../helpers/aws.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

const MINUTE = 60_000;

let executor: TestExecutor;
let runs: string[];
const report = defineTask('report', {
  schema: z.object({ report: z.string() }),
  handler: ({ report }) => {
    runs.push(report);
  },
});

beforeEach(async () => {
  executor = await setupExecutor();
  runs = [];
});

/** Sends a firing as Scheduler would have substituted it, signed by `sqs`'s credentials. */
async function sendFiring(
  sqs: SQSClient,
  fields: { schedule?: string; at?: number; payload?: unknown; type?: string } = {},
): Promise<string> {
  const at = fields.at ?? Math.floor(Date.now() / MINUTE) * MINUTE;
  const schedule = fields.schedule ?? 'nightly';
  const body = firingTemplate({
    schedule,
    type: fields.type ?? 'report',
    payload: fields.payload ?? { report: 'sales' },
  })
    .replace('<aws.scheduler.scheduled-time>', formatScheduledTime(at))
    .replace('<aws.scheduler.execution-id>', `exec-${Math.random()}`)
    .replace('<aws.scheduler.attempt-number>', '1');
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: executor.queueUrl,
      MessageBody: body,
      MessageGroupId: schedule,
    }),
  );
  return `${schedule}@${formatScheduledTime(at)}`;
}

/** Processes what is in the queue with a recording worker; returns the rejection audits. */
async function processQueue(options: Parameters<TestExecutor['worker']>[1] = {}) {
  const logger = recordingLogger();
  const worker = executor.worker([report], { logger, ...options });
  await executor.drain(worker);
  const rejected = logger.lines.filter((l) => l.attributes.event === AuditEvent.MESSAGE_REJECTED);
  return { rejected, lines: logger.lines };
}

function pumpSqs(): SQSClient {
  return schedulerPumpSqs(executor.scheduler.schedulerSenderId);
}

describe('worker admission of firings', () => {
  it('rejects a firing a producer sent: acknowledged, audited, no record, not run', async () => {
    const id = await sendFiring(executor.clients.sqs);

    const { rejected } = await processQueue();

    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.attributes.detail).toMatch(/not sent by the scheduler role/);
    expect(await executor.client().get(id)).toBeUndefined();
    expect(runs).toEqual([]);
    expect(await executor.queueDepth()).toBe(0);
  });

  it("runs a firing the scheduler's credentials sent", async () => {
    const id = await sendFiring(pumpSqs());

    const { rejected } = await processQueue();

    expect(rejected).toEqual([]);
    expect(runs).toEqual(['sales']);
    expect((await executor.client().get(id))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('rejects every firing when the worker has no scheduler sender id', async () => {
    const previous = process.env.TASKLANE_SCHEDULER_SENDER_ID;
    delete process.env.TASKLANE_SCHEDULER_SENDER_ID;
    const id = await sendFiring(pumpSqs());

    const { rejected, lines } = await processQueue({ schedulerSenderId: undefined });
    if (previous !== undefined) process.env.TASKLANE_SCHEDULER_SENDER_ID = previous;

    expect(rejected[0]?.attributes.detail).toMatch(/no scheduler sender id/);
    expect(lines.some((l) => l.level === 'error')).toBe(true);
    expect(await executor.client().get(id)).toBeUndefined();
    expect(runs).toEqual([]);
  });

  it('rejects a firing dated later than now plus the skew allowance', async () => {
    const id = await sendFiring(pumpSqs(), { at: Date.now() + 10 * MINUTE });

    const { rejected } = await processQueue();

    expect(rejected[0]?.attributes.detail).toMatch(/skew allowance/);
    expect(await executor.client().get(id)).toBeUndefined();
    expect(runs).toEqual([]);
  });

  it("rejects a firing that names a delayed task's schedule", async () => {
    await sendFiring(pumpSqs(), { schedule: 'task.abc' });

    const { rejected } = await processQueue();

    expect(rejected[0]?.attributes.detail).toMatch(/reserved/);
    expect(runs).toEqual([]);
  });

  it('rejects a firing whose payload differs from the existing task as a conflict', async () => {
    const at = Math.floor(Date.now() / MINUTE) * MINUTE - MINUTE;
    const id = await sendFiring(pumpSqs(), { at, payload: { report: 'sales' } });
    await processQueue();
    await sendFiring(pumpSqs(), { at, payload: { report: 'payroll' } });

    const { rejected } = await processQueue();

    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.attributes.detail).toMatch(/conflicting firing/);
    const record = await executor.client().get(id);
    expect(record?.history.map((h) => h.event)).not.toContain(AuditEvent.DUPLICATE_DROPPED);
    expect(runs).toEqual(['sales']);
  });
});

describe('worker admission of a firing that cannot be serialised', () => {
  it('rejects a payload nested 2,200 levels deep at once, holding no group', async () => {
    const deep = JSON.parse(`${'['.repeat(2_200)}${']'.repeat(2_200)}`) as unknown;
    const id = await sendFiring(pumpSqs(), { payload: deep });

    const { rejected } = await processQueue();

    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.attributes.detail).toMatch(/cannot be serialised \(RangeError\)/);
    expect(await executor.client().get(id)).toBeUndefined();
    expect(await executor.queueDepth()).toBe(0);
  });
});

describe('worker admission of task envelopes', () => {
  it("rejects an envelope sent in another message group than the record's", async () => {
    await executor
      .client()
      .enqueue(report, { report: 'first' }, { id: 'order-1', orderingKey: 'k' });
    // The genuine message is in flight, holding key k; a forged copy tries to jump it.
    expect(await executor.receive({ visibilityTimeout: 300 })).toHaveLength(1);
    const forged = taskMessage({
      id: 'order-1',
      type: 'report',
      generation: 2,
      messageGroupId: 'elsewhere',
    });
    await executor.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: executor.queueUrl, ...forged }),
    );

    const { rejected } = await processQueue();

    expect(rejected[0]?.attributes.detail).toMatch(/message group/);
    expect(runs).toEqual([]);
    expect((await executor.client().get('order-1'))?.attempt).toBe(0);
  });
});
