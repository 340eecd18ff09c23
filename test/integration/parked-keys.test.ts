import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

const KEY = 'account-42';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/**
 * Two task types that trace their runs; a name in `failing` fails permanently (so it dies on
 * its first attempt). `parking` (one attempt) parks its key on death, `plain` keeps the default.
 */
function tracedTypes() {
  const trace: string[] = [];
  const failing = new Set<string>();
  const handler = async ({ name }: { name: string }) => {
    trace.push(name);
    if (failing.has(name)) throw new PermanentError(`${name} is broken`);
  };
  const schema = z.object({ name: z.string() });
  const retry = { maxAttempts: 1 };
  const parking = defineTask('parking-step', { schema, handler, retry, onDead: 'park' });
  const plain = defineTask('plain-step', { schema, handler });
  return { trace, failing, parking, plain };
}

describe('onDead: park', () => {
  it('parks the key: later tasks of the key wait without being received or attempted', async () => {
    // Arrange
    const { trace, failing, parking } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    for (const name of ['A', 'B', 'C']) {
      await client.enqueue(parking, { name }, { id: name, orderingKey: KEY });
    }
    await client.enqueue(parking, { name: 'other' }, { id: 'other', orderingKey: 'elsewhere' });
    const worker = executor.worker([parking]);

    // Act
    await executor.drain(worker);
    await executor.drain(worker);

    // Assert
    expect(trace.sort()).toEqual(['A', 'other']);
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((id) => client.get(id)));
    expect(a).toMatchObject({ status: TaskStatus.DEAD, parkedKey: KEY });
    for (const waiting of [b, c]) {
      expect(waiting).toMatchObject({ status: TaskStatus.PENDING, attempt: 0 });
      expect(waiting?.history.some((h) => h.event === AuditEvent.CLAIMED)).toBe(false);
    }
    const parked = await client.parkedKeys();
    expect(parked.map((p) => [p.orderingKey, p.task.id])).toEqual([[KEY, 'A']]);
    expect(parked[0]?.messageSentAt).toBeGreaterThan(0);
    expect(await executor.queueDepth()).toBe(3);
  });

  it('redrive({ orderingKey }) runs the dead task first, then the rest in enqueue order', async () => {
    // Arrange
    const { trace, failing, parking, plain } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    await client.enqueue(parking, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueueBatch([
      { task: plain, payload: { name: 'B' }, options: { id: 'B', orderingKey: KEY } },
      { task: parking, payload: { name: 'C' }, options: { id: 'C', orderingKey: KEY } },
    ]);
    const worker = executor.worker([parking, plain]);
    await executor.drain(worker);
    failing.delete('A');

    // Act
    const result = await client.redrive({ orderingKey: KEY });
    await executor.drain(worker);

    // Assert
    expect(result.redriven).toEqual(['A']);
    expect(trace).toEqual(['A', 'A', 'B', 'C']);
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((id) => client.get(id)));
    expect(a).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(a?.parkedKey).toBeUndefined();
    expect(b).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(c).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(await client.parkedKeys()).toEqual([]);
    expect(await executor.queueDepth()).toBe(0);
  });

  it('parks again when the redriven task dies again', async () => {
    // Arrange
    const { trace, failing, parking } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    await client.enqueue(parking, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueue(parking, { name: 'B' }, { id: 'B', orderingKey: KEY });
    const worker = executor.worker([parking]);
    await executor.drain(worker);

    // Act
    await client.redrive({ orderingKey: KEY });
    await executor.drain(worker);

    // Assert
    expect(trace).toEqual(['A', 'A']);
    expect(await client.get('A')).toMatchObject({ status: TaskStatus.DEAD, parkedKey: KEY });
    expect(await client.get('B')).toMatchObject({ status: TaskStatus.PENDING, attempt: 0 });
    expect((await client.parkedKeys()).map((p) => p.task.id)).toEqual(['A']);
  });

  it('releaseKey gives up on the dead task and lets the rest proceed in order', async () => {
    // Arrange
    const { trace, failing, parking } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    for (const name of ['A', 'B', 'C']) {
      await client.enqueue(parking, { name }, { id: name, orderingKey: KEY });
    }
    const worker = executor.worker([parking]);
    await executor.drain(worker);

    // Act
    const released = await client.releaseKey(KEY);
    await executor.drain(worker);

    // Assert
    expect(released).toEqual({ orderingKey: KEY, taskId: 'A', taskIds: ['A'], released: true });
    expect(trace).toEqual(['A', 'B', 'C']);
    const a = await client.get('A');
    expect(a).toMatchObject({ status: TaskStatus.DEAD });
    expect(a?.parkedKey).toBeUndefined();
    expect(a?.history.at(-1)?.event).toBe(AuditEvent.KEY_RELEASED);
    expect(await client.get('C')).toMatchObject({ status: TaskStatus.SUCCEEDED });
    expect(await client.parkedKeys()).toEqual([]);
    expect(await executor.queueDepth()).toBe(0);
  });

  it('releaseKey leaves a key that is not parked as it is', async () => {
    // Arrange
    const client = executor.client();

    // Act
    const released = await client.releaseKey('never-parked');

    // Assert
    expect(released).toEqual({
      orderingKey: 'never-parked',
      taskId: undefined,
      taskIds: [],
      released: false,
    });
  });
});

