/**
 * The lease of a claim is kept alive from the claim on, not only while the handler runs: a
 * claim-checked payload that downloads for longer than the lease does not lose it
 * (docs/adr/0034-dependency-outages.md).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let bucket: string;
const runs: string[] = [];

const transcode = defineTask('video.transcode', {
  schema: z.object({ frames: z.string() }),
  retry: { maxAttempts: 3 },
  timeout: 1_000,
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
    return { ok: true };
  },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  executor = await setupExecutor();
  bucket = await provisionPayloadBucket(testS3(), uniqueName('payloads'), 45);
});

/** An S3 client whose GetObject takes `ms` before it starts: a large object on a slow link. */
function slowReads(ms: number): S3Client {
  const s3 = testS3();
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetObjectCommand') await sleep(ms);
      return next(args);
    },
    { step: 'initialize', name: 'slow-read' },
  );
  return s3;
}

describe('worker: the lease while a claim-checked payload downloads', () => {
  it('keeps the lease through a download longer than the lease, so a sweep finds nothing to requeue', async () => {
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(transcode, { frames: 'f'.repeat(200 * 1024) });
    // The lease is the timeout (1 s) plus the grace (1 s); the download takes 3 s.
    const worker = executor.worker([transcode], { payloadBucket: bucket, s3: slowReads(3_000) });
    const sweeper = executor.sweeper();
    const [message] = await executor.receive();
    if (message === undefined) throw new Error('no message');

    const batch = worker.processBatch([message]);
    await sleep(2_300);
    const sweep = await sweeper.run();
    const response = await batch;

    expect(sweep.requeued).toBe(0);
    expect(response.batchItemFailures).toEqual([]);
    const record = await executor.store.get(id);
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(record?.heartbeats).toBeGreaterThan(0);
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
    expect(runs).toEqual([id]);
  });

  it('writes no heartbeat for a download well inside the grace', async () => {
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(transcode, { frames: 'g'.repeat(200 * 1024) });
    const worker = executor.worker([transcode], {
      payloadBucket: bucket,
      s3: testS3(),
      leaseGraceMs: 20_000,
    });

    await executor.drain(worker);

    const record = await executor.store.get(id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.heartbeats ?? 0).toBe(0);
  });
});
