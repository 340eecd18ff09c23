import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ErrorCode } from '../../src/core/errors.js';
import { INTEGRITY_FAILED } from '../../src/integrity/tag.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { newIntegrityKey, type TestIntegrity, tamper } from '../helpers/integrity.js';
import { rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;
let integrity: TestIntegrity;
let claims: { payloadBucket: string; s3: S3Client; payloadThresholdBytes: number };
const paid: { id: string; to: string }[] = [];

const pay = defineTask('pay', {
  schema: z.object({ to: z.string(), memo: z.string() }),
  retry: { maxAttempts: 1 },
  handler: ({ to }, { taskId }) => {
    paid.push({ id: taskId, to });
  },
});

beforeAll(async () => {
  const s3 = testS3();
  const payloadBucket = await provisionPayloadBucket(s3, uniqueName('source'), 45);
  claims = { payloadBucket, s3, payloadThresholdBytes: 100 };
});

beforeEach(async () => {
  executor = await setupExecutor();
  integrity = await newIntegrityKey(executor, 'payload source test');
  paid.length = 0;
});

/** A claim-checked payment that ran, legitimately: the donor of the attacks below. */
async function claimCheckedPayment(id: string, to: string): Promise<Record<string, unknown>> {
  const client = executor.client({ integrity, ...claims });
  await client.enqueue(pay, { to, memo: 'x'.repeat(300) }, { id });
  return rawItem(executor, id);
}

describe('integrity tag: where the payload is', () => {
  it("never runs another task's claim-checked payload copied onto a tagged inline task", async () => {
    const client = executor.client({ integrity, ...claims });
    const worker = executor.worker([pay], { integrity, ...claims });
    const donor = await claimCheckedPayment('big-to-mallory', 'mallory');
    await client.enqueue(pay, { to: 'alice', memo: 'rent' }, { id: 'small-to-alice' });

    await tamper(executor, 'small-to-alice', {
      payloadRef: donor.payloadRef,
      payloadHash: donor.payloadHash,
    });
    await executor.drain(worker);

    const victim = await client.get('small-to-alice');
    expect(paid.filter((p) => p.id === 'small-to-alice')).toEqual([]);
    expect(victim?.status).toBe(TaskStatus.DEAD);
    expect(victim?.lastError?.name).toBe(INTEGRITY_FAILED);
    expect(victim?.deadReason).toMatch(/both an inline payload and a payloadRef/);
    expect(paid).toEqual([{ id: 'big-to-mallory', to: 'mallory' }]);
  });

  it('never runs a claim-checked task whose payloadRef was pointed at another object with the same bytes', async () => {
    const client = executor.client({ integrity, ...claims });
    const worker = executor.worker([pay], { integrity, ...claims });
    const stored = await claimCheckedPayment('big-to-bob', 'bob');
    const ref = stored.payloadRef as { bucket: string; key: string };
    const body = JSON.stringify({ memo: 'x'.repeat(300), to: 'bob' });
    const copy = { ...ref, key: `${ref.key}-copy` };
    await claims.s3.send(new PutObjectCommand({ Bucket: copy.bucket, Key: copy.key, Body: body }));

    await tamper(executor, 'big-to-bob', {
      payloadRef: { ...(stored.payloadRef as object), key: copy.key },
    });
    await executor.drain(worker);

    const moved = await client.get('big-to-bob', { fetch: false });
    expect(paid).toEqual([]);
    expect(moved?.status).toBe(TaskStatus.DEAD);
    expect(moved?.lastError?.name).toBe(INTEGRITY_FAILED);
  });

  it('refuses a record with both an inline payload and a payloadRef when integrity is off too', async () => {
    const client = executor.client(claims);
    const worker = executor.worker([pay], claims);
    const donor = await claimCheckedPayment('big-to-eve', 'eve');
    await client.enqueue(pay, { to: 'carol', memo: 'rent' }, { id: 'small-to-carol' });

    await tamper(executor, 'small-to-carol', {
      payloadRef: donor.payloadRef,
      payloadHash: donor.payloadHash,
    });
    await executor.drain(worker);

    const refused = await client.get('small-to-carol');
    expect(paid.filter((p) => p.id === 'small-to-carol')).toEqual([]);
    expect(refused?.status).toBe(TaskStatus.DEAD);
    expect(refused?.deadReason).toMatch(new RegExp(`^${ErrorCode.CLAIM_CHECK_MISMATCH}: .*both`));
  });
});
