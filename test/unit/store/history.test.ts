import { describe, expect, it } from 'vitest';
import { AuditEvent, Defaults, TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import {
  entryBytes,
  foldHistory,
  historyBytes,
  MAX_DETAIL_CHARS,
  planHistory,
} from '../../../src/store/history.js';

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
