/**
 * A DEAD parent is purged only once the release of its dependents is done, as it is redriven
 * only then: deleting it first left them WAITING for a parent that no longer exists
 * (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { TaskStatus } from '../../src/core/constants.js';
import { TransitionRejectedError } from '../../src/core/errors.js';
import { purgeDead } from '../../src/store/purge.js';
import { testClients } from '../helpers/aws.js';
import { crashingBefore, dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
const { step, fail, all } = dependencyTasks(newRuns());

beforeAll(async () => {
  executor = await setupExecutor();
});

/** Kills `parentId` on a worker that "crashes" before releasing its dependent `childId`. */
async function dieWithReleasePending(parentId: string, childId: string): Promise<void> {
  const client = executor.client();
  await client.enqueue(step, { name: childId }, { id: childId, dependsOn: [parentId] });
  await executor.drain(executor.worker(all, { dynamodb: crashingBefore(() => childId) }));
  expect((await client.get(parentId))?.status).toBe(TaskStatus.DEAD);
  expect((await client.get(childId))?.status).toBe(TaskStatus.WAITING);
}

/**
 * A DynamoDB client that runs `meanwhile` once, just before its first BatchGetItem: the
 * moment between a purge's listing of the status index and its read of the records.
 */
function beforeFirstRead(meanwhile: () => Promise<void>): DynamoDBClient {
  const client = testClients().dynamodb;
  let ran = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'BatchGetItemCommand' && !ran) {
        ran = true;
        await meanwhile();
      }
      return next(args);
    },
    { step: 'initialize', name: 'between-list-and-read' },
  );
  return client;
}

describe('TaskStore.purge', () => {
  it('refuses a DEAD parent while the release of its dependents is pending', async () => {
    // Arrange
    await executor.client().enqueue(fail, { name: 'p1' }, { id: 'p1' });
    await dieWithReleasePending('p1', 'p1-child');
    const parent = await executor.store.get('p1');

    // Act
    const purge = await purgeDead(executor.store, parent as NonNullable<typeof parent>).catch(
      (err: unknown) => err,
    );

    // Assert
    expect(purge).toBeInstanceOf(TransitionRejectedError);
    expect((await executor.store.get('p1'))?.status).toBe(TaskStatus.DEAD);
    expect((await executor.store.get('p1-child'))?.status).toBe(TaskStatus.WAITING);
  });
});

describe('TaskClient.purge', () => {
  it("finishes the release of a DEAD parent's dependents before it deletes the parent", async () => {
    // Arrange: p2 dies once (released); between the purge's listing and its read, it is
    // redriven, a dependent registers on it, and it dies again, its release left pending.
    const client = executor.client();
    await client.enqueue(fail, { name: 'p2' }, { id: 'p2' });
    await executor.drain(executor.worker(all));
    const purging = executor.client({
      dynamodb: beforeFirstRead(async () => {
        await client.redrive({ ids: ['p2'] });
        await dieWithReleasePending('p2', 'p2-child');
      }),
    });

    // Act
    const result = await purging.purge({ status: TaskStatus.DEAD, olderThan: '0s', ids: ['p2'] });

    // Assert
    expect(result.purged).toEqual(['p2']);
    expect(await client.get('p2')).toBeUndefined();
    const child = await client.get('p2-child');
    expect(child?.status).toBe(TaskStatus.CANCELLED);
    expect(child?.history.at(-1)?.detail).toContain("parent 'p2' DEAD");
  });
});
