import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ValidationError } from '../../src/core/errors.js';
import type { TaskRecord } from '../../src/core/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const step = defineTask('cancel-many.step', {
  schema: z.object({ n: z.number() }),
  handler: () => 1,
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Claims a task as a worker would (RUNNING under a live lease). */
async function claim(
  id: string,
): Promise<{ record: TaskRecord; lease: Parameters<TestExecutor['store']['complete']>[0] }> {
  const seen = (await executor.store.get(id)) as TaskRecord;
  return executor.store.claim(seen, { workerId: 'w', leaseMs: 60_000 });
}

describe('TaskClient.cancelMany({ ids })', () => {
  it('cancels the waiting, marks the running, and reports the finished and the unknown', async () => {
    const client = executor.client();
    const { id: queued } = await client.enqueue(step, { n: 1 });
    const { id: running } = await client.enqueue(step, { n: 2 });
    const { id: done } = await client.enqueue(step, { n: 3 });
    await claim(running);
    const finished = await claim(done);
    await executor.store.complete(finished.lease, '1');

    const result = await client.cancelMany({
      ids: [queued, running, done, 'missing'],
      reason: 'bulk',
    });

    expect(result).toEqual({
      cancelled: [queued],
      requested: [running],
      finished: [{ id: done, status: TaskStatus.SUCCEEDED }],
      notFound: ['missing'],
    });
    expect((await client.get(queued))?.status).toBe(TaskStatus.CANCELLED);
    expect(await client.get(running)).toMatchObject({
      status: TaskStatus.RUNNING,
      cancelRequested: true,
    });
    expect((await client.get(done))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('refuses an empty or malformed selection, saying what it expected', async () => {
    const client = executor.client();

    const empty = await client.cancelMany({ ids: [] }).catch((e: unknown) => e);
    const noKey = await client.cancelMany({ orderingKey: '' }).catch((e: unknown) => e);

    expect(empty).toBeInstanceOf(ValidationError);
    expect((empty as ValidationError).message).toContain(
      'expected 1 to 1000 task ids, received an array of 0',
    );
    expect(noKey).toBeInstanceOf(ValidationError);
    expect((noKey as ValidationError).message).toContain('expected a non-empty ordering key');
  });
});

describe('TaskClient.cancelMany({ orderingKey })', () => {
  it("cancels every unfinished task of the key and leaves other keys' tasks alone", async () => {
    const client = executor.client();
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push((await client.enqueue(step, { n }, { orderingKey: 'k1' })).id);
    }
    const { id: other } = await client.enqueue(step, { n: 9 }, { orderingKey: 'k2' });
    await claim(ids[0] as string);

    const result = await client.cancelMany({ orderingKey: 'k1' });

    expect([...result.cancelled].sort()).toEqual([ids[1], ids[2]].sort());
    expect(result.requested).toEqual([ids[0]]);
    expect(result.finished).toEqual([]);
    expect((await client.get(other))?.status).toBe(TaskStatus.PENDING);
  });
});

describe('tasklane cancel --key and show', () => {
  it('cancels a key from the CLI, and show prints the progress and the cancel request', async () => {
    const client = executor.client();
    const { id: running } = await client.enqueue(step, { n: 1 }, { orderingKey: 'cli' });
    const { id: queued } = await client.enqueue(step, { n: 2 }, { orderingKey: 'cli' });
    const { lease } = await claim(running);
    await executor.store.extendLease(lease, 60_000, JSON.stringify({ percent: 40 }));
    const env = executorEnv(executor);

    const run = await runCli(['cancel', '--key', 'cli', '--yes', '--json'], env);
    const show = await runCli(['show', running], env);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      { id: queued, outcome: 'cancelled', detail: '' },
      { id: running, outcome: 'requested', detail: expect.stringContaining('next heartbeat') },
    ]);
    expect(show.stdout).toContain('{"percent":40}');
    expect(show.stdout).toContain('cancel requested');
  });
});
