import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  GetBucketLifecycleConfigurationCommand,
  PutBucketLifecycleConfigurationCommand,
} from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3 } from '../helpers/aws.js';

const reverse = defineTask('reverse', {
  schema: z.object({ text: z.string() }),
  handler: ({ text }) => [...text].reverse().join(''),
});

let running: LocalExecutor | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('startLocalExecutor({ payloadBucket: true })', () => {
  it('creates the bucket in the emulator and runs a 1 MB task through it', async () => {
    running = await startLocalExecutor({
      tasks: [reverse],
      name: 'local-claims',
      payloadBucket: true,
      log: 'silent',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-local-')),
    });
    const text = `${'a'.repeat(512 * 1024)}${'b'.repeat(512 * 1024)}`;

    const { id, record } = await running.client.enqueue(reverse, { text });
    const done = await running.client.wait(id, { timeoutMs: 30_000 });

    expect(running.location.payloadBucket).toBe('local-claims-payloads');
    expect(record.payloadRef?.bucket).toBe('local-claims-payloads');
    expect(done.status).toBe(TaskStatus.SUCCEEDED);
    expect(done.resultRef?.bucket).toBe('local-claims-payloads');
    expect(done.result).toBe(`${'b'.repeat(512 * 1024)}${'a'.repeat(512 * 1024)}`);
  });

  it('leaves a bucket that exists as it found it, lifecycle rules included', async () => {
    // Arrange
    const s3 = testS3();
    const bucket = 'local-kept-payloads';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const rules = [
      { ID: 'mine', Status: 'Enabled' as const, Filter: { Prefix: 'x/' }, Expiration: { Days: 3 } },
    ];
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucket,
        LifecycleConfiguration: { Rules: rules },
      }),
    );

    // Act
    running = await startLocalExecutor({
      tasks: [reverse],
      name: 'local-kept',
      payloadBucket: true,
      log: 'silent',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-local-')),
    });
    const after = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }));

    // Assert
    expect(running.location.payloadBucket).toBe(bucket);
    expect(after.Rules?.map((r) => r.ID)).toEqual(['mine']);
  });
});
