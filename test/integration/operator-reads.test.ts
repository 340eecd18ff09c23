import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ConfigurationError, PermanentError, ValidationError } from '../../src/core/errors.js';
import { taskMessage } from '../../src/core/message.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const email = defineTask('email', { schema: z.object({ n: z.number() }), handler: () => 'sent' });
const report = defineTask('report', { schema: z.object({ n: z.number() }), handler: () => 'done' });
const doomed = defineTask('doomed', {
  schema: z.object({ n: z.number() }),
  handler: () => {
    throw new PermanentError('bad input');
  },
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Resolves once `done()` holds, checking every 50 ms. */
async function _until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A clock that moves 10 ms per call, so every write gets its own time. */
function steppingClock(start = Date.now()): () => number {
  let now = start;
  return () => {
    now += 10;
    return now;
  };
}

describe('TaskClient.counts', () => {
  it('counts tasks per status and per type from the status index', async () => {
    const client = executor.client();
    for (let n = 0; n < 3; n++) await client.enqueue(email, { n });
    await client.enqueue(report, { n: 1 });
    await client.cancel((await client.enqueue(report, { n: 2 })).id);

    const plain = await client.counts();
    const typed = await client.counts({ byType: true });

    expect(plain.byStatus).toMatchObject({ PENDING: 4, CANCELLED: 1, DEAD: 0, RUNNING: 0 });
    expect(plain.total).toBe(5);
    expect(typed.byType).toEqual({
      email: { PENDING: 3 },
      report: { PENDING: 1, CANCELLED: 1 },
    });
  });

  it('reports progress once per status partition', async () => {
    const client = executor.client({ statusShards: 2 });
    const calls: number[] = [];

    await client.counts({ statuses: [TaskStatus.DEAD], onProgress: (done) => calls.push(done) });

    expect(calls).toEqual([1, 2]);
  });
});

describe('TaskClient.list with a filter', () => {
  it('returns tasks newest first across shards, page by page', async () => {
    const client = executor.client({ clock: steppingClock() });
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push((await client.enqueue(email, { n })).id);

    const first = await client.list({ limit: 5 });
    const second = await client.list({ limit: 5, cursor: first.cursor });
    const third = await client.list({ limit: 5, cursor: second.cursor });

    const listed = [...first.items, ...second.items, ...third.items].map((r) => r.id);
    expect(listed).toEqual([...ids].reverse());
    expect(third.cursor).toBeUndefined();
  });

  it('keeps only tasks matching status, type, ordering key and time range', async () => {
    const clock = steppingClock();
    const client = executor.client({ clock });
    const start = clock();
    const a = await client.enqueue(email, { n: 1 }, { orderingKey: 'k1' });
    const b = await client.enqueue(report, { n: 2 }, { orderingKey: 'k1' });
    const middle = clock();
    const c = await client.enqueue(email, { n: 3 }, { orderingKey: 'k2' });
    await client.cancel(c.id);

    const byType = await client.list({ type: 'email' });
    const byKey = await client.list({ orderingKey: 'k1' });
    const byStatus = await client.list({ status: TaskStatus.CANCELLED });
    const early = await client.list({ since: start, until: middle });

    expect(byType.items.map((r) => r.id)).toEqual([c.id, a.id]);
    expect(byKey.items.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(byStatus.items.map((r) => r.id)).toEqual([c.id]);
    expect(early.items.map((r) => r.id)).toEqual([b.id, a.id]);
  });

  it('rejects bad filters, naming each', async () => {
    const client = executor.client();

    const error = await client
      .list({ status: 'DONE' as TaskStatus, limit: 0, cursor: 'nope' })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
      'status',
      'limit',
      'cursor',
    ]);
  });
});

describe('TaskClient.deadLetters.peek', () => {
  it('shows dead letters without consuming them', async () => {
    const client = executor.client({ deadLetterQueueUrl: executor.deadLetterQueueUrl });
    for (const id of ['t1', 't2', 't3']) {
      await executor.clients.sqs.send(
        new SendMessageCommand({
          QueueUrl: executor.deadLetterQueueUrl,
          ...taskMessage({ id, type: 'email', generation: 1, messageGroupId: id }),
        }),
      );
    }

    const first = await client.deadLetters.peek({ limit: 10 });
    const second = await client.deadLetters.peek({ limit: 10 });
    const stats = await client.deadLetters.stats();

    expect(first.map((m) => m.taskId).sort()).toEqual(['t1', 't2', 't3']);
    expect(second.map((m) => m.taskId).sort()).toEqual(['t1', 't2', 't3']);
    expect(second.every((m) => m.receiveCount >= 2)).toBe(true);
    expect(stats.visible).toBe(3);
    expect(stats.oldestSentAt).toBeLessThanOrEqual(Date.now());
  });

  it('names the missing setting when no dead-letter queue is configured', async () => {
    const client = executor.client({ deadLetterQueueUrl: '' });

    const error = await client.deadLetters.peek().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('TASKLANE_DLQ_URL');
  });
});

describe('TaskClient.deadLetters.stats', () => {
  it('names the queue and the setting when the dead-letter queue does not exist', async () => {
    const missing = executor.deadLetterQueueUrl.replace(/[^/]+$/, 'no-such-dlq.fifo');
    const client = executor.client({ deadLetterQueueUrl: missing });

    const error = await client.deadLetters.stats().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('no-such-dlq.fifo');
    expect((error as Error).message).toContain('TASKLANE_DLQ_URL');
  });
});

describe('TaskClient.purge', () => {
  it('lists with dryRun, then deletes only DEAD tasks older than the cut-off', async () => {
    const client = executor.client();
    const { id: dead } = await client.enqueue(doomed, { n: 1 });
    const { id: queued } = await client.enqueue(email, { n: 2 });
    await executor.deliver(executor.worker([doomed, email]), await executor.receive());
    await client.enqueue(email, { n: 3 });

    const young = await client.purge({ status: TaskStatus.DEAD, olderThan: '1h' });
    const dry = await client.purge({ status: TaskStatus.DEAD, olderThan: 0, dryRun: true });
    const stillThere = await client.get(dead);
    const done = await client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });

    expect(young.purged).toEqual([]);
    expect(dry).toMatchObject({ purged: [dead], dryRun: true });
    expect(stillThere?.status).toBe(TaskStatus.DEAD);
    expect(done.purged).toEqual([dead]);
    expect(await client.get(dead)).toBeUndefined();
    expect((await client.get(queued))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('refuses a status other than DEAD and a malformed duration', async () => {
    const client = executor.client();

    const status = await client
      .purge({ status: 'SUCCEEDED' as 'DEAD', olderThan: '1d' })
      .catch((e: unknown) => e);
    const duration = await client
      .purge({ status: TaskStatus.DEAD, olderThan: 'a month' as '1d' })
      .catch((e: unknown) => e);

    expect((status as Error).message).toContain('only DEAD tasks are purged');
    expect((duration as Error).message).toContain('expected a duration such as');
  });
});
