/**
 * Operator actions name who acted (docs/adr/0039-operator-audit.md): the STS caller identity
 * of the client's credentials, asked once, in the audit line and in the history entry.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { UNKNOWN_PRINCIPAL } from '../../src/client/operator-principal.js';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import type { HistoryEntry } from '../../src/core/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

const schema = z.object({ n: z.number() });
const broken = defineTask('broken', {
  schema,
  retry: { maxAttempts: 1 },
  handler: () => {
    throw new PermanentError('always fails');
  },
});
const parking = defineTask('parking', {
  schema,
  retry: { maxAttempts: 1 },
  onDead: 'park',
  handler: () => {
    throw new PermanentError('always fails');
  },
});
const idle = defineTask('idle', { schema, handler: () => 'done' });

let executor: TestExecutor;
let caller: string;

beforeEach(async () => {
  executor = await setupExecutor();
  caller = (await emulatorSts().send(new GetCallerIdentityCommand({}))).Arn ?? '';
});

/** An STS client on the emulator, counting its GetCallerIdentity calls in `calls`. */
function emulatorSts(endpoint = process.env.AWS_ENDPOINT_URL): STSClient & { calls: number } {
  const sts = new STSClient({
    region: 'us-east-1',
    maxAttempts: 1,
    ...(endpoint === undefined ? {} : { endpoint }),
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const counted = Object.assign(sts, { calls: 0 });
  sts.middlewareStack.add(
    (next) => (args) => {
      counted.calls += 1;
      return next(args);
    },
    { step: 'initialize' },
  );
  return counted;
}

/** Enqueues `n` tasks of `task` (on one key) and lets them die. */
async function deadTasks(task: typeof broken, n: number, orderingKey?: string): Promise<string[]> {
  const client = executor.client();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await client.enqueue(task, { n: i }, orderingKey ? { orderingKey } : {})).id);
  }
  await executor.drain(executor.worker([task]));
  return ids;
}

async function entry(id: string, event: string): Promise<HistoryEntry | undefined> {
  const record = await executor.store.get(id);
  return record?.history.findLast((h) => h.event === event);
}

describe('operator actions', () => {
  it('record the STS caller identity in the history and the audit line of a redrive, a cancel and a key release', async () => {
    const [dead] = await deadTasks(broken, 1);
    const [parked] = await deadTasks(parking, 1, 'k');
    const logger = recordingLogger();
    const client = executor.client({ logger });
    const waiting = await client.enqueue(idle, { n: 0 });

    await client.redrive({ ids: [dead as string] });
    await client.cancel(waiting.id, 'not needed');
    await client.releaseKey('k');

    expect(caller).toMatch(/^arn:aws:/);
    expect(await entry(dead as string, AuditEvent.REDRIVEN)).toMatchObject({ principal: caller });
    expect(await entry(waiting.id, AuditEvent.CANCELLED)).toMatchObject({
      principal: caller,
      detail: 'not needed',
    });
    expect(await entry(parked as string, AuditEvent.KEY_RELEASED)).toMatchObject({
      principal: caller,
    });
    const audited = logger.lines.filter((l) => l.attributes.audit === true);
    for (const event of [AuditEvent.REDRIVEN, AuditEvent.CANCELLED, AuditEvent.KEY_RELEASED]) {
      expect(audited.find((l) => l.attributes.event === event)?.attributes).toMatchObject({
        principal: caller,
      });
    }
  });

  it('ask STS once per client, however many actions it takes', async () => {
    const sts = emulatorSts();
    const client = executor.client({ sts });
    const tasks = await Promise.all([0, 1, 2].map((n) => client.enqueue(idle, { n })));

    await Promise.all(tasks.map((t) => client.cancel(t.id)));
    await client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });

    expect(sts.calls).toBe(1);
  });

  it('go ahead as an unknown principal, saying why, when STS cannot be reached', async () => {
    const sts = emulatorSts('http://localhost:9');
    const logger = recordingLogger();
    const client = executor.client({ sts, logger });
    const [dead] = await deadTasks(broken, 1);

    const result = await client.redrive({ ids: [dead as string] });

    expect(result.redriven).toEqual([dead]);
    const redriven = await entry(dead as string, AuditEvent.REDRIVEN);
    expect(redriven?.principal).toMatch(
      new RegExp(`^${UNKNOWN_PRINCIPAL} \\(sts:GetCallerIdentity failed: .+\\)$`),
    );
    expect(
      logger.lines.some((l) => l.level === 'warn' && /principal unknown/.test(l.message)),
    ).toBe(true);
  });

  it('log pausing, resuming and deleting a schedule with the principal', async () => {
    const logger = recordingLogger();
    const client = executor.client({ logger });
    await client.schedules.set('nightly', { task: idle, payload: { n: 1 }, cron: '0 3 * * ? *' });

    await client.schedules.pause('nightly');
    await client.schedules.resume('nightly');
    await client.schedules.delete('nightly');

    const events = logger.lines
      .filter((l) => l.attributes.audit === true)
      .map((l) => [l.attributes.event, l.attributes.schedule, l.attributes.principal]);
    expect(events).toEqual([
      [AuditEvent.SCHEDULE_PAUSED, 'nightly', caller],
      [AuditEvent.SCHEDULE_RESUMED, 'nightly', caller],
      [AuditEvent.SCHEDULE_DELETED, 'nightly', caller],
    ]);
  });
});

describe('TaskClient.purge', () => {
  it('logs the purged line, with the principal, before the delete is sent', async () => {
    const [dead] = await deadTasks(broken, 1);
    const logger = recordingLogger();
    const dynamodb = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: process.env.AWS_ENDPOINT_URL as string,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    let loggedBeforeDelete: boolean | undefined;
    dynamodb.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName !== 'DeleteItemCommand') return next(args);
        loggedBeforeDelete = logger.lines.some((l) => l.attributes.event === AuditEvent.PURGED);
        // The process stops here, before the delete reaches DynamoDB.
        throw new Error('process stopped');
      },
      { step: 'initialize' },
    );
    const client = executor.client({ logger, dynamodb });

    const purge = client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });

    await expect(purge).rejects.toThrow('process stopped');
    expect(loggedBeforeDelete).toBe(true);
    expect(
      logger.lines.find((l) => l.attributes.event === AuditEvent.PURGED)?.attributes,
    ).toMatchObject({ taskId: dead, principal: caller, status: TaskStatus.DEAD });
    expect((await executor.store.get(dead as string))?.status).toBe(TaskStatus.DEAD);
  });
});
