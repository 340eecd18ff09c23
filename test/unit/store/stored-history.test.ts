/** The stored form of history entries (docs/adr/0027-compact-history.md). */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import { fromItem } from '../../../src/store/record.js';
import {
  fromStoredEntry,
  inheritWorkers,
  shortWorkerId,
  toStoredEntry,
  toStoredHistory,
} from '../../../src/store/stored-history.js';

const LAMBDA_WORKER_ID = '2026/12/01/[$LATEST]0123456789abcdef0123456789abcdef';
const SHORT = shortWorkerId(LAMBDA_WORKER_ID);

const run: HistoryEntry[] = [
  { event: AuditEvent.SUBMITTED, at: 1, attempt: 0, status: TaskStatus.PENDING },
  { event: AuditEvent.CLAIMED, at: 2, attempt: 1, status: TaskStatus.RUNNING, workerId: SHORT },
  {
    event: AuditEvent.RETRY_SCHEDULED,
    at: 3,
    attempt: 1,
    status: TaskStatus.QUEUED,
    workerId: SHORT,
    detail: 'Error: boom (next attempt in 5 ms)',
  },
  { event: AuditEvent.CLAIMED, at: 4, attempt: 2, status: TaskStatus.RUNNING, workerId: 'w-2' },
  { event: AuditEvent.SUCCEEDED, at: 5, attempt: 2, status: TaskStatus.SUCCEEDED, workerId: 'w-2' },
];

describe('shortWorkerId', () => {
  it('keeps an id of up to 16 characters as it is', () => {
    expect(shortWorkerId('proc-3.2')).toBe('proc-3.2');
    expect(shortWorkerId('x'.repeat(16))).toBe('x'.repeat(16));
  });

  it('stores a longer id as a stable 10-character digest, which maps to itself', () => {
    const short = shortWorkerId(LAMBDA_WORKER_ID);

    expect(short).toMatch(/^~[A-Za-z0-9_-]{9}$/);
    expect(shortWorkerId(LAMBDA_WORKER_ID)).toBe(short);
    expect(shortWorkerId(`${LAMBDA_WORKER_ID}0`)).not.toBe(short);
    expect(shortWorkerId(short)).toBe(short);
  });
});

describe('toStoredEntry', () => {
  it('stores a claim with one-letter names, a code, and the short worker id', () => {
    const entry = { ...(run[1] as HistoryEntry), workerId: LAMBDA_WORKER_ID };

    expect(toStoredEntry(entry)).toEqual({ e: 'c', t: 2, a: 1, w: SHORT });
  });

  it('leaves out the worker of a success and a retry, which read it from their claim', () => {
    const stored = run.map(toStoredEntry);

    expect(stored[2]).toEqual({ e: 'r', t: 3, a: 1, d: 'Error: boom (next attempt in 5 ms)' });
    expect(stored[4]).toEqual({ e: 'ok', t: 5, a: 2 });
    expect(inheritWorkers(stored.map(fromStoredEntry))).toEqual(run);
  });

  it('keeps a status the event does not imply, and an event without a code by name', () => {
    const entry: HistoryEntry = {
      event: AuditEvent.DUPLICATE_DROPPED,
      at: 9,
      attempt: 1,
      status: TaskStatus.SUCCEEDED,
      detail: 'already SUCCEEDED',
    };
    const sent: HistoryEntry = { event: AuditEvent.SENT, at: 2, attempt: 0, status: 'QUEUED' };

    expect(fromStoredEntry(toStoredEntry(entry))).toEqual(entry);
    expect(toStoredEntry(sent)).toEqual({ e: 'sent', t: 2, s: 'QUEUED' });
    expect(fromStoredEntry(toStoredEntry(sent))).toEqual(sent);
  });
});

describe('toStoredHistory', () => {
  it('keeps the worker of a success whose claim the fold dropped', () => {
    const folded = [run[0], run[4]] as HistoryEntry[];

    const stored = toStoredHistory(folded);

    expect(stored[1]).toEqual({ e: 'ok', t: 5, a: 2, w: 'w-2' });
    expect(inheritWorkers(stored.map(fromStoredEntry))).toEqual(folded);
  });
});

describe('fromItem', () => {
  const item = {
    pk: 'task-1',
    type: 'report.build',
    status: TaskStatus.SUCCEEDED,
    payload: '{"a":1}',
    attempt: 2,
    maxAttempts: 3,
    createdAt: 1,
    updatedAt: 5,
  };

  it('reads compact entries, the worker from the latest claim, and what the item leaves out', () => {
    const record = fromItem({ ...item, history: toStoredHistory(run) });

    expect(record.history).toEqual(run);
    expect(record.workerId).toBe('w-2');
    expect(record.messageGroupId).toBe('~task-1');
    expect(record.finishedAt).toBe(5);
    expect(record.payloadHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads entries and attributes written before the compact form as they are', () => {
    const record = fromItem({
      ...item,
      workerId: 'legacy-worker',
      messageGroupId: 'group-1',
      payloadHash: 'hash-1',
      finishedAt: 4,
      history: run,
    });

    expect(record.history).toEqual(run);
    expect(record.workerId).toBe('w-2');
    expect(record.messageGroupId).toBe('group-1');
    expect(record.payloadHash).toBe('hash-1');
    expect(record.finishedAt).toBe(4);
  });

  it('shows no worker after a redrive, as a redrive clears it', () => {
    const redriven: HistoryEntry = {
      event: AuditEvent.REDRIVEN,
      at: 6,
      attempt: 0,
      status: TaskStatus.PENDING,
    };

    const record = fromItem({ ...item, history: toStoredHistory([...run, redriven]) });

    expect(record.workerId).toBeUndefined();
  });
});
