import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import type { LifecycleEvent } from '../../src/events/lifecycle-event.js';
import type { EventPublisher } from '../../src/events/publisher.js';
import { ParkedKeys } from '../../src/store/parked-keys.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const entry = defineTask('ledger.line', {
  schema: z.object({ ok: z.boolean() }),
  retry: { maxAttempts: 1 },
  onDead: 'park',
  handler: ({ ok }) => {
    if (!ok) throw new PermanentError('line rejected');
  },
});

/** A publisher whose first `refusals` PutEvents calls are refused, entry by entry. */
function refusingPublisher(refusals: number) {
  const accepted: LifecycleEvent[] = [];
  let calls = 0;
  const publisher: EventPublisher = {
    publish: async (events) => {
      calls += 1;
      if (calls <= refusals) return events.map(() => false);
      accepted.push(...events);
      return events.map(() => true);
    },
  };
  return { publisher, accepted };
}

/** Brings the held message back at once, as the end of its 12-hour hold would. */
async function returnHeldMessage(key: string) {
  const park = await executor.store.feature(ParkedKeys).get(key);
  await executor.clients.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: executor.queueUrl,
      ReceiptHandle: park?.receiptHandle,
      VisibilityTimeout: 0,
    }),
  );
}

describe('lifecycle events of parked tasks', () => {
  it('publishes a refused Dead event when the held message comes back', async () => {
    const { publisher, accepted } = refusingPublisher(1);
    const worker = executor.worker([entry], { events: { publisher } });
    await executor.client().enqueue(entry, { ok: false }, { id: 'line-1', orderingKey: 'book-1' });
    await executor.drain(worker);

    await returnHeldMessage('book-1');
    await executor.drain(worker);

    const dead = accepted.filter((e) => e.detail.taskId === 'line-1');
    expect(dead.map((e) => e.detailType)).toEqual(['Tasklane Task Dead']);
    expect(await executor.store.get('line-1')).toMatchObject({
      status: TaskStatus.DEAD,
      parkedKey: 'book-1',
    });
  });

  it('publishes a refused Dead event when the key is released', async () => {
    const { publisher, accepted } = refusingPublisher(1);
    const worker = executor.worker([entry], { events: { publisher } });
    await executor.client().enqueue(entry, { ok: false }, { id: 'line-2', orderingKey: 'book-2' });
    await executor.drain(worker);

    await executor.client().releaseKey('book-2');
    await executor.drain(worker);

    expect(accepted.filter((e) => e.detail.taskId === 'line-2')).toHaveLength(1);
  });
});
