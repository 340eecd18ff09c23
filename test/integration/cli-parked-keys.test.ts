import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let failing = true;
const posting = defineTask('posting', {
  schema: z.object({ n: z.number() }),
  retry: { maxAttempts: 1 },
  onDead: 'park',
  handler: ({ n }) => {
    if (failing && n === 0) throw new PermanentError('ledger closed');
    return n;
  },
});

let executor: TestExecutor;
let env: Record<string, string>;

beforeEach(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
  failing = true;
});

/** Enqueues postings 0 and 1 on `key`; posting 0 dies and parks the key. */
async function park(key: string): Promise<string[]> {
  const client = executor.client();
  const ids: string[] = [];
  for (const n of [0, 1]) ids.push((await client.enqueue(posting, { n }, { orderingKey: key })).id);
  await executor.drain(executor.worker([posting]));
  return ids;
}

describe('tasklane keys', () => {
  it('lists parked keys with the task that holds each, as a table and as JSON', async () => {
    const [dead] = await park('acct-1');

    const table = await runCli(['keys', 'parked'], env);
    const json = await runCli(['keys', 'parked', '--json'], env);

    expect(table.code).toBe(0);
    expect(table.stdout).toContain('acct-1');
    expect(table.stdout).toContain('ledger closed');
    expect(JSON.parse(json.stdout)).toMatchObject([
      { orderingKey: 'acct-1', taskId: dead, taskType: 'posting' },
    ]);
  });

  it('releases a key with --yes, and exits 4 for a key that is not parked', async () => {
    const [dead, next] = await park('acct-2');

    const released = await runCli(['keys', 'release', 'acct-2', '--yes', '--json'], env);
    await executor.drain(executor.worker([posting]));
    const again = await runCli(['keys', 'release', 'acct-2', '--yes'], env);

    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toEqual({
      orderingKey: 'acct-2',
      taskId: dead,
      taskIds: [dead],
      released: true,
    });
    expect(await executor.client().get(`${next}`)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
    });
    expect(again.code).toBe(4);
    expect(again.stdout).toContain('acct-2 is not parked');
  });
});

describe('tasklane redrive --key', () => {
  it('runs a parked key’s dead task first, then the rest', async () => {
    const [dead, next] = await park('acct-3');
    failing = false;

    const out = await runCli(['redrive', '--key', 'acct-3', '--yes', '--json'], env);
    await executor.drain(executor.worker([posting]));

    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).redriven).toEqual([dead]);
    const client = executor.client();
    const [first, second] = await Promise.all([client.get(`${dead}`), client.get(`${next}`)]);
    expect(first).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(second).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect((first?.finishedAt ?? Infinity) <= (second?.finishedAt ?? 0)).toBe(true);
  });
});
