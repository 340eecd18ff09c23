import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { releaseDependents } from '../../src/dependencies/release.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { DependencyStore } from '../../src/store/dependency-store.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { testClients } from '../helpers/aws.js';
import { crashingBefore, dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { eventually, setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  executor = await setupExecutor();
});

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await executor.drain(executor.worker(dependencyTasks(newRuns()).all));
});

/** Counts the commands a client sends, by name. */
function counting<C extends DynamoDBClient | SQSClient>(client: C, counts: Map<string, number>): C {
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'count-commands' },
  );
  return client;
}

function sweeper() {
  return createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...executor.clients,
    logger: silentLogger,
    metrics: noopMetrics,
    releaseGraceMs: 0,
  });
}

describe('TaskClient.enqueueBatch with then', () => {
  it('creates the children and one task that starts after all of them, with their results', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    const children = ['c1', 'c2', 'c3', 'c4', 'c5'].map((name) => ({
      task: step,
      payload: { name },
    }));

    const batch = await client.enqueueFanIn(children, {
      // biome-ignore lint/suspicious/noThenProperty: the option is named `then`; never awaited.
      then: { task: step, payload: { name: 'join' } },
    });
    await executor.drain(executor.worker(all));

    expect(batch.fanIn?.record.status).toBe(TaskStatus.WAITING);
    expect(runs.order.at(-1)).toBe('join');
    expect(runs.parents.get('join')?.map((p) => p.result)).toEqual(
      ['c1', 'c2', 'c3', 'c4', 'c5'].map((name) => ({ name, done: true })),
    );
    expect((await client.get(batch.fanIn?.id ?? ''))?.status).toBe(TaskStatus.SUCCEEDED);
  });
});

describe('release under concurrency', () => {
  it('releases a fan-in task exactly once when its parents finish at once on several workers', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    const parents = await client.enqueueBatch(
      Array.from({ length: 12 }, (_, n) => ({ task: step, payload: { name: `p${n}` } })),
    );
    const ids = parents.flatMap((p) => (p.ok ? [p.id] : []));
    const join = await client.enqueue(step, { name: 'join' }, { dependsOn: ids });

    for (let n = 0; n < 4; n++) {
      const controller = new AbortController();
      const polling = executor
        .worker(all, { workerId: `w${n}` })
        .poll({ signal: controller.signal, waitTimeSeconds: 1, batchSize: 3 });
      stops.push(async () => {
        controller.abort();
        await polling;
      });
    }
    await eventually(
      async () => (await client.get(join.id))?.status === TaskStatus.SUCCEEDED,
      40_000,
    ).catch(async (err) => {
      throw new Error(`${err}: ${JSON.stringify(await client.get(join.id))}`);
    });

    const record = await client.get(join.id);
    expect(runs.order.filter((name) => name === 'join')).toHaveLength(1);
    expect(record?.history.filter((h) => h.event === AuditEvent.RELEASED)).toHaveLength(1);
    expect(record?.waitingOn).toBe(0);
    expect(record?.releasedBy).toHaveLength(ids.length - 1);
  });
});

describe('cost of a dependent', () => {
  it('enqueues with one transaction, and releases with one read and two writes', async () => {
    const { step, all } = dependencyTasks(newRuns());
    const client = executor.client();
    const parent = await client.enqueue(step, { name: 'parent' });
    const enqueueCounts = new Map<string, number>();
    const producer = executor.client({
      dynamodb: counting(testClients().dynamodb, enqueueCounts),
      sqs: counting(testClients().sqs, enqueueCounts),
    });
    await producer.enqueue(step, { name: 'child' }, { dependsOn: [parent.id] });
    const worker = executor.worker(all);
    const parentMessage = await executor.receive();
    const releaseCounts = new Map<string, number>();
    const counted = executor.worker(all, {
      dynamodb: counting(testClients().dynamodb, releaseCounts),
      sqs: counting(testClients().sqs, releaseCounts),
    });

    await executor.deliver(counted, parentMessage);
    await executor.drain(worker);

    expect(Object.fromEntries(enqueueCounts)).toEqual({ TransactWriteItemsCommand: 1 });
    // The claim and the terminal write, as for any task; then the release.
    expect(Object.fromEntries(releaseCounts)).toEqual({
      UpdateItemCommand: 4,
      GetItemCommand: 1,
      SendMessageBatchCommand: 1,
    });
  });
});

describe('sweep of interrupted releases', () => {
  it('releases a child whose parent finished but whose release was cut short', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    let childId: string | undefined;
    const crashing = executor.worker(all, { dynamodb: crashingBefore(() => childId) });
    const parent = await client.enqueue(step, { name: 'parent' });
    const child = await client.enqueue(step, { name: 'child' }, { dependsOn: [parent.id] });
    childId = child.id;

    await executor.drain(crashing);
    const afterCrash = await client.get(child.id);
    const report = await sweeper().run();
    const again = await releaseDependents((await client.get(parent.id)) ?? parent.record, {
      store: executor.store,
      logger: silentLogger,
    });
    await executor.drain(executor.worker(all));

    expect((await client.get(parent.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(afterCrash?.status).toBe(TaskStatus.WAITING);
    expect(report.released).toBe(1);
    expect(again.released).toHaveLength(0);
    expect(runs.order).toEqual(['parent', 'child']);
    expect((await client.get(child.id))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('leaves a finished parent out of the release partition once its dependents are released', async () => {
    const { step, all } = dependencyTasks(newRuns());
    const client = executor.client();
    const parent = await client.enqueue(step, { name: 'parent' });
    await client.enqueue(step, { name: 'child' }, { dependsOn: [parent.id] });

    await executor.drain(executor.worker(all));
    const pending: string[] = [];
    for await (const ids of executor.store
      .feature(DependencyStore)
      .pendingReleases(Date.now() + 1)) {
      pending.push(...ids);
    }

    expect(pending).not.toContain(parent.id);
    const succeeded = await client.list({ status: TaskStatus.SUCCEEDED, limit: 1000 });
    expect(succeeded.items.map((r) => r.id)).toContain(parent.id);
  });
});
