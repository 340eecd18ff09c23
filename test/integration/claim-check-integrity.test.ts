import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { INTEGRITY_FAILED } from '../../src/integrity/tag.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let integrity: { keyId: string; endpoint: string | undefined };
let claims: { payloadBucket: string; s3: S3Client };
const runs: string[] = [];

const upload = defineTask('claim.upload', {
  schema: z.object({ data: z.string() }),
  handler: ({ data }, { taskId }) => {
    runs.push(taskId);
    return data.length;
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
  const endpoint = process.env.AWS_ENDPOINT_URL;
  const kms = new KmsMacClient({ credentialsFrom: executor.clients.dynamodb, endpoint });
  integrity = { keyId: await kms.createHmacKey('claim-check integrity test'), endpoint };
  const s3 = testS3();
  claims = { payloadBucket: await provisionPayloadBucket(s3, uniqueName('tagged'), 45), s3 };
});

describe('claim check with the integrity tag', () => {
  it('runs a claim-checked task whose tag covers the payload hash the object matches', async () => {
    const client = executor.client({ integrity, ...claims });
    const worker = executor.worker([upload], { integrity, ...claims });

    const { id, record } = await client.enqueue(upload, { data: 'd'.repeat(100 * 1024) });
    await executor.drain(worker);
    const done = await client.get(id);

    expect(record.payloadRef).toBeDefined();
    expect(record.integrityTag).toBeDefined();
    expect(runs).toContain(id);
    expect(done).toMatchObject({ status: TaskStatus.SUCCEEDED, result: 100 * 1024 });
  });

  it('declares DEAD unrun a claim-checked task whose stored payload hash was changed', async () => {
    const client = executor.client({ integrity, ...claims });
    const worker = executor.worker([upload], { integrity, ...claims });
    const { id } = await client.enqueue(upload, { data: 'e'.repeat(100 * 1024) });
    await executor.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: executor.tableName,
        Key: marshall({ [TableSchema.PARTITION_KEY]: id }),
        UpdateExpression: 'SET payloadHash = :h',
        ExpressionAttributeValues: marshall({ ':h': 'f'.repeat(64) }),
      }),
    );

    await executor.drain(worker);
    const dead = await client.get(id);

    expect(runs).not.toContain(id);
    expect(dead?.status).toBe(TaskStatus.DEAD);
    expect(dead?.lastError?.name).toBe(INTEGRITY_FAILED);
  });
});
