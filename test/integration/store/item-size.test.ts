/** The largest task stays writable for as many attempts as a definition allows. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { prepareTask } from '../../../src/client/prepare.js';
import { AuditEvent, Defaults, TaskStatus } from '../../../src/core/constants.js';
import type { TaskErrorInfo } from '../../../src/core/record.js';
import { historyBytes } from '../../../src/store/history.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import {
  clock,
  createQueued,
  current,
  LEASE_MS,
  store,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-item-size');

describe('TaskStore item size', () => {
  /** As long as a Lambda worker id gets: a 64-character function name and its log stream. */
  const LAMBDA_WORKER_ID = `${'f'.repeat(64)}/2030/01/01/[$LATEST]${'0'.repeat(32)}`;
  const ATTEMPTS = Defaults.MAX_ATTEMPTS_LIMIT;

  it('keeps the largest task writable through every attempt, each failing with a long error', async () => {
    // Arrange: the largest payload and the most attempts a task definition allows.
    const definition = defineTask('report.build', {
      schema: z.string(),
      handler: () => undefined,
      retry: { maxAttempts: ATTEMPTS },
    });
    const payload = 'x'.repeat(Defaults.MAX_PAYLOAD_BYTES - 2); // Plus two quotes as JSON.
    const task = await prepareTask(
      definition,
      payload,
      { id: 'size-worst' },
      Defaults.MAX_PAYLOAD_BYTES,
    );
    expect(Buffer.byteLength(task.payloadJson)).toBe(Defaults.MAX_PAYLOAD_BYTES);
    expect(task.maxAttempts).toBe(ATTEMPTS);
    const error: TaskErrorInfo = { name: 'UpstreamError', message: 'e'.repeat(2_000) };
    let record = await createQueued(task.id, task);

    // Act: the processor's writes, attempt after attempt; the final failure kills the task.
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      clock.now += 1_000;
      const { lease } = await store.claim(record, {
        workerId: LAMBDA_WORKER_ID,
        leaseMs: LEASE_MS,
        detail: `message ${randomUUID()}, receive ${attempt}`,
      });
      clock.now += 1_000;
      record =
        attempt < ATTEMPTS
          ? await store.retry(lease, error, Defaults.RETRY_MAX_DELAY_MS)
          : await store.kill(
              lease,
              `failed ${attempt} of ${ATTEMPTS} attempts; last error: ${error.name}: ${error.message}`,
              { error },
            );
    }

    // Assert
    expect(record).toMatchObject({ status: TaskStatus.DEAD, attempt: ATTEMPTS, payload });
    // The history kept its budget: the first entries and the newest; the rest are counted.
    expect(record.history.length + record.historyTruncated).toBe(2 + ATTEMPTS + (ATTEMPTS - 1) + 1);
    expect(record.historyTruncated).toBeGreaterThan(0);
    expect(historyBytes(record.history)).toBeLessThanOrEqual(Defaults.HISTORY_BUDGET_BYTES);
    expect(record.history[0]?.event).toBe(AuditEvent.SUBMITTED);
    expect(record.history.slice(-2).map((h) => [h.event, h.attempt])).toEqual([
      [AuditEvent.CLAIMED, ATTEMPTS],
      [AuditEvent.DEAD, ATTEMPTS],
    ]);
    for (const entry of record.history) {
      expect(entry.detail?.length ?? 0).toBeLessThanOrEqual(240);
    }
    expect(record.history.at(-1)?.detail).toHaveLength(240);
    expect(record.history.at(-1)?.detail).toMatch(/^failed \d+ of \d+ attempts; last error: .*…$/);
    expect(record.deadReason).toHaveLength(1_000);
    expect(record.deadReason?.endsWith('…')).toBe(true);
    expect(await current(task.id)).toEqual(record);
  }, 180_000); // 200 writes of a 256 KB item: slow on the emulator under load.
});
