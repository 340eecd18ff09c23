/**
 * The item stays bounded however long a task runs: heartbeats are counted, not listed; the
 * history folds past its budget; and an item an older version let grow near DynamoDB's
 * 400 KB still reaches its terminal state.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, Defaults, TaskStatus } from '../../src/core/constants.js';
import type { HistoryEntry } from '../../src/core/record.js';
import { historyBytes } from '../../src/store/history.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem, rawItemBytes } from '../helpers/raw-item.js';

/** As long as a Lambda worker id gets: a 64-character function name and its log stream. */
const LAMBDA_WORKER_ID = `${'f'.repeat(64)}/2030/01/01/[$LATEST]${'0'.repeat(32)}`;
const KB = 1024;

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** `count` heartbeat entries, as versions before the history budget appended them. */
function legacyHeartbeats(count: number, attempt: number): HistoryEntry[] {
  return Array.from({ length: count }, (_, n) => ({
    event: AuditEvent.HEARTBEAT_EXTENDED,
    at: 1_700_000_000_000 + n * 1_000,
    attempt,
    status: TaskStatus.RUNNING,
    workerId: LAMBDA_WORKER_ID,
  }));
}

describe('ctx.heartbeat', () => {
  it('counts every heartbeat of a long run on the record instead of listing it', async () => {
    // Arrange: 100 heartbeats through the whole worker path (lease and message visibility),
    // each two emulator requests. Listed, they would take about 18 KB, past the history budget
    // (16 KB) and the 2 KB the item is allowed here: more would only cost time. The worker
    // may add automatic ones (every 40 s with its default 120 s lease).
    const HEARTBEATS = 100;
    const long = defineTask('long.import', {
      schema: z.object({ rows: z.number() }),
      timeout: 600_000,
      handler: async ({ rows }, ctx) => {
        for (let row = 0; row < rows; row++) await ctx.heartbeat();
        return rows;
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(long, { rows: HEARTBEATS });
    const logger = recordingLogger();
    const worker = executor.worker([long], { logger, workerId: LAMBDA_WORKER_ID });
    const started = Date.now();

    // Act
    const response = await executor.deliver(worker, await executor.receive());

    // Assert
    const record = await client.get(id);
    expect(response.batchItemFailures).toEqual([]);
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      result: HEARTBEATS,
      historyTruncated: 0,
    });
    const logged = logger.lines.filter((l) => l.attributes.event === AuditEvent.HEARTBEAT_EXTENDED);
    expect(record?.heartbeats).toBeGreaterThanOrEqual(HEARTBEATS);
    expect(record?.heartbeats).toBe(logged.length);
    expect(record?.lastHeartbeatAt).toBeGreaterThanOrEqual(started);
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
    expect(await rawItemBytes(executor, id)).toBeLessThan(2 * KB);
  }, 600_000);
});

describe('terminal writes near the item size limit', () => {
  it('completes a task whose history an older version grew near 400 KB, keeping its result', async () => {
    // Arrange: a running task with a 240 KB payload and 740 heartbeat entries an older
    // version appended (about 140 KB): its 30 KB result no longer fits beside them.
    const task = defineTask('legacy.report', {
      schema: z.object({ blob: z.string() }),
      handler: () => undefined,
    });
    const client = executor.client();
    const { id } = await client.enqueue(task, { blob: 'x'.repeat(240 * KB) });
    const seen = await executor.store.get(id);
    if (seen === undefined) throw new Error('expected the record');
    const { lease } = await executor.store.claim(seen, {
      workerId: LAMBDA_WORKER_ID,
      leaseMs: 60_000,
    });
    const item = await rawItem(executor, id);
    const legacy = legacyHeartbeats(740, 1);
    await putRawItem(executor, { ...item, history: [...(item.history as unknown[]), ...legacy] });
    const before = await rawItemBytes(executor, id);
    const result = JSON.stringify('r'.repeat(30 * KB));

    // Act
    const record = await executor.store.complete(lease, result);

    // Assert
    expect(before).toBeGreaterThan(370 * KB);
    expect(before + 30 * KB).toBeGreaterThan(400 * KB);
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(record.result).toHaveLength(30 * KB);
    expect(record.history[0]?.event).toBe(AuditEvent.SUBMITTED);
    expect(record.history.at(-1)?.event).toBe(AuditEvent.SUCCEEDED);
    expect(record.historyTruncated).toBeGreaterThan(0);
    // submitted and claimed, the legacy entries, and succeeded.
    expect(record.history.length + record.historyTruncated).toBe(2 + legacy.length + 1);
    expect(historyBytes(record.history)).toBeLessThanOrEqual(Defaults.HISTORY_BUDGET_BYTES);
    expect(await rawItemBytes(executor, id)).toBeLessThan(300 * KB);
    expect(await client.get(id)).toEqual(record);
  });

  it('ends the task without its result when even a folded history leaves no room for it', async () => {
    // Arrange: a 370 KB payload (larger than producers may send, as an older version could
    // store): no 32 KB result fits beside it.
    const client = executor.client();
    const { record: created } = await executor.store.feature(RecordWrites).create({
      id: 'huge-payload',
      type: 'legacy.report',
      payloadJson: JSON.stringify({ blob: 'x'.repeat(370 * KB) }),
      payloadHash: 'hash',
      maxAttempts: 3,
      timeoutMs: 60_000,
      messageGroupId: 'huge-payload',
    });
    const { lease } = await executor.store.claim(created, {
      workerId: LAMBDA_WORKER_ID,
      leaseMs: 60_000,
    });

    // Act
    const record = await executor.store.complete(lease, JSON.stringify('r'.repeat(32 * KB - 2)));

    // Assert
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: undefined });
    expect(record.history.at(-1)).toMatchObject({
      event: AuditEvent.SUCCEEDED,
      detail: expect.stringContaining('result not stored'),
    });
    expect(await client.get('huge-payload')).toEqual(record);
  });
});
