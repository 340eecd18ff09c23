/**
 * A producer's writes keep their history entries apart from the history workers, the
 * sweeper and operators write, which a producer's grant may not name
 * (docs/adr/0039-operator-audit.md).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { PRODUCER_HISTORY } from '../../src/store/history.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

const schema = z.object({ n: z.number() });
const idle = defineTask('idle', { schema, handler: () => 'done' });
const broken = defineTask('broken', {
  schema,
  retry: { maxAttempts: 1 },
  handler: () => {
    throw new PermanentError('always fails');
  },
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const events = (history: readonly { event: string }[]) => history.map((h) => h.event);

describe('TaskClient.cancel', () => {
  it("writes its entry to the producer's list, leaving the stored history as it was", async () => {
    const client = executor.client();
    const task = await client.enqueue(idle, { n: 1 });
    const before = await rawItem(executor, task.id);

    const cancelled = await client.cancel(task.id, 'not needed');

    const after = await rawItem(executor, task.id);
    expect(after.history).toEqual(before.history);
    expect(after[PRODUCER_HISTORY]).toHaveLength(1);
    expect(cancelled.status).toBe(TaskStatus.CANCELLED);
    expect(events(cancelled.history)).toEqual([AuditEvent.SUBMITTED, AuditEvent.CANCELLED]);
    expect((await client.get(task.id))?.history.at(-1)).toMatchObject({
      event: AuditEvent.CANCELLED,
      detail: 'not needed',
    });
  });
});

describe("the producer's history list", () => {
  it('is read in time order with the stored history, through a redrive and a second death', async () => {
    const client = executor.client();
    const task = await client.enqueue(broken, { n: 1 });
    await executor.drain(executor.worker([broken]));

    await client.redrive({ ids: [task.id] });
    await executor.drain(executor.worker([broken]));
    const item = await rawItem(executor, task.id);
    await putRawItem(executor, {
      ...item,
      [PRODUCER_HISTORY]: [{ e: 'cr', t: (item.createdAt as number) + 1, a: 1, d: 'stop' }],
    });

    const record = await client.get(task.id);
    expect(events(record?.history ?? [])).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CANCEL_REQUESTED,
      AuditEvent.CLAIMED,
      AuditEvent.DEAD,
      AuditEvent.REDRIVEN,
      AuditEvent.CLAIMED,
      AuditEvent.DEAD,
    ]);
  });

  it('shows only the events a producer writes: a claim or a success written there is ignored', async () => {
    const client = executor.client();
    const task = await client.enqueue(idle, { n: 1 });
    const item = await rawItem(executor, task.id);
    const at = (item.createdAt as number) + 1;

    await putRawItem(executor, {
      ...item,
      [PRODUCER_HISTORY]: [
        { e: 'c', t: at, a: 1, w: 'forged' },
        { e: 'ok', t: at + 1, a: 1 },
      ],
    });

    expect(events((await client.get(task.id))?.history ?? [])).toEqual([AuditEvent.SUBMITTED]);
  });
});
