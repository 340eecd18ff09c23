/**
 * The sweeper's release pass (docs/adr/0030-dependencies.md): it finishes the releases a
 * crash cut short, within the sweep's budget, and sends what it releases like its other sends.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditEvent, TableSchema, TaskStatus } from '../../src/core/constants.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { testClients } from '../helpers/aws.js';
import { crashingBefore, dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let integrity: { keyId: string; endpoint: string | undefined };

beforeAll(async () => {
  const endpoint = process.env.AWS_ENDPOINT_URL;
  const kms = new KmsMacClient({ credentialsFrom: testClients().dynamodb, endpoint });
  integrity = { keyId: await kms.createHmacKey('release sweep'), endpoint };
});

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Runs `parentId` to SUCCEEDED on a worker that "crashes" before releasing `childId`. */
async function releaseCutShort(parentId: string, childId: string): Promise<void> {
  const { all } = dependencyTasks(newRuns());
  const worker = executor.worker(all, { dynamodb: crashingBefore(() => childId), integrity });
  await executor.drain(worker);
  expect((await executor.store.get(parentId))?.status).toBe(TaskStatus.SUCCEEDED);
  expect((await executor.store.get(childId))?.status).toBe(TaskStatus.WAITING);
}

describe('sweep: release pass', () => {
  it('reports budgetExhausted when its budget ends during the release pass', async () => {
    const { step } = dependencyTasks(newRuns());
    const client = executor.client({ integrity });
    await client.enqueue(step, { name: 'parent' }, { id: 'budget-parent' });
    await client.enqueue(
      step,
      { name: 'child' },
      { id: 'budget-child', dependsOn: ['budget-parent'] },
    );
    await releaseCutShort('budget-parent', 'budget-child');
    // The clock jumps past the budget when the pass lists the release partitions.
    let skew = 0;
    const dynamodb = testClients().dynamodb;
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> })
          .ExpressionAttributeValues;
        const pk = JSON.stringify(values?.[':pk'] ?? '');
        if (context.commandName === 'QueryCommand' && pk.includes('RELEASE#')) skew = 60_000;
        return next(args);
      },
      { step: 'initialize', name: 'late-release-pass' },
    );
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      dynamodb,
      logger: recordingLogger(),
      metrics: noopMetrics,
      clock: () => Date.now() + skew,
      budgetMs: 30_000,
      releaseGraceMs: 0,
      integrity,
    });

    const report = await sweeper.run();

    expect(report.budgetExhausted).toBe(true);
    expect((await executor.store.get('budget-child'))?.status).toBe(TaskStatus.WAITING);
  });

  it('does not send a released task whose record was tampered with, and audits it', async () => {
    const { step } = dependencyTasks(newRuns());
    const client = executor.client({ integrity });
    await client.enqueue(step, { name: 'parent' }, { id: 'tag-parent' });
    await client.enqueue(step, { name: 'child' }, { id: 'tag-child', dependsOn: ['tag-parent'] });
    await releaseCutShort('tag-parent', 'tag-child');
    await executor.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: executor.tableName,
        Key: marshall({ [TableSchema.PARTITION_KEY]: 'tag-child' }),
        UpdateExpression: 'SET #payload = :payload',
        ExpressionAttributeNames: { '#payload': 'payload' },
        ExpressionAttributeValues: marshall({ ':payload': '{"name":"evil"}' }),
      }),
    );
    const logger = recordingLogger();
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger,
      metrics: noopMetrics,
      releaseGraceMs: 0,
      integrity,
    });

    const report = await sweeper.run();

    expect(report.released).toBe(1);
    expect(report.integrityFailed).toBe(1);
    expect(report.sent).toBe(0);
    expect((await executor.store.get('tag-child'))?.status).toBe(TaskStatus.PENDING);
    expect(await executor.queueDepth()).toBe(0);
    const audits = logger.lines.filter(
      (l) =>
        l.attributes.event === AuditEvent.INTEGRITY_FAILED && l.attributes.taskId === 'tag-child',
    );
    expect(audits).toHaveLength(1);
  });
});
