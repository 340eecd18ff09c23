/**
 * The worker reads a claim-checked payload within a bound: a payload above its
 * `maxPayloadBytes` is refused before it is downloaded, as bad input (DEAD, unrun), and an
 * object larger than its reference is cut off (docs/large-payloads.md).
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let bucket: string;
const runs: string[] = [];

const ingest = defineTask('bulk.ingest', {
  schema: z.object({ rows: z.string() }),
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
  bucket = await provisionPayloadBucket(testS3(), uniqueName('payloads'), 45);
});

/** An S3 client that counts its GetObject calls. */
function countingS3(): { s3: S3Client; gets: () => number } {
  const s3 = testS3();
  let gets = 0;
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetObjectCommand') gets += 1;
      return next(args);
    },
    { step: 'initialize', name: 'count-gets' },
  );
  return { s3, gets: () => gets };
}

describe('worker: the bound on a claim-checked payload', () => {
  it('declares a payload above maxPayloadBytes DEAD unrun, without downloading it', async () => {
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(ingest, { rows: 'r'.repeat(300 * 1024) });
    const counted = countingS3();
    const worker = executor.worker([ingest], {
      payloadBucket: bucket,
      s3: counted.s3,
      maxPayloadBytes: 200 * 1024,
    });

    const drained = await executor.drain(worker);

    const record = await executor.store.get(id);
    expect(record?.status).toBe(TaskStatus.DEAD);
    expect(record?.lastError?.name).toBe('PayloadTooLargeError');
    expect(record?.deadReason).toMatch(/is \d+ bytes as JSON; the limit is 204800 bytes/);
    expect(drained.failed).toBe(0);
    expect(counted.gets()).toBe(0);
    expect(runs).not.toContain(id);
  });

  it('declares a payload whose object is larger than its reference DEAD unrun, with CLAIM_CHECK_MISMATCH', async () => {
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(ingest, { rows: 's'.repeat(100 * 1024) });
    const ref = (await executor.store.get(id))?.payloadRef;
    await testS3().send(
      new PutObjectCommand({ Bucket: bucket, Key: ref?.key, Body: 'x'.repeat(50 * 1024 * 1024) }),
    );
    const worker = executor.worker([ingest], { payloadBucket: bucket, s3: testS3() });

    await executor.drain(worker);

    const record = await executor.store.get(id);
    expect(record?.status).toBe(TaskStatus.DEAD);
    expect(record?.deadReason).toMatch(new RegExp(`^${ErrorCode.CLAIM_CHECK_MISMATCH}: .* bytes`));
    expect(runs).not.toContain(id);
  });
});
