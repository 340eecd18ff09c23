/**
 * A delayed enqueue that could not create its schedule moves its record to ROLLED_BACK
 * instead of deleting it (docs/adr/0015-rollback-moves-instead-of-deleting.md): the record
 * stays until its TTL, never runs, and a later enqueue of the id replaces it.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../../src/core/constants.js';
import { ScheduleFailedError } from '../../src/core/errors.js';
import { taskMessage } from '../../src/core/message.js';
import type { TaskRecord } from '../../src/core/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { failingScheduler } from '../helpers/failing-commands.js';
import { rawItem } from '../helpers/raw-item.js';

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

/** A delayed enqueue of `id` whose schedule cannot be created; returns the record left. */
async function rolledBack(id: string, clock: () => number): Promise<TaskRecord> {
  const error = await executor
    .client({ scheduler: failingScheduler(), clock })
    .enqueue(remind, { note: id }, { id, delay: 10 * MINUTE })
    .catch((err: unknown) => err);
  expect(error).toBeInstanceOf(ScheduleFailedError);
  const record = await executor.client().get(id);
  if (record === undefined) throw new Error(`no record ${id}`);
  return record;
}

beforeEach(async () => {
  executor = await setupExecutor();
  ran = [];
});

describe('TaskClient.enqueue with runAt, rolled back', () => {
  it('leaves a ROLLED_BACK record, with the rollback in its history and the retention TTL', async () => {
    // Arrange
    const { state, clock } = fakeClock();

    // Act
    const record = await rolledBack('dentist', clock);

    // Assert
    expect(record).toMatchObject({ status: TaskStatus.ROLLED_BACK, scheduleConfirmed: false });
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SCHEDULED,
      AuditEvent.ROLLED_BACK,
    ]);
    expect(record.history.at(-1)?.detail).toContain('Rate exceeded (injected)');
    const item = await rawItem(executor, 'dentist');
    expect(item[TableSchema.TTL_ATTRIBUTE]).toBe(
      Math.floor((state.now + Defaults.RETENTION_MS) / 1000),
    );
    expect(await executor.client().listByStatus(TaskStatus.ROLLED_BACK)).toMatchObject({
      items: [{ id: 'dentist' }],
    });
  });

  it('is replaced by a later enqueue of the same id, which runs exactly once', async () => {
    // Arrange
    const { state, clock } = fakeClock();
    await rolledBack('haircut', clock);
    const client = executor.client({ clock });
    const pump = executor.pump({ clock });
    const worker = executor.worker([remind], { clock });

    // Act
    const again = await client.enqueue(
      remind,
      { note: 'haircut' },
      { id: 'haircut', delay: 10 * MINUTE },
    );
    state.now += 10 * MINUTE;
    await pump.tick();
    await executor.drain(worker);
    await pump.tick();
    await executor.drain(worker);

    // Assert
    expect(again).toMatchObject({ created: true, sent: true });
    expect(again.record.history.map((h) => h.event)).toEqual([AuditEvent.SCHEDULED]);
    expect(ran).toEqual(['haircut']);
    const record = await client.get('haircut');
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SCHEDULED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('acknowledges a late firing of the rolled-back task without running it', async () => {
    // Arrange: the schedule's delete failed and it fires after the rollback
    const { clock } = fakeClock();
    const record = await rolledBack('plumber', clock);
    await executor.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: executor.queueUrl, ...taskMessage(record) }),
    );
    const logger = recordingLogger();
    const worker = executor.worker([remind], { clock, logger });

    // Act
    const drained = await executor.drain(worker);

    // Assert
    expect(drained).toEqual({ processed: 1, failed: 0 });
    expect(ran).toEqual([]);
    expect(await executor.queueDepth()).toBe(0);
    expect(await executor.client().get('plumber')).toEqual(record);
    expect(logger.lines.map((l) => l.attributes)).toContainEqual(
      expect.objectContaining({
        event: AuditEvent.DUPLICATE_DROPPED,
        taskId: 'plumber',
        detail: `already ${TaskStatus.ROLLED_BACK}`,
      }),
    );
  });

  it('is not cancelled, and wait() returns it as final', async () => {
    // Arrange
    const { clock } = fakeClock();
    await rolledBack('vet', clock);
    const client = executor.client();

    // Act
    const cancelled = await client.cancel('vet').catch((err: unknown) => err);
    const waited = await client.wait('vet', { timeoutMs: 5000 });

    // Assert
    expect(cancelled).toBeInstanceOf(Error);
    expect((cancelled as Error).name).toBe('TransitionRejectedError');
    expect(waited.status).toBe(TaskStatus.ROLLED_BACK);
  });
});
