import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetScheduleGroupCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { ConfigurationError } from '../../src/core/errors.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor } from '../helpers/executor.js';
import { failing } from '../helpers/failing-commands.js';

const double = defineTask('double', {
  schema: z.object({ n: z.number() }),
  handler: ({ n }) => n * 2,
});
const greet = defineTask('greet', {
  schema: z.object({ name: z.string() }),
  handler: ({ name }) => `hello ${name}`,
});

let running: LocalExecutor | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function stateDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'tasklane-local-'));
}

/** Whether anything answers HTTP at `endpoint`. */
async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/moto-api/', endpoint), { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

describe('startLocalExecutor', () => {
  it('runs enqueued and delayed tasks to SUCCEEDED, logging the audit events to a file', async () => {
    // Arrange
    running = await startLocalExecutor({
      tasks: [double, greet],
      stateDir: await stateDir(),
      client: { scheduleThresholdMs: 500 },
      pumpIntervalMs: 100,
    });
    const { client } = running;

    // Act
    const now = await client.enqueue(double, { n: 21 }, { id: 'now' });
    const keyed = await client.enqueue(greet, { name: 'Ada' }, { orderingKey: 'k' });
    const later = await client.enqueue(double, { n: 5 }, { id: 'later', delay: 1_500 });
    const results = await Promise.all(
      [now.id, keyed.id, later.id].map((id) => client.wait(id, { timeoutMs: 30_000 })),
    );

    // Assert
    expect(later.record.status).toBe(TaskStatus.SCHEDULED);
    expect(results.map((r) => [r.status, r.result])).toEqual([
      [TaskStatus.SUCCEEDED, 42],
      [TaskStatus.SUCCEEDED, 'hello Ada'],
      [TaskStatus.SUCCEEDED, 10],
    ]);
    await running.stop();
    const log = await readFile(running.logFile ?? '', 'utf8');
    expect(log).toContain('"taskId":"now"');
    expect(log).toContain('"event":"succeeded"');
  });

  it('starts its own emulator when none is given, and stop() leaves no process behind', async () => {
    const shared = process.env.AWS_ENDPOINT_URL;
    delete process.env.AWS_ENDPOINT_URL;
    try {
      running = await startLocalExecutor({ tasks: [double], stateDir: await stateDir() });
    } finally {
      process.env.AWS_ENDPOINT_URL = shared;
    }
    const { endpoint, emulator, client } = running;

    const { id } = await client.enqueue(double, { n: 1 });
    const record = await client.wait(id, { timeoutMs: 30_000 });
    await running.stop();

    expect(endpoint).not.toBe(shared);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(emulator?.pid).toBeGreaterThan(0);
    expect(() => process.kill(emulator?.pid ?? 0, 0)).toThrow(/ESRCH/);
    expect(await answers(endpoint)).toBe(false);
  });

  it('attaches to existing resources without provisioning any', async () => {
    const existing = await setupExecutor();
    const sqs = new SQSClient({ region: 'us-east-1' });
    const queuesBefore = (await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? [];
    running = await startLocalExecutor({
      tasks: [greet],
      log: 'silent',
      location: {
        tableName: existing.tableName,
        queueUrl: existing.queueUrl,
        queueArn: existing.queueArn,
        ...existing.scheduler,
      },
    });

    const { id } = await running.client.enqueue(greet, { name: 'Grace' });
    const record = await existing.client().wait(id, { timeoutMs: 30_000 });
    const queuesAfter = (await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? [];

    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, result: 'hello Grace' });
    expect(queuesAfter.sort()).toEqual(queuesBefore.sort());
    expect(running.emulator).toBeUndefined();
  });

  it('attaches without changing the schedule groups it found, nor their schedules', async () => {
    // Arrange
    const existing = await setupExecutor();
    const { scheduleGroup, delayedScheduleGroup } = existing.scheduler;
    const producer = existing.client();
    await producer.schedules.set('nightly', { rate: '1 day', task: greet, payload: { name: 'N' } });
    const later = await producer.enqueue(greet, { name: 'L' }, { delay: 3_600_000 });
    const { scheduler } = existing.clients;
    const snapshot = async () =>
      Promise.all(
        [scheduleGroup, delayedScheduleGroup].map(async (group) => {
          const { CreationDate } = await scheduler.send(
            new GetScheduleGroupCommand({ Name: group }),
          );
          const { Schedules = [] } = await scheduler.send(
            new ListSchedulesCommand({ GroupName: group }),
          );
          return { group, created: CreationDate, schedules: Schedules.map((s) => s.Name).sort() };
        }),
      );
    const before = await snapshot();

    // Act
    running = await startLocalExecutor({
      tasks: [greet],
      log: 'silent',
      location: {
        tableName: existing.tableName,
        queueUrl: existing.queueUrl,
        queueArn: existing.queueArn,
        ...existing.scheduler,
      },
    });
    const after = await snapshot();

    // Assert
    expect(before.map((g) => g.schedules.length)).toEqual([1, 1]);
    expect(after).toEqual(before);
    expect(await running.client.get(later.id)).toMatchObject({ status: TaskStatus.SCHEDULED });
  });

  it('refuses to attach to resources that do not exist, naming each', async () => {
    const endpoint = process.env.AWS_ENDPOINT_URL ?? '';
    const location = {
      tableName: 'no-such-table',
      queueUrl: `${endpoint}/000000000000/no-such-queue.fifo`,
    };

    const error = await startLocalExecutor({ tasks: [greet], log: 'silent', location }).catch(
      (err: unknown) => err,
    );

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems.map((p) => p.resource)).toEqual([
      location.tableName,
      location.queueUrl,
    ]);
  });

  it('loads its tasks once the resources exist, handing the loader their environment', async () => {
    let handed: Readonly<Record<string, string>> | undefined;
    running = await startLocalExecutor({
      log: 'silent',
      tasks: async ({ environment }) => {
        handed = environment;
        return [greet];
      },
    });

    const { id } = await running.client.enqueue(greet, { name: 'loader' });
    const record = await running.client.wait(id, { timeoutMs: 30_000 });

    expect(handed).toEqual(running.environment);
    expect(running.environment).toMatchObject({
      AWS_ENDPOINT_URL: running.endpoint,
      AWS_REGION: 'us-east-1',
      TASKLANE_TABLE_NAME: running.location.tableName,
      TASKLANE_QUEUE_URL: running.location.queueUrl,
    });
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, result: 'hello loader' });
  });

  it('refuses loaded tasks with as many attempts as its queue allows receives, naming them', async () => {
    const greedy = defineTask('greedy', {
      schema: z.object({}),
      retry: { maxAttempts: 60 },
      handler: () => null,
    });

    const error = await startLocalExecutor({
      log: 'silent',
      tasks: async () => [greet, greedy],
    }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain("'greedy' (maxAttempts 60)");
  });

  it('runs the sweeper periodically, so a task whose send failed still runs', async () => {
    // Arrange
    running = await startLocalExecutor({
      tasks: [double],
      log: 'silent',
      sweepIntervalMs: 200,
      pendingAgeMs: 0,
    });
    const throttled = failing(new SQSClient({ region: 'us-east-1', endpoint: running.endpoint }), [
      'SendMessageCommand',
    ]);
    const producer = new TaskClient({ ...running.location, sqs: throttled });

    // Act
    const { id, sent } = await producer.enqueue(double, { n: 4 });
    const record = await running.client.wait(id, { timeoutMs: 30_000 });

    // Assert
    expect(sent).toBe(false);
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, result: 8 });
  });
});
