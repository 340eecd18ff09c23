import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
import type { LifecycleEvent, TaskEventDetail } from '../../../src/events/lifecycle-event.js';
import type { EventPublisher } from '../../../src/events/publisher.js';
import { WorkerEvents } from '../../../src/events/worker-events.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { recordingLogger } from '../../helpers/executor.js';
import { FIXTURE_NOW, taskRecord } from '../../helpers/task-record.js';

/** Accepts or refuses every event, and keeps what it was given. */
function publisher(accept: boolean): EventPublisher & { seen: LifecycleEvent[] } {
  const seen: LifecycleEvent[] = [];
  return {
    seen,
    async publish(events) {
      seen.push(...events);
      return events.map(() => accept);
    },
  };
}

const succeeded = taskRecord({
  id: 'done',
  status: TaskStatus.SUCCEEDED,
  attempt: 1,
  finishedAt: FIXTURE_NOW,
});
const retried = taskRecord({
  id: 'again',
  status: TaskStatus.QUEUED,
  attempt: 1,
  lastError: { name: 'Error', message: 'x' },
});
/** The store's retry, as far as WorkerEvents.observe looks at it. */
const retryingStore = { retry: async () => retried } as unknown as TaskStore;
/** The stub ignores its arguments. */
const retryArgs = [] as unknown as Parameters<TaskStore['retry']>;

describe('EventBatch.flush', () => {
  it('holds the message of a refused terminal event, and calls the hook anyway', async () => {
    const hooked: TaskEventDetail[] = [];
    const events = new WorkerEvents(
      publisher(false),
      { onSucceeded: (d) => void hooked.push(d) },
      recordingLogger(),
    );
    const batch = events.batch();

    await batch.within('m1', async () => events.redelivered(succeeded));
    const held = await batch.flush();

    expect([...held]).toEqual(['m1']);
    expect(hooked.map((d) => d.taskId)).toEqual(['done']);
  });

  it('logs a refused Failed event in full instead of holding its message', async () => {
    const logger = recordingLogger();
    const events = new WorkerEvents(publisher(false), {}, logger);
    const store = events.observe(retryingStore);
    const batch = events.batch();

    await batch.within('m2', () => store.retry(...retryArgs));
    const held = await batch.flush();

    expect(held.size).toBe(0);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'lifecycle event not published',
        attributes: expect.objectContaining({
          detail: expect.objectContaining({ taskId: 'again' }),
        }),
      }),
    );
  });

  it('holds nothing when every event is accepted, and publishes them in one call', async () => {
    const accepting = publisher(true);
    const events = new WorkerEvents(accepting, {}, recordingLogger());
    const batch = events.batch();

    await batch.within('a', async () => events.redelivered(succeeded));
    await batch.within('b', async () => events.redelivered({ ...succeeded, id: 'done-2' }));
    const held = await batch.flush();

    expect(held.size).toBe(0);
    expect(accepting.seen.map((e) => e.detail.taskId)).toEqual(['done', 'done-2']);
  });

  it('ignores a record with no event (a non-terminal redelivery)', async () => {
    const accepting = publisher(true);
    const events = new WorkerEvents(accepting, {}, recordingLogger());
    const batch = events.batch();

    await batch.within('a', async () => events.redelivered(retried));
    await batch.flush();

    expect(accepting.seen).toEqual([]);
  });
});
