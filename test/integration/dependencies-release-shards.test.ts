/**
 * A rolling raise of `statusShards` (docs/status-index.md): producers still on the old count
 * pick a parent's release partition, workers and the sweeper on the new one finish it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TaskStatus } from '../../src/core/constants.js';
import { DependencyStore } from '../../src/store/dependency-store.js';
import { statusShard } from '../../src/store/record.js';
import { TaskStore } from '../../src/store/task-store.js';
import { dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';
import { rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** An id whose shard among 8 is not 0, the only shard of a producer on 1. */
function idOffShardZero(prefix: string): string {
  let n = 0;
  while (statusShard(`${prefix}-${n}`, 8) === 0) n++;
  return `${prefix}-${n}`;
}

describe('DependencyStore.finishRelease across shard counts', () => {
  it('files a DEAD parent back under its DEAD partition when producers use fewer shards', async () => {
    const { fail, step, all } = dependencyTasks(newRuns());
    const parentId = idOffShardZero('shards-parent');
    const producer = executor.client({ statusShards: 1 });
    await producer.enqueue(fail, { name: 'parent' }, { id: parentId });
    await producer.enqueue(step, { name: 'child' }, { id: 'shards-child', dependsOn: [parentId] });

    await executor.drain(executor.worker(all, { statusShards: 8 }));

    const reader = executor.client({ statusShards: 8 });
    expect((await rawItem(executor, parentId))?.statusShard).toBe(
      `DEAD#${statusShard(parentId, 8)}`,
    );
    expect((await reader.get('shards-child'))?.status).toBe(TaskStatus.CANCELLED);
    const dead = await reader.listByStatus(TaskStatus.DEAD);
    expect(dead.items.map((t) => t.id)).toContain(parentId);
  });

  it('leaves no pending release for the sweeper to run again', async () => {
    const { fail, step, all } = dependencyTasks(newRuns());
    const parentId = idOffShardZero('swept-parent');
    const producer = executor.client({ statusShards: 1 });
    await producer.enqueue(fail, { name: 'parent' }, { id: parentId });
    await producer.enqueue(step, { name: 'child' }, { id: 'swept-child', dependsOn: [parentId] });
    const sweeperStore = new TaskStore({
      tableName: executor.tableName,
      dynamodb: executor.clients.dynamodb,
      logger: silentLogger,
      statusShards: 8,
    });

    await executor.drain(executor.worker(all, { statusShards: 8 }));

    const pending: string[] = [];
    for await (const ids of sweeperStore.feature(DependencyStore).pendingReleases(Date.now() + 1)) {
      pending.push(...ids);
    }
    expect(pending).not.toContain(parentId);
  });
});
