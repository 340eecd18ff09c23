import { createServer } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ConfigurationError } from '../../src/core/errors.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';

const ping = defineTask('ping', { schema: z.object({ n: z.number() }), handler: () => undefined });
const endpoint = process.env.AWS_ENDPOINT_URL ?? '';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** What a promise rejected with. */
function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

/** A localhost port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, 'localhost', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

describe('TaskClient.enqueue with a wrong queue URL', () => {
  it('throws ConfigurationError naming the queue and endpoint, not sent: false', async () => {
    const queueUrl = `${endpoint}/000000000000/no-such-queue.fifo`;
    const client = executor.client({ queueUrl });

    const error = await rejection(client.enqueue(ping, { n: 1 }, { id: 'wrong-queue' }));

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ resource: queueUrl, endpoint });
    expect((error as Error).message).toContain(`queue '${queueUrl}' does not exist at ${endpoint}`);
    expect((error as Error).message).toContain("Task 'wrong-queue' is stored PENDING");
    expect((error as ConfigurationError).cause).toMatchObject({ name: 'QueueDoesNotExist' });
  });

  it('leaves the record PENDING, which the sweeper sends once the configuration is right', async () => {
    const wrong = executor.client({ queueUrl: `${endpoint}/000000000000/no-such-queue.fifo` });
    await rejection(wrong.enqueue(ping, { n: 1 }, { id: 'held' }));
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: silentLogger,
      pendingAgeMs: 0,
    });

    const before = await executor.client().get('held');
    const report = await sweeper.run();
    const after = await executor.client().get('held');

    expect(before?.status).toBe(TaskStatus.PENDING);
    expect(report.sent).toBe(1);
    expect(after?.status).toBe(TaskStatus.PENDING);
    expect(await executor.queueDepth()).toBe(1);
  });

  it('makes enqueueBatch throw ConfigurationError as a whole', async () => {
    const client = executor.client({ queueUrl: `${endpoint}/000000000000/no-such-queue.fifo` });

    const error = await rejection(
      client.enqueueBatch([
        { task: ping, payload: { n: 1 } },
        { task: ping, payload: { n: 2 } },
      ]),
    );

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/Tasks .+, .+ are stored PENDING/);
  });
});

describe('TaskClient with a missing table', () => {
  it('throws ConfigurationError naming the table and endpoint, and sends nothing', async () => {
    const client = executor.client({ tableName: 'no-such-table' });

    const enqueueError = await rejection(client.enqueue(ping, { n: 1 }));
    const getError = await rejection(client.get('anything'));

    for (const error of [enqueueError, getError]) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({ resource: 'no-such-table', endpoint });
      expect((error as Error).message).toContain(
        `table 'no-such-table' does not exist at ${endpoint}`,
      );
    }
    expect(await executor.queueDepth()).toBe(0);
  });
});

describe('TaskClient with an unreachable endpoint', () => {
  it('throws ConfigurationError naming the endpoint', async () => {
    const closed = `http://localhost:${await closedPort()}`;
    const client = executor.client({
      sqs: new SQSClient({ endpoint: closed, region: 'us-east-1', useQueueUrlAsEndpoint: false }),
      dynamodb: new DynamoDBClient({ endpoint: closed, region: 'us-east-1' }),
    });

    const error = await rejection(client.enqueue(ping, { n: 1 }));

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ resource: executor.tableName, endpoint: closed });
    expect((error as Error).message).toContain(`Nothing answers at ${closed}`);
    expect((error as Error).message).toContain('AWS_ENDPOINT_URL_DYNAMODB');
    expect((error as Error).message).not.toContain('endpoint option');
  });
});

describe('TaskClient.check', () => {
  it('reports ok for a provisioned executor', async () => {
    const report = await executor.client().check();

    expect(report).toEqual({
      ok: true,
      checked: [
        `table ${executor.tableName}`,
        `queue ${executor.queueUrl}`,
        `schedule group ${executor.scheduler.scheduleGroup}`,
      ],
      problems: [],
    });
  });

  it('assertReady resolves for a provisioned executor; check() reports a problem without throwing', async () => {
    const ready = executor.client();
    const missing = executor.client({ tableName: 'no-such-table' });

    const readiness = await rejection(ready.assertReady());
    const report = await missing.check();

    expect(readiness).toBeUndefined();
    expect(report).toMatchObject({ ok: false, problems: [{ resource: 'no-such-table' }] });
  });

  it('reports every problem at once, each naming its resource and endpoint', async () => {
    const queueUrl = `${endpoint}/000000000000/no-such-queue.fifo`;
    const client = executor.client({
      tableName: 'no-such-table',
      queueUrl,
      scheduleGroup: 'no-such-group',
    });

    const report = await client.check();
    const error = await rejection(client.assertReady());

    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.resource, p.endpoint])).toEqual([
      ['no-such-table', endpoint],
      [queueUrl, endpoint],
      ['no-such-group', endpoint],
    ]);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toHaveLength(3);
    expect((error as Error).message).toContain('(3 problems)');
  });

  it('reports incomplete scheduling settings as a problem', async () => {
    const client = executor.client({ schedulerRoleArn: '', scheduleDeadLetterArn: '' });

    const report = await client.check();

    expect(report.ok).toBe(false);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]?.message).toContain('schedulerRoleArn');
  });
});
