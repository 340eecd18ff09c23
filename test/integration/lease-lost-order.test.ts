import type { SQSBatchResponse } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, isTerminal, TaskStatus } from '../../src/core/constants.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import type { Worker } from '../../src/worker/create-worker.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';

const KEY = 'ledger-7';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** A gate a handler waits at until the test opens it; `reached` resolves once it waits. */
function gate() {
  let open = (): void => undefined;
  let arrive = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const wait = (): Promise<void> => {
    arrive();
    return opened;
  };
  return { open, reached, wait };
}

/** What the stalled attempt does once it resumes: its outcome is written by a fenced write. */
type AfterStall = 'succeeds' | 'fails';

/**
 * A task whose runs are traced as `start <name>#<attempt>` / `end <name>#<attempt>`; the
 * first attempt of `stallName` waits at `stall` (a worker frozen past its lease), then
 * returns or throws as `afterStall` says.
 */
function tracedStep(stallName: string, stall: ReturnType<typeof gate>, afterStall: AfterStall) {
  const trace: string[] = [];
  const task = defineTask('ledger-step', {
    schema: z.object({ name: z.string() }),
    timeout: 5_000,
    handler: async ({ name }, ctx) => {
      trace.push(`start ${name}#${ctx.attempt}`);
      if (name === stallName && ctx.attempt === 1) {
        await stall.wait();
        trace.push(`end ${name}#${ctx.attempt}`);
        if (afterStall === 'fails') throw new Error('upstream unavailable');
        return;
      }
      trace.push(`end ${name}#${ctx.attempt}`);
    },
  });
  return { task, trace };
}

/** A sweeper whose clock is ten minutes ahead (every live lease has expired), scanning for running tasks. */
function lateSweeper() {
  return createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...executor.clients,
    logger: silentLogger,
    metrics: noopMetrics,
    // RUNNING is not in the status index: the operator's running scan is what requeues a
    // task whose message is still in flight (docs/adr/0052-running-leaves-the-status-index.md),
    // and per-key order must hold then too.
    scanRunning: true,
    clock: () => Date.now() + 10 * 60_000,
  });
}

/**
 * Plays the event source mapping until every listed task is finished and the queue is empty,
 * waiting for messages that are invisible for a while (a returned message comes back after
 * its visibility timeout).
 */
async function runUntilFinished(worker: Worker, ids: readonly string[]): Promise<void> {
  const client = executor.client();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const records = await Promise.all(ids.map((id) => client.get(id)));
    const finished = records.every((r) => r !== undefined && isTerminal(r.status));
    if (finished && (await executor.queueDepth()) === 0) return;
    const batch = await executor.receive({ waitTimeSeconds: 1, visibilityTimeout: 30 });
    if (batch.length > 0) await executor.deliver(worker, batch);
  }
  throw new Error('the tasks did not finish, or the queue did not empty, within 30 s');
}

describe.each<AfterStall>(['succeeds', 'fails'])(
  'worker after a lost lease, when the stalled attempt %s',
  (afterStall) => {
    it('keeps per-key order: the requeued task runs again before the next task of its key', async () => {
      // Arrange: A and B share a key; w1 receives both and freezes inside A past its lease,
      // while the sweeper requeues A and sends a new message for it (at the tail of the group).
      const stall = gate();
      const { task, trace } = tracedStep('A', stall, afterStall);
      const client = executor.client();
      const results = await client.enqueueBatch([
        { task, payload: { name: 'A' }, options: { id: 'A', orderingKey: KEY } },
        { task, payload: { name: 'B' }, options: { id: 'B', orderingKey: KEY } },
      ]);
      expect(results.every((r) => r.ok)).toBe(true);
      const batch = await executor.receive({ visibilityTimeout: 60 });
      expect(batch).toHaveLength(2);
      const stale = executor.worker([task], { workerId: 'w1' });
      const running = executor.deliver(stale, batch);
      await stall.reached;
      // A's new message, and B's copy: B is PENDING until claimed (no write records a send,
      // ADR 0020), so the sweep sends it again; SQS drops the copy (same deduplication id).
      expect(await lateSweeper().run()).toMatchObject({ requeued: 1, sent: 2 });

      // Act: w1 resumes; then another worker carries on with whatever the queue delivers.
      stall.open();
      const staleResponse: SQSBatchResponse = await running;
      await runUntilFinished(executor.worker([task], { workerId: 'w2' }), ['A', 'B']);

      // Assert: w1 handed both messages back; A's second attempt ran before B, and B ended last.
      expect(staleResponse.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
        batch.map((r) => r.messageId).sort(),
      );
      expect(trace.filter((t) => t.startsWith('start'))).toEqual([
        'start A#1',
        'start A#2',
        'start B#1',
      ]);
      expect(trace.at(-1)).toBe('end B#1');
      const [a, b] = await Promise.all([client.get('A'), client.get('B')]);
      expect(a).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 2 });
      expect(b).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
      expect((a?.finishedAt ?? Infinity) < (b?.finishedAt ?? 0)).toBe(true);
      expect(a?.history.filter((h) => h.event === AuditEvent.SUCCEEDED)).toHaveLength(1);
    });
  },
);
