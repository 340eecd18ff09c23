/**
 * A task's stored history: its byte budget (docs/adr/0008-bounded-history.md) and its stored
 * form (docs/adr/0027-compact-history.md).
 */
import { describe, expect, it } from 'vitest';
import { AuditEvent, Defaults, TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import {
  entryBytes,
  foldHistory,
  fromStoredEntry,
  historyBytes,
  inheritWorkers,
  MAX_DETAIL_CHARS,
  planHistory,
  shortWorkerId,
  toStoredEntry,
  toStoredHistory,
} from '../../../src/store/history.js';
import { fromItem } from '../../../src/store/record.js';

/** An entry of about `detailChars` + 90 bytes. */
function entry(n: number, detailChars = 100): HistoryEntry {
  return {
    event: n === 0 ? AuditEvent.SUBMITTED : AuditEvent.CLAIMED,
    at: 1_700_000_000_000 + n,
    attempt: n,
    status: TaskStatus.RUNNING,
    workerId: 'worker-1',
    detail: 'd'.repeat(detailChars),
  };
}

function entries(count: number, detailChars?: number): HistoryEntry[] {
  return Array.from({ length: count }, (_, n) => entry(n, detailChars));
}

describe('entryBytes', () => {
  it('measures the UTF-8 bytes of the entry as JSON', () => {
    const e: HistoryEntry = { event: AuditEvent.SENT, at: 1, attempt: 0, status: 'QUEUED' };

    expect(entryBytes(e)).toBe(JSON.stringify(e).length);
    expect(entryBytes({ ...e, detail: 'é' })).toBe(
      JSON.stringify({ ...e, detail: 'é' }).length + 1,
    );
    expect(historyBytes([e, e])).toBe(2 * entryBytes(e));
  });
});

describe('planHistory', () => {
  it('appends while the history and the new entry fit in the budget', () => {
    const plan = planHistory(entries(3), entry(3), { budgetBytes: 10_000 });

    expect(plan).toEqual({ kind: 'append' });
  });

  it('appends when the caller holds no history to fold', () => {
    expect(planHistory(undefined, entry(1), { budgetBytes: 1 })).toEqual({ kind: 'append' });
  });

  it('folds past the budget down to its fold target, keeping the first and the newest entries', () => {
    const seen = entries(50);
    const next = entry(50);
    const budget = 2_000;

    const plan = planHistory(seen, next, { budgetBytes: budget });

    if (plan.kind !== 'rewrite') throw new Error('expected a rewrite');
    expect(plan.seenLength).toBe(50);
    expect(plan.entries[0]).toEqual(seen[0]);
    expect(plan.entries.at(-1)).toEqual(next);
    expect(historyBytes(plan.entries)).toBeLessThanOrEqual(budget * Defaults.HISTORY_FOLD_TARGET);
    expect(plan.dropped + plan.entries.length).toBe(51);
    const kept = plan.entries.slice(1).map((e) => e.attempt);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, n) => 51 - kept.length + n));
  });

  it('keeps every entry once the history is folded, whatever the number of transitions', () => {
    // 3,000 transitions, each planned from the history the previous one left.
    let history: HistoryEntry[] = [entry(0, 240)];
    let truncated = 0;

    for (let n = 1; n <= 3_000; n++) {
      const next = entry(n, MAX_DETAIL_CHARS);
      const plan = planHistory(history, next);
      if (plan.kind === 'append') {
        history = [...history, next];
      } else {
        history = [...plan.entries];
        truncated += plan.dropped;
      }
    }

    expect(historyBytes(history)).toBeLessThanOrEqual(Defaults.HISTORY_BUDGET_BYTES);
    expect(history.length + truncated).toBe(3_001);
    expect(history[0]?.attempt).toBe(0);
    expect(history.at(-1)?.attempt).toBe(3_000);
  }, 30_000);

  it('rewrites without dropping anything when forced within the budget', () => {
    const plan = planHistory(entries(2), entry(2), { budgetBytes: 10_000, force: true });

    expect(plan).toEqual({ kind: 'rewrite', entries: entries(3), dropped: 0, seenLength: 2 });
  });

  it('folds a heartbeat-only write (no new entry) when forced past the budget', () => {
    const plan = planHistory(entries(40), undefined, { budgetBytes: 1_000, force: true });

    if (plan.kind !== 'rewrite') throw new Error('expected a rewrite');
    expect(plan.entries[0]).toEqual(entry(0));
    expect(plan.entries.at(-1)).toEqual(entry(39));
    expect(plan.seenLength).toBe(40);
    expect(plan.dropped).toBe(40 - plan.entries.length);
  });
});

describe('foldHistory', () => {
  it('keeps a history of one or two entries as it is', () => {
    expect(foldHistory(entries(2), 1)).toEqual(entries(2));
    expect(foldHistory([], 1)).toEqual([]);
  });

  it('keeps the first and the newest entry even when they alone pass the target', () => {
    const folded = foldHistory(entries(5, 1_000), 10);

    expect(folded).toEqual([entry(0, 1_000), entry(4, 1_000)]);
  });

  it('keeps everything that fits the target', () => {
    const history = entries(4);

    expect(foldHistory(history, historyBytes(history))).toEqual(history);
    expect(foldHistory(history, historyBytes(history) - 1)).toEqual([
      history[0],
      history[2],
      history[3],
    ]);
  });
});

// The stored form of history entries (docs/adr/0027-compact-history.md).

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
