import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { PermanentError } from '../../src/core/errors.js';
import type { Retention } from '../../src/settings/retention.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2030, 0, 1);

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

const ok = defineTask('ok', { schema: z.object({ n: z.number() }), handler: ({ n }) => n });
const broken = defineTask('broken', {
  schema: z.object({ n: z.number() }),
  handler: () => {
    throw new PermanentError('never works');
  },
});

/** The task's stored item as it is, TTL attribute included. */
async function rawItem(id: string): Promise<Record<string, unknown>> {
  const out = await executor.clients.dynamodb.send(
    new GetItemCommand({ TableName: executor.tableName, Key: { pk: { S: id } } }),
  );
  if (out.Item === undefined) throw new Error(`no item ${id}`);
  return unmarshall(out.Item);
}

/** Enqueues one task of each outcome and runs them under `retention` (undefined: default). */
async function finishOneOfEach(retention: Retention | undefined) {
  const options = { clock: () => T0, ...(retention === undefined ? {} : { retention }) };
  const client = executor.client(options);
  const succeeded = await client.enqueue(ok, { n: 1 });
  const dead = await client.enqueue(broken, { n: 2 });
  const cancelled = await client.enqueue(ok, { n: 3 }, { runAt: new Date(T0 + DAY_MS) });
  await client.cancel(cancelled.id);
  await executor.drain(executor.worker([ok, broken], options));
  return {
    succeeded: await rawItem(succeeded.id),
    dead: await rawItem(dead.id),
    cancelled: await rawItem(cancelled.id),
  };
}

describe('retention', () => {
  it('keeps finished tasks 30 days by default, and DEAD ones until purged', async () => {
    const items = await finishOneOfEach(undefined);

    const expiresAt = (T0 + 30 * DAY_MS) / 1000;
    expect(items.succeeded).toMatchObject({ status: 'SUCCEEDED', expiresAt });
    expect(items.cancelled).toMatchObject({ status: 'CANCELLED', expiresAt });
    expect(items.dead.status).toBe('DEAD');
    expect(items.dead).not.toHaveProperty('expiresAt');
  });

  it("writes no TTL at all with 'forever'", async () => {
    const items = await finishOneOfEach('forever');

    expect(items.succeeded.status).toBe('SUCCEEDED');
    expect(items.cancelled.status).toBe('CANCELLED');
    expect(items.dead.status).toBe('DEAD');
    for (const item of Object.values(items)) expect(item).not.toHaveProperty('expiresAt');
  });

  it('honours a custom retention in milliseconds', async () => {
    const items = await finishOneOfEach(7 * DAY_MS);

    expect(items.succeeded.expiresAt).toBe((T0 + 7 * DAY_MS) / 1000);
    expect(items.cancelled.expiresAt).toBe((T0 + 7 * DAY_MS) / 1000);
    expect(items.dead).not.toHaveProperty('expiresAt');
  });
});
