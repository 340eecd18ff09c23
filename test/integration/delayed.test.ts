import { GetScheduleCommand, ResourceNotFoundException } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { ScheduleFailedError } from '../../src/core/errors.js';
import { unkeyedGroup } from '../../src/core/message.js';
import { delayedScheduleName } from '../../src/scheduler/names.js';
import { payloadHash } from '../../src/store/record.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { TaskStore } from '../../src/store/task-store.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import {
  recordingLogger,
  setupExecutor,
  silentLogger,
  type TestExecutor,
} from '../helpers/executor.js';
import { failingScheduler } from '../helpers/failing-commands.js';

const MINUTE = 60_000;

let executor: TestExecutor;
let ran: string[];
const remind = defineTask('remind', {
  schema: z.object({ note: z.string() }),
  handler: (_payload, ctx) => {
    ran.push(ctx.taskId);
  },
});

/** A clock the test moves by hand; starts at the real time (moto dates schedules by it). */
function fakeClock() {
  const state = { now: Math.floor(Date.now() / 1000) * 1000 };
  return { state, clock: () => state.now };
}

async function scheduleExists(name: string): Promise<boolean> {
  try {
    await executor.clients.scheduler.send(
      new GetScheduleCommand({ Name: name, GroupName: executor.scheduler.delayedScheduleGroup }),
    );
    return true;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return false;
    throw err;
  }
}

beforeEach(async () => {
  executor = await setupExecutor();
  ran = [];
});

