import type { SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** A task whose runs leave `start <name>` and `end <name>` in `trace`, 300 ms apart. */
function tracedTask() {
  const trace: string[] = [];
  const task = defineTask('traced-batch', {
    schema: z.object({ name: z.string() }),
    handler: async ({ name }) => {
      trace.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, 300));
      trace.push(`end ${name}`);
    },
  });
  return { task, trace };
}

/**
 * Enqueues `fresh-1`, `fresh-2` and `suspect`, whose last attempt crashed its worker (its
 * lease expired at once), and receives their messages, split into two batches: the fresh
 * tasks, and the suspect alone.
 */
async function twoBatches(task: ReturnType<typeof tracedTask>['task']) {
  const client = executor.client();
  for (const name of ['fresh-1', 'fresh-2', 'suspect']) {
    await client.enqueue(task, { name }, { id: name });
  }
  const suspect = await client.get('suspect');
  if (suspect === undefined) throw new Error('expected the record');
  await executor.store.claim(suspect, { workerId: 'crashed', leaseMs: 1 });
  await new Promise((r) => setTimeout(r, 5));
  const received = await executor.receive({ visibilityTimeout: 60 });
  expect(received).toHaveLength(3);
  const isSuspect = (r: SQSRecord) => JSON.parse(r.body).id === 'suspect';
  return { fresh: received.filter((r) => !isSuspect(r)), takeover: received.filter(isSuspect) };
}

describe('Worker.processBatch with batches at once (poll concurrency)', () => {
  it('starts a takeover only after the fresh tasks of another running batch have ended', async () => {
    const { task, trace } = tracedTask();
    const { fresh, takeover } = await twoBatches(task);
    const worker = executor.worker([task]);

    // The fresh batch first, then the takeover batch once its tasks run (their 300 ms).
    const freshDone = worker.processBatch(fresh);
    await eventually(() => trace.length >= 2);
    await Promise.all([freshDone, worker.processBatch(takeover)]);

    expect(trace.slice(0, 2).sort()).toEqual(['start fresh-1', 'start fresh-2']);
    expect(trace.slice(4)).toEqual(['start suspect', 'end suspect']);
  });

  it('holds a batch of fresh tasks back while another batch runs a takeover', async () => {
    const { task, trace } = tracedTask();
    const { fresh, takeover } = await twoBatches(task);
    const worker = executor.worker([task]);

    // The takeover batch first, then the fresh batch once the takeover runs (its 300 ms).
    const takeoverDone = worker.processBatch(takeover);
    await eventually(() => trace.includes('start suspect'));
    const responses = await Promise.all([takeoverDone, worker.processBatch(fresh)]);

    expect(trace.slice(0, 2)).toEqual(['start suspect', 'end suspect']);
    expect(trace).toHaveLength(6);
    expect(responses.flatMap((r) => r.batchItemFailures)).toEqual([]);
    const records = await Promise.all(
      ['fresh-1', 'fresh-2', 'suspect'].map((id) => executor.client().get(id)),
    );
    expect(records.map((r) => r?.status)).toEqual([
      TaskStatus.SUCCEEDED,
      TaskStatus.SUCCEEDED,
      TaskStatus.SUCCEEDED,
    ]);
  });
});
