import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TableSchema, TaskStatus } from '../../src/core/constants.js';
import { firingTemplate, taskMessage } from '../../src/core/message.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { INTEGRITY_FAILED, IntegrityTag } from '../../src/integrity/tag.js';
import { type TaskMetrics, TaskOutcome } from '../../src/observability/metrics.js';
import { formatScheduledTime } from '../../src/scheduler/occurrences.js';
import { payloadHash } from '../../src/store/record.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { schedulerPumpSqs } from '../helpers/aws.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let integrity: { keyId: string; endpoint: string | undefined };
const runs: string[] = [];

const send = defineTask('email.send', {
  schema: z.object({ to: z.string() }),
  retry: { maxAttempts: 2 },
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
  },
});
const other = defineTask('email.other', {
  schema: z.object({ to: z.string() }),
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
  },
});

beforeAll(async () => {
  // A real HMAC_256 key in the emulator's KMS.
  const setup = await setupExecutor();
  const endpoint = process.env.AWS_ENDPOINT_URL;
  const kms = new KmsMacClient({ credentialsFrom: setup.clients.dynamodb, endpoint });
  integrity = { keyId: await kms.createHmacKey('integrity test'), endpoint };
});

beforeEach(async () => {
  executor = await setupExecutor();
  runs.length = 0;
});

function countingMetrics(): TaskMetrics & { counts: Map<TaskOutcome, number> } {
  const counts = new Map<TaskOutcome, number>();
  return {
    counts,
    count: (outcome, n = 1) => counts.set(outcome, (counts.get(outcome) ?? 0) + n),
    duration: () => undefined,
    queueLatency: () => undefined,
    flush: () => undefined,
  };
}

/** Changes stored attributes as a table writer without the key would: one UpdateItem. */
async function tamper(id: string, set: Record<string, unknown>): Promise<void> {
  const names = Object.keys(set);
  await executor.clients.dynamodb.send(
    new UpdateItemCommand({
      TableName: executor.tableName,
      Key: marshall({ [TableSchema.PARTITION_KEY]: id }),
      UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
      ExpressionAttributeValues: marshall(
        Object.fromEntries(names.map((n, i) => [`:v${i}`, set[n]])),
      ),
    }),
  );
}

function integrityAudits(logger: ReturnType<typeof recordingLogger>, id: string) {
  return logger.lines.filter(
    (l) => l.attributes.event === AuditEvent.INTEGRITY_FAILED && l.attributes.taskId === id,
  );
}

describe('integrity tag: worker', () => {
  it('runs an untampered task and stores its tag', async () => {
    const client = executor.client({ integrity });
    const worker = executor.worker([send, other], { integrity });

    const { id } = await client.enqueue(send, { to: 'a@example.com' });
    await executor.drain(worker);

    const record = await client.get(id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.integrityTag).toMatch(/^v2:[A-Za-z0-9+/]{43}=:.+$/);
    expect(runs).toEqual([id]);
  });

  it.each([
    ['payload (payloadHash left alone)', { payload: JSON.stringify({ to: 'evil@example.com' }) }],
    ['maxAttempts', { maxAttempts: 50 }],
  ])(
    'never runs a task whose %s a table writer changed, and ends it DEAD with INTEGRITY_FAILED',
    async (_what, set) => {
      const client = executor.client({ integrity });
      const logger = recordingLogger();
      const metrics = countingMetrics();
      const worker = executor.worker([send, other], { integrity, logger, metrics });
      const { id } = await client.enqueue(send, { to: 'a@example.com' });

      await tamper(id, set);
      const drained = await executor.drain(worker);

      const record = await client.get(id);
      expect(runs).toEqual([]);
      expect(record?.status).toBe(TaskStatus.DEAD);
      expect(record?.lastError?.name).toBe(INTEGRITY_FAILED);
      expect(record?.deadReason).toMatch(/^INTEGRITY_FAILED: /);
      expect(record?.attempt).toBe(1);
      expect(drained.failed).toBe(0);
      expect(await executor.queueDepth()).toBe(0);
      expect(integrityAudits(logger, id)).toHaveLength(1);
      expect(metrics.counts.get(TaskOutcome.INTEGRITY_FAILED)).toBe(1);
      expect(metrics.counts.get(TaskOutcome.DEAD)).toBe(1);
    },
  );

  it('never runs a task whose type a table writer changed, even with a matching message sent', async () => {
    const client = executor.client({ integrity });
    const logger = recordingLogger();
    const worker = executor.worker([send, other], { integrity, logger });
    const { id } = await client.enqueue(send, { to: 'a@example.com' });

    await tamper(id, { type: other.type });
    // The genuine message names the old type: refused before any claim.
    await executor.drain(worker);
    // A writer that can also send to the queue sends one naming the new type.
    const forged = taskMessage({ id, type: other.type, generation: 2, messageGroupId: id });
    await executor.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: executor.queueUrl, ...forged }),
    );
    await executor.drain(worker);

    const record = await client.get(id);
    expect(runs).toEqual([]);
    expect(record?.status).toBe(TaskStatus.DEAD);
    expect(record?.lastError?.name).toBe(INTEGRITY_FAILED);
    expect(integrityAudits(logger, id)).toHaveLength(1);
    expect(await executor.queueDepth()).toBe(0);
  });

  it('never runs a task created without a tag (a record planted by a table writer)', async () => {
    const untagged = executor.client();
    const logger = recordingLogger();
    const worker = executor.worker([send, other], { integrity, logger });

    const { id } = await untagged.enqueue(send, { to: 'a@example.com' });
    await executor.drain(worker);

    const record = await untagged.get(id);
    expect(runs).toEqual([]);
    expect(record?.status).toBe(TaskStatus.DEAD);
    expect(record?.deadReason).toBe(`${INTEGRITY_FAILED}: the record has no integrity tag`);
    expect(integrityAudits(logger, id)).toHaveLength(1);
  });
});

