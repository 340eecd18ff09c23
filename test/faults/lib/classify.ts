/**
 * Jepsen-style classification of every task of a scenario, from three sources that must
 * agree: what the producer was told (enqueue returned), the task record with its history
 * (what the system says happened), and the effects ledger (what actually happened).
 */
import { AuditEvent, isTerminal, type TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry, TaskRecord } from '../../../src/core/record.js';
import type { LedgerEntry, RunEntry } from './ledger.js';

/** What a task should end as. */
export interface Expectation {
  readonly status: TaskStatus;
  /** Side effects a correct run produces: 1 for work that succeeds, 0 for poison. */
  readonly effects: 0 | 1;
}

export type Category = 'exactly-once' | 'lost' | 'duplicated' | 'unexpected';

/** The verdict on one task. */
export interface TaskVerdict {
  readonly id: string;
  readonly category: Category;
  readonly status: TaskStatus | 'MISSING';
  readonly effects: number;
  readonly calls: number;
  readonly terminalWrites: number;
  readonly lostLeases: number;
  readonly timeouts: number;
  readonly attempt: number;
  /** Effects beyond the expected count that no lost lease in the history explains. */
  readonly unexplained: number;
  readonly reasons: readonly string[];
}

/** The figures of one scenario (the columns of RELIABILITY.md). */
export interface Figures {
  readonly tasks: number;
  readonly exactlyOnce: number;
  readonly lost: number;
  /** Effects beyond the expected count, summed over tasks. */
  readonly duplicatedEffects: number;
  /** Terminal history entries beyond the first, summed over tasks. */
  readonly duplicatedTerminalWrites: number;
  readonly unexpected: number;
  readonly lostLeases: number;
  /** Of the lost leases, attempts that timed out. */
  readonly timedOutAttempts: number;
  /** Duplicated effects not explained by a lost lease visible in the history. */
  readonly unexplainedDuplicates: number;
  readonly maxAttemptsSeen: number;
  /** Tasks with a claim beyond their maxAttempts. */
  readonly attemptsOverLimit: number;
  readonly handlerCalls: number;
}

const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.CANCELLED,
]);
/** Events by which the worker holding an attempt's lease ends that attempt itself. */
const ATTEMPT_ENDINGS: ReadonlySet<string> = new Set([
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.FAILED,
]);

/**
 * Leases lost in a history: an attempt that was requeued by the sweeper, taken over by a
 * newer claim, or declared dead when its lease ran out, instead of being ended by its own
 * worker. A timed-out attempt counts too (docs/design.md §1.3: "a lease was lost (a crash or
 * timeout)"): its handler may still finish its effect after the attempt was given up.
 */
export function leaseLosses(history: readonly HistoryEntry[]): { lost: number; timeouts: number } {
  let lost = 0;
  let timeouts = 0;
  let open = false;
  for (const entry of history) {
    const timedOut = entry.detail?.includes('TaskTimeoutError') === true;
    if (entry.event === AuditEvent.CLAIMED) {
      if (open) lost += 1;
      open = true;
    } else if (entry.event === AuditEvent.REQUEUED) {
      if (open) lost += 1;
      open = false;
    } else if (entry.event === AuditEvent.DEAD && entry.detail?.startsWith('lease expired')) {
      if (open) lost += 1;
      open = false;
    } else if (ATTEMPT_ENDINGS.has(entry.event)) {
      if (open && timedOut) {
        lost += 1;
        timeouts += 1;
      }
      open = false;
    }
  }
  return { lost, timeouts };
}

