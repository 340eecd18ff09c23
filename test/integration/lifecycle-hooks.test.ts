import { CreateEventBusCommand } from '@aws-sdk/client-eventbridge';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import {
  type LifecycleEvent,
  LifecycleEventType,
  type TaskEventDetail,
} from '../../src/events/lifecycle-event.js';
import { EventBridgePublisher, type EventPublisher } from '../../src/events/publisher.js';
import { EVENT_RETRY_SECONDS } from '../../src/events/worker-config.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import type { Worker } from '../../src/worker/create-worker.js';
import { testEventBridge, uniqueName } from '../helpers/aws.js';
import {
  eventually,
  recordingLogger,
  setupExecutor,
  silentLogger,
  type TestExecutor,
} from '../helpers/executor.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** A publisher that keeps what it is given, and refuses the first `refuse` calls. */
function recorder(refuse = 0): EventPublisher & { calls: LifecycleEvent[][] } {
  const calls: LifecycleEvent[][] = [];
  return {
    calls,
    async publish(events) {
      calls.push([...events]);
      return events.map(() => calls.length > refuse);
    },
  };
}

/** Drains the queue until `done` holds, waiting for returned messages to come back. */
async function drainUntil(worker: Worker, done: () => Promise<boolean>, timeoutMs = 30_000) {
  await eventually(async () => {
    await executor.drain(worker);
    return done();
  }, timeoutMs);
}

const succeeds = defineTask('hooks-ok', { schema: z.object({}), handler: () => 'fine' });
let flakyRuns = 0;
const flaky = defineTask('hooks-flaky', {
  schema: z.object({}),
  retry: { maxAttempts: 2, baseDelayMs: 100 },
  handler: () => {
    flakyRuns++;
    if (flakyRuns === 1) throw new Error('once');
  },
});
const doomed = defineTask('hooks-doomed', {
  schema: z.object({}),
  handler: () => {
    throw new PermanentError('never');
  },
});

describe('createWorker hooks', () => {
  it('calls onSucceeded, onFailed, onDead and onCancelled with the event detail', async () => {
    const seen: [string, TaskEventDetail][] = [];
    const hook = (kind: string) => (detail: TaskEventDetail) => {
      seen.push([kind, detail]);
    };
    const worker = executor.worker([succeeds, flaky, doomed], {
      onSucceeded: hook('succeeded'),
      onFailed: hook('failed'),
      onDead: hook('dead'),
      onCancelled: hook('cancelled'),
    });
    const client = executor.client();
    const cancelled = await client.enqueue(succeeds, {});
    await client.cancel(cancelled.id);
    const ok = await client.enqueue(succeeds, {});
    const retried = await client.enqueue(flaky, {});
    const dead = await client.enqueue(doomed, {});

    await drainUntil(
      worker,
      async () => (await executor.store.get(retried.id))?.status === TaskStatus.SUCCEEDED,
    );

    const kinds = (id: string) => seen.filter(([, d]) => d.taskId === id).map(([kind]) => kind);
    expect(kinds(ok.id)).toEqual(['succeeded']);
    expect(kinds(retried.id)).toEqual(['failed', 'succeeded']);
    expect(kinds(dead.id)).toEqual(['dead']);
    expect(kinds(cancelled.id)).toEqual(['cancelled']);
  });

  it('calls onDead when a delivery finds a lease that ran out on the final attempt', async () => {
    const once = defineTask('hooks-once', {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: () => 'never here',
    });
    const dead: TaskEventDetail[] = [];
    const worker = executor.worker([once], { onDead: (detail) => void dead.push(detail) });
    const task = await executor.client().enqueue(once, {});
    // A worker claims the final attempt and dies; its message is still in the queue.
    const seen = await executor.store.get(task.id);
    if (seen === undefined) throw new Error('expected the record');
    await executor.store.claim(seen, { workerId: 'crashed', leaseMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));

    await executor.drain(worker);

    expect((await executor.store.get(task.id))?.status).toBe(TaskStatus.DEAD);
    expect(dead).toEqual([
      expect.objectContaining({
        taskId: task.id,
        status: TaskStatus.DEAD,
        attempt: 1,
        deadReason: 'lease expired on the final attempt',
      }),
    ]);
  });

  it('logs a hook’s error and still finishes the task', async () => {
    const logger = recordingLogger();
    const worker = executor.worker([succeeds], {
      logger,
      onSucceeded: () => {
        throw new Error('hook broke');
      },
    });
    const task = await executor.client().enqueue(succeeds, {});

    await executor.drain(worker);

    expect((await executor.store.get(task.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(await executor.queueDepth()).toBe(0);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'lifecycle hook failed; the task is not affected',
      }),
    );
  });
});