describe("onDead: 'release' (the default)", () => {
  it('lets the key’s later tasks run at once when a task dies', async () => {
    // Arrange
    const { trace, failing, plain } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    for (const name of ['A', 'B']) {
      await client.enqueue(plain, { name }, { id: name, orderingKey: KEY });
    }

    // Act
    await executor.drain(executor.worker([plain]));

    // Assert
    expect(trace).toEqual(['A', 'B']);
    const a = await client.get('A');
    expect(a).toMatchObject({ status: TaskStatus.DEAD });
    expect(a?.parkedKey).toBeUndefined();
    expect(a?.onDead).toBeUndefined();
    expect(await client.parkedKeys()).toEqual([]);
  });

  it('holds a mixed key: a default-type task waits behind a parking task that died', async () => {
    // Arrange
    const { trace, failing, parking, plain } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    await client.enqueue(parking, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueue(plain, { name: 'B' }, { id: 'B', orderingKey: KEY });

    // Act
    await executor.drain(executor.worker([parking, plain]));

    // Assert
    expect(trace).toEqual(['A']);
    expect(await client.get('B')).toMatchObject({ status: TaskStatus.PENDING, attempt: 0 });
  });
});

describe('onDead: park, after a crash', () => {
  it('parks the key when the sweeper expires the final attempt, once the message returns', async () => {
    // Arrange: A's worker claimed its last attempt and vanished; its message comes back soon.
    const { trace, parking } = tracedTypes();
    const client = executor.client();
    await client.enqueue(parking, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueue(parking, { name: 'B' }, { id: 'B', orderingKey: KEY });
    await executor.receive({ visibilityTimeout: 2 });
    const seen = await executor.store.get('A');
    if (seen === undefined) throw new Error('A was not written');
    await executor.store.claim({ ...seen }, { workerId: 'crashed', leaseMs: 1 });
    // RUNNING is not in the status index (ADR 0052): the running scan is what finds A before
    // its message returns (without it, the returning message's claim declares A DEAD).
    const sweeper = executor.sweeper({ scanRunning: true, clock: () => Date.now() + 60_000 });

    // Act
    const swept = await sweeper.run();
    await eventually(async () => (await executor.drain(executor.worker([parking]))).processed > 0);

    // Assert
    expect(swept).toMatchObject({ killed: 1 });
    expect(trace).toEqual([]);
    expect(await client.get('A')).toMatchObject({ status: TaskStatus.DEAD, parkedKey: KEY });
    expect(await client.get('B')).toMatchObject({ status: TaskStatus.PENDING, attempt: 0 });
    expect((await client.parkedKeys()).map((p) => p.task.id)).toEqual(['A']);
  });
});

describe('sweep, with a parked key', () => {
  it('re-sends old PENDING tasks, but not the waiting tasks of a parked key', async () => {
    // Arrange
    const { failing, parking, plain } = tracedTypes();
    failing.add('A');
    const client = executor.client();
    await client.enqueue(parking, { name: 'A' }, { id: 'A', orderingKey: KEY });
    await client.enqueue(parking, { name: 'B' }, { id: 'B', orderingKey: KEY });
    await executor.drain(executor.worker([parking]));
    await client.enqueue(plain, { name: 'C' }, { id: 'C', orderingKey: 'not-parked' });
    const sweeper = executor.sweeper({ queuedOverdueMs: 1, clock: () => Date.now() + 60_000 });

    // Act
    const swept = await sweeper.run();

    // Assert: a sent task stays PENDING until claimed (ADR 0020); C is sent again and noted,
    // B waits behind its parked key's held message and is left alone.
    expect(swept).toMatchObject({ sent: 1 });
    expect(await client.get('C')).toMatchObject({ status: TaskStatus.PENDING, resends: 1 });
    expect(await client.get('B')).toMatchObject({
      status: TaskStatus.PENDING,
      generation: 1,
      resends: 0,
    });
  });
});