export function classifyTask(
  id: string,
  record: TaskRecord | undefined,
  effects: readonly RunEntry[],
  calls: number,
  expected: Expectation,
): TaskVerdict {
  if (record === undefined) {
    return {
      id,
      category: 'lost',
      status: 'MISSING',
      effects: effects.length,
      calls,
      terminalWrites: 0,
      lostLeases: 0,
      timeouts: 0,
      attempt: 0,
      unexplained: 0,
      reasons: ['no task record'],
    };
  }
  const history = record.history;
  // A redrive starts a new generation: the DEAD that ended the one before is not a duplicate.
  const redrivenAt = history.findLastIndex((h) => h.event === AuditEvent.REDRIVEN);
  const terminalWrites = history
    .slice(redrivenAt + 1)
    .filter((h) => TERMINAL_EVENTS.has(h.event)).length;
  const { lost: leases, timeouts } = leaseLosses(history);
  const claims = history.filter((h) => h.event === AuditEvent.CLAIMED);
  const reasons: string[] = [];
  // Every effect must belong to an attempt the history shows: claimed by that worker.
  const invisible = effects.filter(
    (e) => !claims.some((c) => c.attempt === e.attempt && c.workerId === e.workerId),
  ).length;
  if (invisible > 0) reasons.push(`${invisible} effect(s) by an attempt missing from the history`);
  const extra = Math.max(0, effects.length - expected.effects);
  const unexplained = Math.max(0, extra - leases) + invisible;
  const overLimit = claims.some((c) => c.attempt > record.maxAttempts);
  if (overLimit) reasons.push(`attempt above maxAttempts ${record.maxAttempts}`);

  let category: Category;
  if (!isTerminal(record.status)) {
    category = 'lost';
    reasons.push(`still ${record.status} after quiescing`);
  } else if (extra > 0 || terminalWrites > 1) {
    category = 'duplicated';
    if (extra > 0) reasons.push(`${effects.length} effects (${leases} lost lease(s))`);
    if (terminalWrites > 1) reasons.push(`${terminalWrites} terminal writes`);
  } else if (
    record.status !== expected.status ||
    effects.length !== expected.effects ||
    invisible > 0 ||
    overLimit
  ) {
    category = 'unexpected';
    if (record.status !== expected.status) {
      reasons.push(`${record.status}, expected ${expected.status} (${record.deadReason ?? ''})`);
    }
    if (effects.length !== expected.effects) {
      reasons.push(`${effects.length} effects, expected ${expected.effects}`);
    }
  } else {
    category = 'exactly-once';
  }
  return {
    id,
    category,
    status: record.status,
    effects: effects.length,
    calls,
    terminalWrites,
    lostLeases: leases,
    timeouts,
    attempt: Math.max(record.attempt, ...claims.map((c) => c.attempt)),
    unexplained,
    reasons,
  };
}

/** Classifies every enqueued task and sums the figures. */
export function classify(
  expected: ReadonlyMap<string, Expectation>,
  records: ReadonlyMap<string, TaskRecord>,
  ledger: readonly LedgerEntry[],
  calls: readonly RunEntry[],
): { figures: Figures; verdicts: TaskVerdict[] } {
  const byTask = new Map<string, LedgerEntry[]>();
  for (const entry of ledger) {
    const list = byTask.get(entry.taskId) ?? [];
    list.push(entry);
    byTask.set(entry.taskId, list);
  }
  const callCount = new Map<string, number>();
  for (const call of calls) callCount.set(call.taskId, (callCount.get(call.taskId) ?? 0) + 1);
  const verdicts = [...expected].map(([id, expectation]) =>
    classifyTask(id, records.get(id), byTask.get(id) ?? [], callCount.get(id) ?? 0, expectation),
  );
  const count = (c: Category) => verdicts.filter((v) => v.category === c).length;
  const sum = (f: (v: TaskVerdict) => number) => verdicts.reduce((n, v) => n + f(v), 0);
  const figures: Figures = {
    tasks: verdicts.length,
    exactlyOnce: count('exactly-once'),
    lost: count('lost'),
    duplicatedEffects: sum((v) => Math.max(0, v.effects - (expected.get(v.id)?.effects ?? 0))),
    duplicatedTerminalWrites: sum((v) => Math.max(0, v.terminalWrites - 1)),
    unexpected: count('unexpected'),
    lostLeases: sum((v) => v.lostLeases),
    timedOutAttempts: sum((v) => v.timeouts),
    unexplainedDuplicates: sum((v) => v.unexplained),
    maxAttemptsSeen: Math.max(0, ...verdicts.map((v) => v.attempt)),
    attemptsOverLimit: verdicts.filter((v) => v.reasons.some((r) => r.startsWith('attempt above')))
      .length,
    handlerCalls: sum((v) => v.calls),
  };
  return { figures, verdicts };
}
