/**
 * A dependency that fails after the claim (the payload's S3 object, KMS for the integrity
 * tag, the result upload) never spends an attempt and never kills the task
 * (docs/adr/0034-dependency-outages.md).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { INTEGRITY_FAILED } from '../../src/integrity/tag.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let bucket: string;
let keyId: string;
let kms: KmsMacClient;
const runs: string[] = [];

const render = defineTask('report.render', {
  schema: z.object({ blob: z.string() }),
  retry: { maxAttempts: 1 },
  timeout: 1_000,
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
    return { ok: true };
  },
});
const exportCsv = defineTask('report.export', {
  schema: z.object({ rows: z.number() }),
  retry: { maxAttempts: 1 },
  timeout: 1_000,
  handler: ({ rows }, { taskId }) => {
    runs.push(taskId);
    return { csv: 'r'.repeat(rows) };
  },
});
const notify = defineTask('report.notify', {
  schema: z.object({ to: z.string() }),
  retry: { maxAttempts: 1 },
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
  bucket = await provisionPayloadBucket(testS3(), uniqueName('payloads'), 45);
  kms = new KmsMacClient({
    credentialsFrom: executor.clients.dynamodb,
    endpoint: process.env.AWS_ENDPOINT_URL,
  });
  keyId = await kms.createHmacKey('dependency outages');
});

/** An S3 client whose first `failures` calls of `command` fail with a 503 past the SDK's retries. */
function failingS3(command: string, failures = 1): S3Client {
  const s3 = testS3();
  let left = failures;
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === command && left > 0) {
        left -= 1;
        throw Object.assign(new Error('Please reduce your request rate. (injected)'), {
          name: 'SlowDown',
          $metadata: { httpStatusCode: 503 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'injected-outage' },
  );
  return s3;
}

/** KMS whose first `failures` VerifyMac calls fail as an outage does. */
function failingKms(failures: number) {
  let left = failures;
  return {
    generateMac: (key: string, message: Uint8Array) => kms.generateMac(key, message),
    verifyMac: async (key: string, message: Uint8Array, mac: Uint8Array) => {
      if (left > 0) {
        left -= 1;
        throw Object.assign(new Error('KMS unavailable (injected)'), {
          name: 'KMSInternalException',
        });
      }
      return kms.verifyMac(key, message, mac);
    },
  };
}

/** The message once more, as SQS redelivers it after its visibility timeout. */
function redelivered(message: SQSRecord, receive: number): SQSRecord {
  const attributes = { ...message.attributes, ApproximateReceiveCount: String(receive) };
  return { ...message, attributes };
}

async function onlyMessage(): Promise<SQSRecord> {
  const [message] = await executor.receive();
  if (message === undefined) throw new Error('no message');
  return message;
}

describe('worker: an S3 outage while reading a claim-checked payload', () => {
  it('gives the claim back without spending the attempt, then runs the task once', async () => {
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(render, { blob: 'p'.repeat(200 * 1024) });
    const worker = executor.worker([render], {
      payloadBucket: bucket,
      s3: failingS3('GetObjectCommand'),
    });
    const message = await onlyMessage();

    const first = await worker.processBatch([message]);
    const returned = await executor.store.get(id);
    const second = await worker.processBatch([redelivered(message, 2)]);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(returned).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0 });
    expect(returned?.history.at(-1)).toMatchObject({
      event: AuditEvent.UNCLAIMED,
      attempt: 1,
      detail: expect.stringMatching(/^S3 unavailable \(SlowDown: .*attempt 1 not spent, not run$/),
    });
    expect(second.batchItemFailures).toEqual([]);
    const final = await executor.store.get(id);
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(runs.filter((run) => run === id)).toHaveLength(1);
  });
});

describe('worker: an S3 outage while uploading a claim-checked result', () => {
  it('retries the upload under the lease and completes the task without running it again', async () => {
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(exportCsv, { rows: 200 * 1024 });
    const worker = executor.worker([exportCsv], {
      payloadBucket: bucket,
      s3: failingS3('PutObjectCommand', 2),
    });
    const message = await onlyMessage();

    const response = await worker.processBatch([message]);

    expect(response.batchItemFailures).toEqual([]);
    const record = await client.get(id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.resultRef).toBeDefined();
    expect(record?.result).toEqual({ csv: 'r'.repeat(200 * 1024) });
    expect(runs.filter((run) => run === id)).toHaveLength(1);
  });
});

describe('worker: a KMS outage while checking the integrity tag', () => {
  it('spends no attempt on any delivery during the outage, then runs the task once', async () => {
    const client = executor.client({ integrity: { keyId, mac: kms } });
    const worker = executor.worker([notify], { integrity: { keyId, mac: failingKms(3) } });
    const { id } = await client.enqueue(notify, { to: 'a@example.com' });
    const message = await onlyMessage();

    const during = [];
    for (const receive of [1, 2, 3]) {
      await worker.processBatch([redelivered(message, receive)]);
      during.push(await executor.store.get(id));
    }
    await worker.processBatch([redelivered(message, 4)]);

    expect(during.map((r) => [r?.status, r?.attempt])).toEqual([
      [TaskStatus.QUEUED, 0],
      [TaskStatus.QUEUED, 0],
      [TaskStatus.QUEUED, 0],
    ]);
    const final = await executor.store.get(id);
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(final?.history.filter((h) => h.event === AuditEvent.UNCLAIMED)).toHaveLength(3);
    expect(runs.filter((run) => run === id)).toHaveLength(1);
  });

  it('still ends a task whose tag does not verify DEAD with INTEGRITY_FAILED, unrun', async () => {
    const client = executor.client({ integrity: { keyId, mac: kms } });
    const otherKey = await kms.createHmacKey('another key');
    const worker = executor.worker([notify], { integrity: { keyId: otherKey, mac: kms } });
    const { id } = await client.enqueue(notify, { to: 'b@example.com' });

    await executor.drain(worker);

    const record = await executor.store.get(id);
    expect(record).toMatchObject({ status: TaskStatus.DEAD, attempt: 1 });
    expect(record?.lastError?.name).toBe(INTEGRITY_FAILED);
    expect(runs).not.toContain(id);
  });
});