describe('TaskClient.enqueue with runAt', () => {
  it('stores the task SCHEDULED and creates a one-time schedule to the FIFO queue', async () => {
    // Arrange
    const { clock, state } = fakeClock();
    const client = executor.client({ clock });
    const runAt = new Date(state.now + 10 * MINUTE + 500);

    // Act
    const result = await client.enqueue(remind, { note: 'x' }, { id: 'later-1', runAt });

    // Assert
    expect(result).toMatchObject({ created: true, sent: true });
    expect(result.record.status).toBe(TaskStatus.SCHEDULED);
    expect(result.record.runAt).toBe(runAt.getTime());
    expect(result.record.history.map((h) => h.event)).toEqual([AuditEvent.SCHEDULED]);
    const schedule = await executor.clients.scheduler.send(
      new GetScheduleCommand({
        Name: 'task.later-1',
        GroupName: executor.scheduler.delayedScheduleGroup,
      }),
    );
    // Rounded up to the second: Scheduler may be late, never early.
    const due = new Date(Math.ceil(runAt.getTime() / 1000) * 1000).toISOString().slice(0, 19);
    expect(schedule).toMatchObject({
      ScheduleExpression: `at(${due})`,
      ScheduleExpressionTimezone: 'UTC',
      ActionAfterCompletion: 'DELETE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: executor.queueArn,
        // The delayed group's own role, never the recurring one (ADR 0036).
        RoleArn: executor.scheduler.delayedSchedulerRoleArn,
        // An unkeyed task's group is its id in the unkeyed namespace (docs/adr/0032-parked-keys-lanes-and-groups.md).
        SqsParameters: { MessageGroupId: unkeyedGroup('later-1') },
        DeadLetterConfig: { Arn: executor.scheduler.scheduleDeadLetterArn },
        RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
      },
    });
    // The task's envelope, naming the record it is for (ADR 0063).
    expect(JSON.parse(schedule.Target?.Input ?? '')).toEqual({
      tasklane: 1,
      id: 'later-1',
      type: 'remind',
      createdAt: result.record.createdAt,
    });
    expect(await executor.queueDepth()).toBe(0);
  });

  it('does not run before runAt and runs once it is due, driven by the pump clock', async () => {
    // Arrange
    const { clock, state } = fakeClock();
    const client = executor.client({ clock });
    const pump = executor.pump({ clock });
    const worker = executor.worker([remind], { clock });
    const runAt = state.now + 10 * MINUTE;
    await client.enqueue(remind, { note: 'x' }, { id: 'timed', delay: 10 * MINUTE });

    // Act: one second short of runAt
    state.now = runAt - 1000;
    const early = await pump.tick();
    await executor.drain(worker);

    // Assert: nothing delivered, nothing ran
    expect(early.deliveries).toHaveLength(0);
    expect(ran).toEqual([]);
    expect((await client.get('timed'))?.status).toBe(TaskStatus.SCHEDULED);

    // Act: at runAt
    state.now = runAt;
    const due = await pump.tick();
    await executor.drain(worker);

    // Assert: delivered once, ran once, the one-time schedule deleted after completion
    expect(due.deliveries).toHaveLength(1);
    expect(due.deleted).toEqual(['task.timed']);
    expect(ran).toEqual(['timed']);
    const record = await client.get('timed');
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SCHEDULED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
    expect(await scheduleExists('task.timed')).toBe(false);
  });

  it('holds back a message that arrives early (clock skew) with a visibility delay', async () => {
    // Arrange: the pump's clock runs 5 s ahead of the worker's
    const { clock, state } = fakeClock();
    const client = executor.client({ clock });
    const pump = executor.pump({ clock: () => state.now + 5000 });
    const worker = executor.worker([remind], { clock });
    const runAt = state.now + 10 * MINUTE;
    await client.enqueue(remind, { note: 'x' }, { id: 'skewed', runAt: new Date(runAt) });
    state.now = runAt - 5000;
    await pump.tick();

    // Act
    const [message] = await executor.receive();
    const response = await worker.processBatch(message === undefined ? [] : [message]);

    // Assert: returned, not run, still SCHEDULED
    expect(message).toBeDefined();
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: message?.messageId }]);
    expect(ran).toEqual([]);
    expect((await client.get('skewed'))?.status).toBe(TaskStatus.SCHEDULED);

    // Act: once due, the same message runs it
    state.now = runAt;
    const again = await worker.processBatch(message === undefined ? [] : [message]);

    // Assert
    expect(again.batchItemFailures).toEqual([]);
    expect(ran).toEqual(['skewed']);
  });

  it('sends a runAt within the threshold at once, and the worker waits for it', async () => {
    const { clock, state } = fakeClock();
    const client = executor.client({ clock });
    const worker = executor.worker([remind], { clock });

    const result = await client.enqueue(remind, { note: 'x' }, { id: 'soon', delay: 30_000 });
    const [message] = await executor.receive();
    const early = await worker.processBatch(message === undefined ? [] : [message]);
    state.now += 30_000;
    const due = await worker.processBatch(message === undefined ? [] : [message]);

    expect(result.record.status).toBe(TaskStatus.PENDING);
    expect(result.record.runAt).toBe(state.now);
    expect(await scheduleExists('task.soon')).toBe(false);
    expect(early.batchItemFailures).toHaveLength(1);
    expect(due.batchItemFailures).toHaveLength(0);
    expect(ran).toEqual(['soon']);
  });

  it('enqueues a runAt in the past immediately', async () => {
    const client = executor.client();

    const result = await client.enqueue(
      remind,
      { note: 'x' },
      { id: 'past', runAt: new Date(Date.now() - MINUTE) },
    );

    expect(result.record.status).toBe(TaskStatus.PENDING);
    expect(result.record.runAt).toBeUndefined();
    expect(await executor.queueDepth()).toBe(1);
  });

  it('hashes a long or odd id into a valid schedule name', async () => {
    const client = executor.client();
    const id = `customer#42/${'x'.repeat(100)}`;

    await client.enqueue(remind, { note: 'x' }, { id, delay: 10 * MINUTE });

    const name = delayedScheduleName(id);
    expect(name).toMatch(/^task_[0-9a-f]{59}$/);
    expect(await scheduleExists(name)).toBe(true);
  });

  it('uses the ordering key as the message group', async () => {
    const client = executor.client();

    await client.enqueue(
      remind,
      { note: 'x' },
      { id: 'keyed', delay: 10 * MINUTE, orderingKey: 'k1' },
    );

    const schedule = await executor.clients.scheduler.send(
      new GetScheduleCommand({
        Name: 'task.keyed',
        GroupName: executor.scheduler.delayedScheduleGroup,
      }),
    );
    expect(schedule.Target?.SqsParameters?.MessageGroupId).toBe('k1');
  });

  it('returns the existing task for the same id, creating no second schedule', async () => {
    const client = executor.client();
    const first = await client.enqueue(remind, { note: 'x' }, { id: 'twice', delay: 10 * MINUTE });

    const second = await client.enqueue(remind, { note: 'x' }, { id: 'twice', delay: 20 * MINUTE });

    expect(second).toMatchObject({ created: false, sent: true });
    expect(second.record.runAt).toBe(first.record.runAt);
    expect(await client.schedules.list({ includeDelayed: true })).toHaveLength(1);
  });
});