describe('integrity tag: recurring firings', () => {
  it('tags the task a firing creates with the worker’s own key use, and runs it', async () => {
    const worker = executor.worker([send, other], { integrity });
    const at = Math.floor(Date.now() / 60_000) * 60_000;
    const body = firingTemplate({ schedule: 'nightly', type: send.type, payload: { to: 'x' } })
      .replace('<aws.scheduler.scheduled-time>', formatScheduledTime(at))
      .replace('<aws.scheduler.execution-id>', 'exec-1')
      .replace('<aws.scheduler.attempt-number>', '1');
    await schedulerPumpSqs(executor.scheduler.schedulerSenderId).send(
      new SendMessageCommand({
        QueueUrl: executor.queueUrl,
        MessageBody: body,
        MessageGroupId: 'nightly',
      }),
    );

    await executor.drain(worker);

    const id = `nightly@${formatScheduledTime(at)}`;
    const record = await executor.client().get(id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.integrityTag).toBeDefined();
    expect(runs).toEqual([id]);
  });
});

describe('integrity tag: sweeper', () => {
  it('does not send a PENDING task whose payload was changed, audits it, and sends the untampered one', async () => {
    const client = executor.client({ integrity });
    const logger = recordingLogger();
    const later = Date.now() + 10 * 60_000;
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger,
      metrics: countingMetrics(),
      clock: () => later,
      integrity,
    });
    const tampered = await executor.store.feature(RecordWrites).create({
      id: 'tampered',
      type: send.type,
      payloadJson: '{"to":"a@example.com"}',
      payloadHash: 'ignored',
      maxAttempts: 2,
      timeoutMs: 1000,
      messageGroupId: 'tampered',
      integrityTag: await tagOf('tampered', '{"to":"a@example.com"}'),
    });
    await executor.store.feature(RecordWrites).create({
      id: 'intact',
      type: send.type,
      payloadJson: '{"to":"b@example.com"}',
      payloadHash: 'ignored',
      maxAttempts: 2,
      timeoutMs: 1000,
      messageGroupId: 'intact',
      integrityTag: await tagOf('intact', '{"to":"b@example.com"}'),
    });
    expect(tampered.created).toBe(true);

    await tamper('tampered', { payload: '{"to":"evil@example.com"}' });
    const report = await sweeper.run();

    expect(report.integrityFailed).toBe(1);
    expect(report.sent).toBe(1);
    expect((await client.get('tampered'))?.status).toBe(TaskStatus.PENDING);
    expect((await client.get('intact'))?.status).toBe(TaskStatus.PENDING);
    expect(integrityAudits(logger, 'tampered')).toHaveLength(1);
    expect(await executor.queueDepth()).toBe(1);
  });
});

async function tagOf(id: string, payloadJson: string): Promise<string> {
  const kms = new KmsMacClient({
    credentialsFrom: executor.clients.dynamodb,
    endpoint: integrity.endpoint,
  });
  const tag = new IntegrityTag(integrity.keyId, kms);
  return tag.tag({
    id,
    type: send.type,
    payloadHash: payloadHash(send.type, payloadJson),
    maxAttempts: 2,
    timeoutMs: 1000,
    messageGroupId: id,
  });
}
