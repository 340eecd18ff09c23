/**
 * The claim check's S3 requests in the run-time cost figures (docs/cost.md): the producer's
 * PutObject in `costReport`, the worker's GetObject and PutObject in its usage metrics.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { noopMetrics, type TaskMetrics } from '../../src/observability/metrics.js';
import { addUsage, emptyUsage, type Usage } from '../../src/observability/usage-meter.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  executor = await setupExecutor();
  s3 = testS3();
  bucket = await provisionPayloadBucket(s3, uniqueName('cost-payloads'), 45);
});

/** A task whose payload and result both go to the bucket (a threshold of 1 KB). */
const large = defineTask('claim.cost', {
  schema: z.object({ blob: z.string() }),
  handler: async ({ blob }) => ({ echo: blob }),
});

/** Metrics that keep the worker's usage, by task type. */
function usageRecorder(): TaskMetrics & { byType: Map<string, Usage> } {
  const byType = new Map<string, Usage>();
  return {
    ...noopMetrics,
    byType,
    usage: (type, usage) => {
      byType.set(type, addUsage(byType.get(type) ?? emptyUsage(), usage));
    },
  };
}

describe('run-time cost of the claim check', () => {
  it('counts and prices the S3 requests of the producer and of the worker', async () => {
    // Arrange
    const options = { payloadBucket: bucket, payloadThresholdBytes: 1024, s3 };
    const client = executor.client(options);
    const metrics = usageRecorder();
    const worker = executor.worker([large], { ...options, metrics });

    // Act
    const { id } = await client.enqueue(large, { blob: 'p'.repeat(4096) });
    await executor.drain(worker);
    const report = client.costReport();

    // Assert
    expect((await executor.store.get(id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(report.usage.s3WriteRequests).toBe(1);
    expect(report.usage.s3ReadRequests).toBeUndefined();
    expect(report.cost.s3).toBe(5 / 1e6);
    expect(metrics.byType.get('claim.cost')).toMatchObject({
      s3ReadRequests: 1,
      s3WriteRequests: 1,
    });
  });
});
