import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetBucketLifecycleConfigurationCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ClaimCheckMismatchError, ErrorCode } from '../../src/core/errors.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients, testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  executor = await setupExecutor();
  s3 = testS3();
  bucket = await provisionPayloadBucket(s3, uniqueName('payloads'), 45);
});

const MB = 1024 * 1024;

/** A task whose payload is a big string and whose result is `resultBytes` long. */
const bigTask = defineTask('claim.big', {
  schema: z.object({ blob: z.string().min(1), resultBytes: z.number().int() }),
  handler: async ({ blob, resultBytes }) => ({ seen: blob.length, echo: 'r'.repeat(resultBytes) }),
});

async function objectText(key: string): Promise<string> {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await out.Body?.transformToString()) ?? '';
}

describe('claim check: payloads and results in the payload bucket', () => {
  it('stores a 1 MB payload in S3, runs the handler with it, and returns a 200 KB result', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });
    const worker = executor.worker([bigTask], { payloadBucket: bucket, s3 });
    const blob = 'p'.repeat(MB);

    const { id } = await client.enqueue(bigTask, { blob, resultBytes: 200 * 1024 });
    const stored = await executor.store.get(id);
    await executor.drain(worker);
    const done = await client.get(id);

    expect(stored?.payload).toBeUndefined();
    expect(stored?.payloadRef).toMatchObject({ bucket, size: expect.any(Number) });
    expect(stored?.payloadRef?.key).toMatch(new RegExp(`^payloads/${id}/[0-9a-f]{64}$`));
    expect(done?.status).toBe(TaskStatus.SUCCEEDED);
    expect(done?.result).toEqual({ seen: MB, echo: 'r'.repeat(200 * 1024) });
    expect(done?.resultRef?.key).toMatch(new RegExp(`^results/${id}/1/`));
  });

  it('returns the reference without reading it with { fetch: false }', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });
    const worker = executor.worker([bigTask], { payloadBucket: bucket, s3 });
    const { id } = await client.enqueue(bigTask, { blob: 'x', resultBytes: 100 * 1024 });
    await executor.drain(worker);

    const record = await client.get(id, { fetch: false });

    expect(record?.result).toBeUndefined();
    expect(record?.resultRef).toMatchObject({ bucket, size: expect.any(Number) });
    const text = await objectText(record?.resultRef?.key ?? '');
    expect(JSON.parse(text)).toEqual({ seen: 1, echo: 'r'.repeat(100 * 1024) });
  });

  it('keeps small payloads and results on the record', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });
    const worker = executor.worker([bigTask], { payloadBucket: bucket, s3 });

    const { id } = await client.enqueue(bigTask, { blob: 'small', resultBytes: 10 });
    await executor.drain(worker);
    const record = await executor.store.get(id);

    expect(record?.payload).toEqual({ blob: 'small', resultBytes: 10 });
    expect(record?.payloadRef).toBeUndefined();
    expect(record?.result).toEqual({ seen: 5, echo: 'r'.repeat(10) });
    expect(record?.resultRef).toBeUndefined();
  });

  it('still validates the full payload against the schema at enqueue', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });

    const enqueue = client.enqueue(bigTask, { blob: 'b'.repeat(MB), resultBytes: -0.5 });

    await expect(enqueue).rejects.toMatchObject({ code: ErrorCode.VALIDATION });
  });

  it('writes the same object again when an enqueue is retried with the same id', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });
    const payload = { blob: 'q'.repeat(200 * 1024), resultBytes: 1 };
    const id = uniqueName('retry');

    const first = await client.enqueue(bigTask, payload, { id });
    const second = await client.enqueue(bigTask, payload, { id });

    expect(second.created).toBe(false);
    expect(second.record.payloadRef).toEqual(first.record.payloadRef);
    expect(JSON.parse(await objectText(first.record.payloadRef?.key ?? ''))).toEqual(payload);
  });
});

