import { describe, expect, it } from 'vitest';
import { s3ClientConfig } from '../../../src/aws/clients.js';
import {
  keySegment,
  payloadKey,
  resultKey,
  toObjectRef,
} from '../../../src/claim-check/object-ref.js';
import { resolveObjectStore } from '../../../src/claim-check/object-store.js';
import { ErrorCode } from '../../../src/core/errors.js';
import { locationFromStackOutputs } from '../../../src/settings/stack-outputs.js';

describe('claim-check keys', () => {
  it('keeps ULIDs and plain keys readable', () => {
    expect(payloadKey('01JD0000000000000000000000', 'ab12')).toBe(
      'payloads/01JD0000000000000000000000/ab12',
    );
    expect(resultKey('order-7_a', 2, 'lease-uuid')).toBe('results/order-7_a/2/lease-uuid');
  });

  it('makes any id one segment that URL handling cannot rewrite', () => {
    expect(keySegment('a/b')).toBe('a%2Fb');
    expect(keySegment('..')).toBe('%2E%2E');
    expect(keySegment('x?y#z%')).toBe('x%3Fy%23z%25');
  });
});

describe('toObjectRef', () => {
  it('reads a stored reference and refuses anything else', () => {
    const ref = { bucket: 'b', key: 'k', size: 3, sha256: 'ff' };

    expect(toObjectRef(ref)).toEqual(ref);
    expect(toObjectRef(undefined)).toBeUndefined();
    expect(toObjectRef({ ...ref, size: '3' })).toBeUndefined();
  });
});

describe('resolveObjectStore', () => {
  it('takes the bucket from the options, then TASKLANE_PAYLOAD_BUCKET', () => {
    const env = { TASKLANE_PAYLOAD_BUCKET: 'from-env' };

    expect(resolveObjectStore({ payloadBucket: 'given' }, env).bucket).toBe('given');
    expect(resolveObjectStore({}, env).bucket).toBe('from-env');
    expect(resolveObjectStore({}, {}).bucket).toBeUndefined();
  });

  it('offloads above the threshold only with a bucket, and raises the limit to 100 MiB', () => {
    const withBucket = resolveObjectStore({ payloadBucket: 'b' }, {});
    const without = resolveObjectStore({}, {});

    expect(withBucket.offloads(64 * 1024)).toBe(false);
    expect(withBucket.offloads(64 * 1024 + 1)).toBe(true);
    expect(without.offloads(10 * 1024 * 1024)).toBe(false);
    expect(withBucket.limit(undefined, 1)).toBe(100 * 1024 * 1024);
    expect(without.limit(undefined, 1)).toBe(1);
    expect(withBucket.limit(5, 1)).toBe(5);
  });

  it('refuses a threshold outside 0 to 131072 bytes, saying what it received', () => {
    const resolve = () => resolveObjectStore({ payloadThresholdBytes: 200_000 }, {});

    expect(resolve).toThrow(
      expect.objectContaining({
        code: ErrorCode.VALIDATION,
        message: expect.stringContaining('from 0 to 131072, received 200000'),
      }),
    );
  });
});

describe('s3ClientConfig', () => {
  it('uses path-style addressing only when an endpoint override is set', () => {
    expect(s3ClientConfig({ AWS_ENDPOINT_URL: 'http://localhost:5000' }).forcePathStyle).toBe(true);
    expect(s3ClientConfig({ AWS_ENDPOINT_URL_S3: 'http://localhost:5000' }).forcePathStyle).toBe(
      true,
    );
    expect(s3ClientConfig({}).forcePathStyle).toBe(false);
  });
});

describe('locationFromStackOutputs', () => {
  const outputs = {
    ExecutorTableName: 't',
    ExecutorWorkQueueUrl: 'q',
    ExecutorWorkQueueArn: 'arn',
    ExecutorDeadLetterQueueUrl: 'dlq',
    ExecutorScheduleGroupName: 'g',
    ExecutorSchedulerRoleArn: 'role',
    ExecutorScheduleDeadLetterQueueArn: 'sdlq',
    ExecutorWorkerFunctionName: 'fn',
  };

  it('reads the payload bucket when the executor has one', () => {
    const location = locationFromStackOutputs({
      ...outputs,
      ExecutorPayloadBucketName: 'payloads-bucket',
    });

    expect(location.payloadBucket).toBe('payloads-bucket');
    expect(locationFromStackOutputs(outputs).payloadBucket).toBeUndefined();
  });
});
