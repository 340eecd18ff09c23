/**
 * TaskStore without a database: a middleware answers every command before it is serialized,
 * so these tests pin down what the store asks DynamoDB to write. How the writes behave
 * against a table is specified in test/integration/store.test.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { fromStoredEntry } from '../../../src/store/history.js';
import { type Lease, TaskStore } from '../../../src/store/task-store.js';
import { FIXTURE_NOW } from '../../helpers/task-record.js';

const MAX_DETAIL_CHARS = 240;
const MAX_DEAD_REASON_CHARS = 1_000;
const lease: Lease = {
  taskId: 'task-1',
  taskType: 'report.build',
  attempt: 1,
  leaseToken: 'token-1',
  workerId: 'worker-a',
};

interface SentUpdate {
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** A store whose client never reaches the network; `updates` holds each UpdateItem input. */
function offlineStore(): { store: TaskStore; updates: SentUpdate[] } {
  const updates: SentUpdate[] = [];
  const dynamodb = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'offline', secretAccessKey: 'offline' },
  });
  dynamodb.middlewareStack.add(
    () => async (args) => {
      updates.push(args.input as SentUpdate);
      return { output: { $metadata: {} }, response: {} };
    },
    { step: 'initialize', name: 'answerOffline' },
  );
  const store = new TaskStore({
    tableName: 'tasks',
    dynamodb,
    logger: silentLogger,
    clock: () => FIXTURE_NOW,
  });
  return { store, updates };
}

/** The history entry an UpdateItem appends. */
function appendedEntry(update: SentUpdate | undefined): HistoryEntry {
  // The entry as stored (docs/adr/0027-compact-history.md), read back as a record reads it.
  const entries = update?.ExpressionAttributeValues[':entry'] as unknown[] | undefined;
  if (entries?.length !== 1) throw new Error('expected one appended history entry');
  return fromStoredEntry(entries[0]);
}

describe('TaskStore.kill', () => {
  it('writes a reason of exactly 240 characters as the history detail, whole', async () => {
    const { store, updates } = offlineStore();
    const reason = 'r'.repeat(MAX_DETAIL_CHARS);

    await store.kill(lease, reason);

    expect(appendedEntry(updates[0]).detail).toBe(reason);
  });

  it('truncates a longer reason to a 240-character detail ending in "…"', async () => {
    const { store, updates } = offlineStore();
    const reason = `${'r'.repeat(MAX_DETAIL_CHARS - 1)}-and-more`;

    await store.kill(lease, reason);

    const { detail } = appendedEntry(updates[0]);
    expect(detail).toHaveLength(MAX_DETAIL_CHARS);
    expect(detail).toBe(`${'r'.repeat(MAX_DETAIL_CHARS - 1)}…`);
  });

  it('truncates the dead reason to 1,000 characters ending in "…"', async () => {
    const { store, updates } = offlineStore();
    const reason = 'd'.repeat(5_000);

    await store.kill(lease, reason);

    const deadReason = updates[0]?.ExpressionAttributeValues[':deadReason'];
    expect(deadReason).toBe(`${'d'.repeat(MAX_DEAD_REASON_CHARS - 1)}…`);
  });
});

describe('TaskStore.retry', () => {
  it('truncates the detail built from a long error message to 240 characters ending in "…"', async () => {
    const { store, updates } = offlineStore();
    const error = { name: 'UpstreamError', message: 'e'.repeat(2_000) };

    await store.retry(lease, error, 5_000);

    const entry = appendedEntry(updates[0]);
    expect(entry).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1 });
    expect(entry.detail).toHaveLength(MAX_DETAIL_CHARS);
    expect(entry.detail).toMatch(/^UpstreamError: e+…$/);
  });
});
