/**
 * MiniStack runs DynamoDB TTL, which moto ignores: a finished task whose retention is over
 * is deleted by the table's TTL, and nothing else is (docs/retention.md; docs/emulator.md,
 * "What only a firing engine shows").
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { emulatorClients } from '../../src/local/emulator-clients.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';

/** SQS's and Tasklane's shortest retention. */
const RETENTION_MS = 60_000;

const work = defineTask('work', {
  schema: z.object({ fail: z.boolean() }),
  retry: { maxAttempts: 1 },
  handler: ({ fail }) => {
    if (fail) throw new PermanentError('meant to fail');
    return 'done';
  },
});

let executor: LocalExecutor;

beforeAll(async () => {
  const shared = process.env.AWS_ENDPOINT_URL;
  delete process.env.AWS_ENDPOINT_URL;
  try {
    executor = await startLocalExecutor({
      tasks: [work],
      engine: 'ministack',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-ministack-')),
      log: 'silent',
      client: { retention: RETENTION_MS },
      worker: { retention: RETENTION_MS },
    });
  } finally {
    if (shared !== undefined) process.env.AWS_ENDPOINT_URL = shared;
  }
});

afterAll(async () => {
  await executor?.stop();
});

async function storedKeys(): Promise<string[]> {
  const { dynamodb } = emulatorClients(executor.endpoint);
  const out = await dynamodb.send(new ScanCommand({ TableName: executor.location.tableName }));
  return (out.Items ?? []).map((item) => JSON.stringify(item.pk)).sort();
}

describe('MiniStack 1.5.33 DynamoDB TTL', () => {
  it('deletes a succeeded task once its retention is over, and keeps the DEAD and the pending tasks', async () => {
    const { client } = executor;
    await client.enqueue(work, { fail: false }, { id: 'finished' });
    await client.enqueue(work, { fail: true }, { id: 'dead' });
    await client.enqueue(work, { fail: false }, { id: 'later', delay: 3_600_000 });
    await client.wait('finished', { timeoutMs: 30_000 });
    await client.wait('dead', { timeoutMs: 30_000 });
    const before = await storedKeys();

    // The TTL sweep runs every 60 s: the record is due 60 s after it finished.
    const deadline = Date.now() + 140_000;
    while (Date.now() < deadline && (await client.get('finished')) !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const after = await storedKeys();

    expect(await client.get('finished')).toBeUndefined();
    expect((await client.get('dead'))?.status).toBe(TaskStatus.DEAD);
    expect((await client.get('later'))?.status).toBe(TaskStatus.SCHEDULED);
    const removed = before.filter((key) => !after.includes(key));
    expect(removed.length).toBeGreaterThan(0);
    expect(removed.every((key) => key.includes('finished'))).toBe(true);
    expect(after.filter((key) => !before.includes(key))).toEqual([]);
  });
});