describe('claim check: failures', () => {
  it('fails an oversized result without a bucket: DEAD with RESULT_TOO_LARGE, not dropped', async () => {
    const client = executor.client();
    const worker = executor.worker([bigTask]);

    const { id } = await client.enqueue(bigTask, { blob: 'x', resultBytes: 40 * 1024 });
    await executor.drain(worker);
    const record = await client.get(id);

    expect(record?.status).toBe(TaskStatus.DEAD);
    expect(record?.attempt).toBe(1);
    expect(record?.lastError?.name).toBe('ResultTooLargeError');
    expect(record?.deadReason).toMatch(/is \d+ bytes as JSON; the limit is 32768 bytes/);
    expect(record?.result).toBeUndefined();
  });

  it('refuses a payload above 256 KB without a bucket', async () => {
    const client = executor.client();

    const enqueue = client.enqueue(bigTask, { blob: 'b'.repeat(300 * 1024), resultBytes: 1 });

    await expect(enqueue).rejects.toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE });
  });

  it('declares a task whose payload object was altered DEAD unrun, with CLAIM_CHECK_MISMATCH', async () => {
    let runs = 0;
    const counted = defineTask('claim.counted', {
      schema: z.object({ blob: z.string() }),
      handler: async () => {
        runs++;
      },
    });
    const client = executor.client({ payloadBucket: bucket, s3 });
    const worker = executor.worker([counted], { payloadBucket: bucket, s3 });
    const { id, record } = await client.enqueue(counted, { blob: 'a'.repeat(100 * 1024) });
    const key = record.payloadRef?.key ?? '';
    const tampered = JSON.stringify({ blob: 'b'.repeat(100 * 1024) });
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: tampered }));

    await executor.drain(worker);
    const dead = await client.get(id);

    expect(runs).toBe(0);
    expect(dead?.status).toBe(TaskStatus.DEAD);
    expect(dead?.attempt).toBe(1);
    expect(dead?.lastError?.name).toBe('ClaimCheckMismatchError');
    expect(dead?.deadReason).toMatch(/^CLAIM_CHECK_MISMATCH: s3:\/\/.+ does not match/);
  });

  it('throws ClaimCheckMismatchError from get() when a result object was altered', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });
    const worker = executor.worker([bigTask], { payloadBucket: bucket, s3 });
    const { id } = await client.enqueue(bigTask, { blob: 'x', resultBytes: 100 * 1024 });
    await executor.drain(worker);
    const ref = (await client.get(id, { fetch: false }))?.resultRef;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: ref?.key, Body: '{}' }));

    const read = client.get(id);

    await expect(read).rejects.toBeInstanceOf(ClaimCheckMismatchError);
    await expect(read).rejects.toMatchObject({ problem: 'size' });
  });
});

/**
 * A DynamoDB client that fails the write of a success as a process killed just before it
 * would: the result's upload has happened, the record's write has not.
 */
function crashingBeforeSuccess(): DynamoDBClient {
  const client = testClients().dynamodb;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = JSON.stringify(args.input);
      if (
        context.commandName === 'UpdateItemCommand' &&
        input.includes(`"${TaskStatus.SUCCEEDED}"`)
      ) {
        throw new Error('killed before the record write');
      }
      return next(args);
    },
    { step: 'initialize', name: 'crash-before-success' },
  );
  return client;
}

/** An S3 client that stores each object, then fails as a process killed right after would. */
function crashingAfterUpload(): S3Client {
  const client = testS3();
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  client.send = (async (command: unknown) => {
    const out = await send(command);
    if (command instanceof PutObjectCommand) throw new Error('killed after the upload');
    return out;
  }) as typeof client.send;
  return client;
}

describe('claim check: a crash between the S3 write and the record write', () => {
  it('leaves a worker result object that no record names, under the expiring results/ prefix', async () => {
    const client = executor.client({ payloadBucket: bucket, s3 });
    const worker = executor.worker([bigTask], {
      payloadBucket: bucket,
      s3,
      dynamodb: crashingBeforeSuccess(),
    });
    const { id } = await client.enqueue(bigTask, { blob: 'x', resultBytes: 100 * 1024 });

    await executor.drain(worker);
    const record = await client.get(id);
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `results/${id}/` }),
    );
    const rules = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }));

    expect(record?.status).toBe(TaskStatus.RUNNING);
    expect(record?.result).toBeUndefined();
    expect(record?.resultRef).toBeUndefined();
    expect(listed.Contents?.map((o) => o.Key)).toEqual([
      expect.stringMatching(new RegExp(`^results/${id}/1/`)),
    ]);
    expect(rules.Rules).toContainEqual(
      expect.objectContaining({
        Filter: { Prefix: 'results/' },
        Expiration: { Days: 45 },
        Status: 'Enabled',
      }),
    );
  });

  it('leaves a producer payload object with no record, which a retried enqueue then uses', async () => {
    const crashing = executor.client({ payloadBucket: bucket, s3: crashingAfterUpload() });
    const client = executor.client({ payloadBucket: bucket, s3 });
    const payload = { blob: 'c'.repeat(100 * 1024), resultBytes: 1 };
    const id = uniqueName('crash');

    const crashed = crashing.enqueue(bigTask, payload, { id });
    await expect(crashed).rejects.toThrow('killed after the upload');
    const before = await client.get(id);
    const retried = await client.enqueue(bigTask, payload, { id });

    expect(before).toBeUndefined();
    expect(retried.created).toBe(true);
    expect(JSON.parse(await objectText(retried.record.payloadRef?.key ?? ''))).toEqual(payload);
  });
});