describe('TaskClient.enqueue with runAt when the schedule cannot be created (crash safety)', () => {
  it('rolls back: throws ScheduleFailedError, keeps no live record and no schedule, and a retry works', async () => {
    // Arrange
    const logger = recordingLogger();
    const broken = executor.client({
      scheduler: failingScheduler({ name: 'Error', message: 'ThrottlingException' }),
      logger,
    });

    // Act
    const error = await broken
      .enqueue(remind, { note: 'x' }, { id: 'fragile', delay: 10 * MINUTE })
      .catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(ScheduleFailedError);
    expect((error as ScheduleFailedError).message).toContain('ThrottlingException (injected)');
    expect((error as ScheduleFailedError).message).toContain('enqueue again with the same id');
    expect(await broken.get('fragile')).toMatchObject({ status: TaskStatus.ROLLED_BACK });
    expect(await scheduleExists('task.fragile')).toBe(false);
    expect(logger.lines.map((l) => l.attributes.event)).toContain(AuditEvent.ROLLED_BACK);

    // Act: the caller retries with a healthy client
    const retried = await executor
      .client()
      .enqueue(remind, { note: 'x' }, { id: 'fragile', delay: 10 * MINUTE });

    // Assert
    expect(retried).toMatchObject({ created: true, sent: true });
    expect(retried.record.status).toBe(TaskStatus.SCHEDULED);
    expect(await scheduleExists('task.fragile')).toBe(true);
  });

  it('repairs a SCHEDULED record left without a schedule by a crash, on re-enqueue', async () => {
    // The process died after the write, before CreateSchedule
    const client = executor.client();
    const runAt = Date.now() + 10 * MINUTE;
    await executor.store.feature(RecordWrites).create({
      id: 'orphan',
      type: 'remind',
      payloadJson: '{"note":"x"}',
      payloadHash: payloadHash('remind', '{"note":"x"}'),
      maxAttempts: 3,
      timeoutMs: 30_000,
      messageGroupId: 'orphan',
      runAt,
      scheduled: true,
    });

    const again = await client.enqueue(
      remind,
      { note: 'x' },
      { id: 'orphan', runAt: new Date(runAt) },
    );

    expect(again).toMatchObject({ created: false, sent: true });
    expect(await scheduleExists('task.orphan')).toBe(true);
  });

  it('lets the sweeper repair an overdue SCHEDULED task by sending its message (ensureScheduled)', async () => {
    // A SCHEDULED task whose schedule never existed, now overdue
    const { clock, state } = fakeClock();
    const worker = executor.worker([remind], { clock });
    const store = new TaskStore({
      tableName: executor.tableName,
      dynamodb: executor.clients.dynamodb,
      logger: silentLogger,
      clock,
    });
    const { record } = await store.feature(RecordWrites).create({
      id: 'overdue',
      type: 'remind',
      payloadJson: '{"note":"x"}',
      payloadHash: 'h',
      maxAttempts: 3,
      timeoutMs: 30_000,
      messageGroupId: 'overdue',
      runAt: state.now + MINUTE,
      scheduled: true,
    });
    state.now += 2 * MINUTE;

    const outcome = await executor.delayed({ store, clock }).ensureScheduled(record);
    await executor.drain(worker);

    expect(outcome).toBe('sent');
    expect(ran).toEqual(['overdue']);
  });
});

describe('TaskClient.cancel of a delayed task', () => {
  it('deletes its schedule, marks it CANCELLED, and it never runs', async () => {
    const { clock, state } = fakeClock();
    const client = executor.client({ clock });
    const pump = executor.pump({ clock });
    const worker = executor.worker([remind], { clock });
    await client.enqueue(remind, { note: 'x' }, { id: 'called-off', delay: 10 * MINUTE });

    const cancelled = await client.cancel('called-off', 'no longer needed');
    state.now += 60 * MINUTE;
    const tick = await pump.tick();
    await executor.drain(worker);

    expect(cancelled.status).toBe(TaskStatus.CANCELLED);
    expect(await scheduleExists('task.called-off')).toBe(false);
    expect(tick.deliveries).toHaveLength(0);
    expect(ran).toEqual([]);
    expect((await client.get('called-off'))?.status).toBe(TaskStatus.CANCELLED);
  });

  it('still stops the run when the schedule fired before the cancel', async () => {
    // The firing is already in the queue
    const { clock, state } = fakeClock();
    const client = executor.client({ clock });
    const pump = executor.pump({ clock });
    const worker = executor.worker([remind], { clock });
    await client.enqueue(remind, { note: 'x' }, { id: 'too-late', delay: 10 * MINUTE });
    state.now += 10 * MINUTE;
    expect((await pump.tick()).deliveries).toHaveLength(1);

    await client.cancel('too-late');
    const drained = await executor.drain(worker);

    expect(drained.processed).toBe(1);
    expect(ran).toEqual([]);
    const record = await client.get('too-late');
    expect(record?.status).toBe(TaskStatus.CANCELLED);
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SCHEDULED,
      AuditEvent.CANCELLED,
    ]);
    expect(await executor.queueDepth()).toBe(0);
  });
});

describe('the schedule dead-letter queue', () => {
  it('receives a firing the pump could not deliver', async () => {
    // A schedule whose target queue does not exist
    const { clock, state } = fakeClock();
    const client = executor.client({
      clock,
      queueArn: `${executor.queueArn.replace(/\.fifo$/, '')}-gone.fifo`,
    });
    await client.enqueue(remind, { note: 'x' }, { id: 'lost', delay: 10 * MINUTE });
    state.now += 10 * MINUTE;

    const tick = await executor.pump({ clock }).tick();

    expect(tick.deliveries[0]?.error).toBeDefined();
    const out = await executor.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: executor.scheduler.scheduleDeadLetterQueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    expect(Number(out.Attributes?.ApproximateNumberOfMessages)).toBe(1);
  });
});
