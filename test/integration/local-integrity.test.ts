import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { INTEGRITY_FAILED } from '../../src/integrity/tag.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients } from '../helpers/aws.js';

const runs: number[] = [];
const double = defineTask('double', {
  schema: z.object({ n: z.number() }),
  handler: ({ n }) => {
    runs.push(n);
    return n * 2;
  },
});

let running: LocalExecutor | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('startLocalExecutor({ integrity: true })', () => {
  it('creates a key in the emulator, tags and runs tasks, and kills one whose stored tag was copied from another', async () => {
    running = await startLocalExecutor({ tasks: [double], log: 'silent', integrity: true });
    const { client, location } = running;
    const first = await client.enqueue(double, { n: 1 }, { id: 'first' });
    const { dynamodb } = testClients();

    const done = await client.wait(first.id, { timeoutMs: 20_000 });
    // A second task, held back, gets the first one's (valid) tag written over its own.
    const second = await client.enqueue(double, { n: 2 }, { id: 'second', delay: 3_000 });
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: location.tableName,
        Key: marshall({ [TableSchema.PARTITION_KEY]: second.id }),
        UpdateExpression: 'SET integrityTag = :tag',
        ExpressionAttributeValues: marshall({ ':tag': done.integrityTag }),
      }),
    );
    const dead = await client.wait(second.id, { timeoutMs: 20_000 });

    expect(location.integrity?.keyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(done.status).toBe(TaskStatus.SUCCEEDED);
    expect(done.integrityTag).toBeDefined();
    expect(dead.status).toBe(TaskStatus.DEAD);
    expect(dead.lastError?.name).toBe(INTEGRITY_FAILED);
    expect(runs).toEqual([1]);
  });
});
