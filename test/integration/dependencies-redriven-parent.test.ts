/**
 * A DEAD parent is redriven only once its release is done, so that no release cancels a
 * dependent for a death its parent no longer has (docs/adr/0031-dependency-fences.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError, TransitionRejectedError } from '../../src/core/errors.js';
import { RepairWrites } from '../../src/store/repair-writes.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { crashingBefore, dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** A task that fails for good on its first run and succeeds once redriven. */
function failsOnce(options: { park?: boolean } = {}) {
  const seen = new Set<string>();
  return defineTask(options.park === true ? 'failsOnceParked' : 'failsOnce', {
    schema: z.object({}),
    ...(options.park === true ? { onDead: 'park' as const } : {}),
    handler: (_payload, { taskId }) => {
      if (seen.has(taskId)) return { ok: true };
      seen.add(taskId);
      throw new PermanentError('first run fails');
    },
  });
}

/** Kills `parentId` on a worker that "crashes" before releasing `childId`. */
async function deadWithReleasePending(
  parentId: string,
  childId: string,
  options: { orderingKey?: string } = {},
) {
  const flaky = failsOnce({ park: options.orderingKey !== undefined });
  const { step, all } = dependencyTasks(newRuns());
  const client = executor.client();
  await client.enqueue(flaky, {}, { id: parentId, ...options });
  await client.enqueue(step, { name: 'child' }, { id: childId, dependsOn: [parentId] });
  const worker = executor.worker([flaky, ...all], { dynamodb: crashingBefore(() => childId) });
  await executor.drain(worker);
  expect((await client.get(parentId))?.status).toBe(TaskStatus.DEAD);
  expect((await client.get(childId))?.status).toBe(TaskStatus.WAITING);
  return { client, worker: executor.worker([flaky, ...all]) };
}

describe('redrive of a DEAD parent', () => {
  it('is refused while the release of its dependents is pending', async () => {
    await deadWithReleasePending('pending-parent', 'pending-child');
    const parent = await executor.store.get('pending-parent');

    const redrive = await executor.store
      .feature(RepairWrites)
      .redrive(parent as NonNullable<typeof parent>, 'too early')
      .catch((err: unknown) => err);

    expect(redrive).toBeInstanceOf(TransitionRejectedError);
    expect((await executor.store.get('pending-parent'))?.status).toBe(TaskStatus.DEAD);
    expect((await executor.store.get('pending-child'))?.status).toBe(TaskStatus.WAITING);
  });

  it('through TaskClient.redrive finishes the release first, then runs the parent again', async () => {
    const { client, worker } = await deadWithReleasePending('finish-parent', 'finish-child');

    const result = await client.redrive({ ids: ['finish-parent'] });
    const child = await client.get('finish-child');
    await executor.drain(worker);

    expect(result.redriven).toEqual(['finish-parent']);
    expect(child?.status).toBe(TaskStatus.CANCELLED);
    expect(child?.history.at(-1)?.detail).toContain("parent 'finish-parent' DEAD");
    expect((await client.get('finish-parent'))?.status).toBe(TaskStatus.SUCCEEDED);
    expect((await client.get('finish-child'))?.status).toBe(TaskStatus.CANCELLED);
  });

  it('of a parked parent finishes the release first, then redrives it in place', async () => {
    const { client, worker } = await deadWithReleasePending('parked-parent', 'parked-child', {
      orderingKey: 'parked-key',
    });
    expect((await client.get('parked-parent'))?.parkedKey).toBe('parked-key');

    const result = await client.redrive({ ids: ['parked-parent'] });
    const child = await client.get('parked-child');
    await executor.drain(worker);

    expect(result.redriven).toEqual(['parked-parent']);
    expect(child?.status).toBe(TaskStatus.CANCELLED);
    expect((await client.get('parked-parent'))?.status).toBe(TaskStatus.SUCCEEDED);
  });
});