describe('createWorker events', () => {
  it('publishes each batch’s events in one call', async () => {
    const publisher = recorder();
    const worker = executor.worker([succeeds], { events: { publisher } });
    let batches = 0;
    const counting: Worker = {
      ...worker,
      processBatch: (records, options) => {
        batches++;
        return worker.processBatch(records, options);
      },
    };
    await executor
      .client()
      .enqueueBatch(Array.from({ length: 10 }, () => ({ task: succeeds, payload: {} })));

    const { processed } = await executor.drain(counting);

    expect(processed).toBe(10);
    expect(publisher.calls.flat()).toHaveLength(10);
    expect(publisher.calls).toHaveLength(batches);
  });

  it('hands back a message whose terminal event was refused, and publishes it again from the record', async () => {
    let runs = 0;
    const counted = defineTask('hooks-counted', {
      schema: z.object({}),
      handler: () => {
        runs++;
      },
    });
    const publisher = recorder(1);
    const worker = executor.worker([counted], { events: { publisher }, logger: silentLogger });
    const task = await executor.client().enqueue(counted, {});

    const first = await executor.drain(worker);
    const afterFirst = await executor.store.get(task.id);
    await drainUntil(
      worker,
      async () => publisher.calls.length >= 2,
      (EVENT_RETRY_SECONDS + 20) * 1000,
    );

    expect(first.failed).toBe(1);
    expect(afterFirst?.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toBe(1);
    expect(publisher.calls.map((call) => call.map((e) => [e.detailType, e.detail.taskId]))).toEqual(
      [[[LifecycleEventType.SUCCEEDED, task.id]], [[LifecycleEventType.SUCCEEDED, task.id]]],
    );
    expect(await executor.queueDepth()).toBe(0);
  }, 60_000);
});

describe('EventBridgePublisher.publish', () => {
  it('sends 12 events to a bus in two PutEvents calls and reports each accepted', async () => {
    const client = testEventBridge();
    const bus = uniqueName('bus');
    await client.send(new CreateEventBusCommand({ Name: bus }));
    let calls = 0;
    client.middlewareStack.add(
      (next) => async (args) => {
        calls++;
        return next(args);
      },
      { step: 'initialize' },
    );
    const publisher = new EventBridgePublisher({
      client,
      eventBus: bus,
      source: 'tasklane.test',
      logger: silentLogger,
    });
    const event = (i: number): LifecycleEvent => ({
      detailType: LifecycleEventType.SUCCEEDED,
      detail: { taskId: `t${i}` } as TaskEventDetail,
    });

    const accepted = await publisher.publish(Array.from({ length: 12 }, (_, i) => event(i)));

    expect(accepted).toEqual(Array(12).fill(true));
    expect(calls).toBe(2);
    client.destroy();
  });

  it('reports every event refused when the call fails, without throwing', async () => {
    const client = testEventBridge({ maxAttempts: 1 });
    const logger = recordingLogger();
    const publisher = new EventBridgePublisher({
      client,
      eventBus: uniqueName('missing-bus'),
      source: 'tasklane.test',
      logger,
    });

    const accepted = await publisher.publish([
      { detailType: LifecycleEventType.DEAD, detail: { taskId: 'a' } as TaskEventDetail },
    ]);

    expect(accepted).toEqual([false]);
    expect(logger.lines.map((l) => l.message)).toContain('PutEvents failed');
    client.destroy();
  });
});
