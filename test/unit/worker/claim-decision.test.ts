import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import {
  type ClaimDecision,
  decideClaim,
  isLeaseTakeover,
} from '../../../src/worker/claim-decision.js';
import { FIXTURE_NOW, taskRecord as record } from '../../helpers/task-record.js';

const NOW = FIXTURE_NOW;
const LEASE_LEFT_MS = 5_000;
const DUE_IN_MS = 7_000;
const MAX_ATTEMPTS = 3;

interface Row {
  readonly status: TaskStatus;
  readonly lease: 'live' | 'expired';
  readonly attempts: 'left' | 'exhausted';
  readonly schedule: 'due' | 'not due';
  readonly expected: ClaimDecision;
}

const claim: ClaimDecision = { kind: 'claim' };
const dropDuplicate: ClaimDecision = { kind: 'drop-duplicate' };
const expire: ClaimDecision = { kind: 'expire' };
const leased: ClaimDecision = {
  kind: 'defer',
  delayMs: LEASE_LEFT_MS,
  reason: 'leased by another attempt',
};
const notYetDue: ClaimDecision = { kind: 'defer', delayMs: DUE_IN_MS, reason: 'not yet due' };
const sleeping: ClaimDecision = {
  kind: 'hold',
  delayMs: DUE_IN_MS,
  reason: 'suspended, not due yet',
};

/**
 * The specification, one line per status: what a delivered message leads to. The lease only
 * matters to RUNNING and the due time only to tasks still waiting to start (SCHEDULED,
 * PENDING, QUEUED); the table still crosses every status with every axis, to show the
 * others are ignored.
 */
function expectedDecision(row: Omit<Row, 'expected'>): ClaimDecision {
  const left = row.attempts === 'left';
  switch (row.status) {
    case TaskStatus.SUCCEEDED:
    case TaskStatus.DEAD:
    case TaskStatus.CANCELLED:
    case TaskStatus.ROLLED_BACK:
    case TaskStatus.WAITING:
      return dropDuplicate;
    case TaskStatus.RUNNING:
      if (row.lease === 'live') return leased;
      return left ? claim : expire;
    case TaskStatus.SCHEDULED:
    case TaskStatus.PENDING:
    case TaskStatus.QUEUED:
      // A delayed task sent at once (runAt within the threshold) waits like a SCHEDULED one.
      if (row.schedule === 'not due') return notYetDue;
      return left ? claim : dropDuplicate;
    case TaskStatus.SUSPENDED:
      // Its timer is the schedule axis: held until it ends, then claimed.
      return row.schedule === 'due' ? claim : sleeping;
    case TaskStatus.PAUSED:
      // Without a key, its message is dropped: the resume sends a new one.
      return { kind: 'drop-paused' };
  }
}

const rows: Row[] = Object.values(TaskStatus).flatMap((status) =>
  (['live', 'expired'] as const).flatMap((lease) =>
    (['left', 'exhausted'] as const).flatMap((attempts) =>
      (['due', 'not due'] as const).map((schedule) => {
        const row = { status, lease, attempts, schedule };
        return { ...row, expected: expectedDecision(row) };
      }),
    ),
  ),
);

describe('decideClaim', () => {
  it('covers every status × lease × attempts × schedule combination', () => {
    expect(rows).toHaveLength(11 * 2 * 2 * 2);
  });

  it.each(rows)(
    '$status, lease $lease, attempts $attempts, $schedule → $expected.kind',
    ({ status, lease, attempts, schedule, expected }) => {
      const seen = record({
        status,
        attempt: attempts === 'left' ? MAX_ATTEMPTS - 1 : MAX_ATTEMPTS,
        leaseToken: 'token',
        leaseExpiresAt: lease === 'live' ? NOW + LEASE_LEFT_MS : NOW - 1,
        runAt: schedule === 'due' ? NOW - 1 : NOW + DUE_IN_MS,
        wait: {
          kind: 'sleep',
          step: 0,
          name: 'nap',
          epoch: 0,
          until: schedule === 'due' ? NOW - 1 : NOW + DUE_IN_MS,
        },
      });

      const decision = decideClaim(seen, NOW);

      expect(decision).toEqual(expected);
    },
  );

  it('holds a PAUSED task of an ordering key for the longest hide, keeping the key', () => {
    const seen = record({ status: TaskStatus.PAUSED, orderingKey: 'account-1' });

    expect(decideClaim(seen, NOW)).toEqual({
      kind: 'hold',
      delayMs: 43_200_000,
      reason: 'paused, holding its ordering key',
    });
  });

  it('claims a SUSPENDED task woken by its signal before its timer', () => {
    const wait = { kind: 'signal', step: 2, name: 'ok', epoch: 0, until: NOW + 60_000 } as const;
    const seen = record({ status: TaskStatus.SUSPENDED, wait, woken: true });

    expect(decideClaim(seen, NOW)).toEqual(claim);
  });

  it('holds a SUSPENDED task waiting without a timer for the longest hide', () => {
    const wait = { kind: 'signal', step: 0, name: 'ok', epoch: 0 } as const;
    const seen = record({ status: TaskStatus.SUSPENDED, wait });

    expect(decideClaim(seen, NOW)).toEqual({ ...sleeping, delayMs: 43_200_000 });
  });

  it('holds a SUSPENDED task whose timer is days away for 12 hours at most', () => {
    const wait = { kind: 'sleep', step: 0, name: 'nap', epoch: 0, until: NOW + 3 * 86_400_000 };
    const seen = record({ status: TaskStatus.SUSPENDED, wait: wait as never });

    expect(decideClaim(seen, NOW)).toEqual({ ...sleeping, delayMs: 43_200_000 });
  });

  it('claims a fresh QUEUED task at attempt 0', () => {
    expect(decideClaim(record({ status: TaskStatus.QUEUED, attempt: 0 }), NOW)).toEqual(claim);
  });

  it('defers a live lease by exactly the time left on it', () => {
    const seen = record({ status: TaskStatus.RUNNING, attempt: 1, leaseExpiresAt: NOW + 1 });

    expect(decideClaim(seen, NOW)).toEqual({ ...leased, delayMs: 1 });
  });

  it('defers a live lease on the final attempt rather than expiring it', () => {
    const seen = record({
      status: TaskStatus.RUNNING,
      attempt: MAX_ATTEMPTS,
      leaseExpiresAt: NOW + LEASE_LEFT_MS,
    });

    expect(decideClaim(seen, NOW)).toEqual(leased);
  });

  it('treats a RUNNING record without a lease expiry as expired', () => {
    const seen = record({ status: TaskStatus.RUNNING, attempt: 1, leaseExpiresAt: undefined });

    expect(decideClaim(seen, NOW)).toEqual(claim);
  });

  it('claims a SCHEDULED task whose run time is exactly now', () => {
    const seen = record({ status: TaskStatus.SCHEDULED, runAt: NOW });

    expect(decideClaim(seen, NOW)).toEqual(claim);
  });

  it('defers a SCHEDULED task due in 1 ms by 1 ms', () => {
    const seen = record({ status: TaskStatus.SCHEDULED, runAt: NOW + 1 });

    expect(decideClaim(seen, NOW)).toEqual({ ...notYetDue, delayMs: 1 });
  });

  it('treats a SCHEDULED record without a run time as due', () => {
    expect(decideClaim(record({ status: TaskStatus.SCHEDULED, runAt: undefined }), NOW)).toEqual(
      claim,
    );
  });

  it('never claims beyond maxAttempts, even with a corrupt attempt count', () => {
    for (const status of [TaskStatus.PENDING, TaskStatus.QUEUED, TaskStatus.SCHEDULED]) {
      const seen = record({ status, attempt: MAX_ATTEMPTS + 5, runAt: NOW - 1 });
      expect(decideClaim(seen, NOW).kind).not.toBe('claim');
    }
    const running = record({
      status: TaskStatus.RUNNING,
      attempt: MAX_ATTEMPTS + 5,
      leaseExpiresAt: NOW - 1,
    });
    expect(decideClaim(running, NOW)).toEqual(expire);
  });

  it('holds the message of a DEAD task that parked its key, and drops other DEAD ones', () => {
    const parked = record({ status: TaskStatus.DEAD, parkedKey: 'k' });
    const released = record({ status: TaskStatus.DEAD, orderingKey: 'k', onDead: 'park' });

    expect(decideClaim(parked, NOW)).toEqual({ kind: 'hold-parked' });
    expect(decideClaim(released, NOW)).toEqual(dropDuplicate);
  });
});

/** A history made of these events, in order, with plausible statuses. */
function history(...events: AuditEvent[]): HistoryEntry[] {
  const statusAfter: Partial<Record<AuditEvent, TaskStatus>> = {
    [AuditEvent.SUBMITTED]: TaskStatus.PENDING,
    [AuditEvent.SENT]: TaskStatus.QUEUED,
    [AuditEvent.CLAIMED]: TaskStatus.RUNNING,
    [AuditEvent.RETRY_SCHEDULED]: TaskStatus.QUEUED,
    [AuditEvent.REQUEUED]: TaskStatus.PENDING,
    [AuditEvent.DEAD]: TaskStatus.DEAD,
    [AuditEvent.REDRIVEN]: TaskStatus.PENDING,
  };
  return events.map((event, i) => ({
    event,
    at: NOW + i,
    attempt: 1,
    status: statusAfter[event] ?? TaskStatus.QUEUED,
  }));
}

describe('isLeaseTakeover', () => {
  it('is true for a RUNNING record: its lease must have been lost to be claimable', () => {
    const seen = record({
      status: TaskStatus.RUNNING,
      attempt: 1,
      history: history(AuditEvent.SUBMITTED, AuditEvent.SENT, AuditEvent.CLAIMED),
    });

    expect(isLeaseTakeover(seen)).toBe(true);
  });

  it('is true after a sweeper requeue, both before and after the new message is sent', () => {
    const requeued = history(
      AuditEvent.SUBMITTED,
      AuditEvent.SENT,
      AuditEvent.CLAIMED,
      AuditEvent.REQUEUED,
    );
    // The requeue sets leaseLost; only a claim or a redrive clears it.
    const pending = record({
      status: TaskStatus.PENDING,
      attempt: 1,
      history: requeued,
      leaseLost: true,
    });
    const resent = record({
      status: TaskStatus.QUEUED,
      attempt: 1,
      history: [...requeued, ...history(AuditEvent.SENT, AuditEvent.DUPLICATE_DROPPED)],
      leaseLost: true,
    });

    expect(isLeaseTakeover(pending)).toBe(true);
    expect(isLeaseTakeover(resent)).toBe(true);
  });

  it('is false once the requeued task was claimed again and retried normally', () => {
    const seen = record({
      status: TaskStatus.QUEUED,
      attempt: 2,
      history: history(
        AuditEvent.SUBMITTED,
        AuditEvent.SENT,
        AuditEvent.CLAIMED,
        AuditEvent.REQUEUED,
        AuditEvent.SENT,
        AuditEvent.CLAIMED,
        AuditEvent.RETRY_SCHEDULED,
      ),
    });

    expect(isLeaseTakeover(seen)).toBe(false);
  });

  it('is false for a fresh task, a handler retry and a redriven task', () => {
    const fresh = record({ history: history(AuditEvent.SUBMITTED, AuditEvent.SENT) });
    const retried = record({
      attempt: 1,
      history: history(
        AuditEvent.SUBMITTED,
        AuditEvent.SENT,
        AuditEvent.CLAIMED,
        AuditEvent.RETRY_SCHEDULED,
      ),
    });
    const redriven = record({
      status: TaskStatus.QUEUED,
      history: history(
        AuditEvent.CLAIMED,
        AuditEvent.REQUEUED,
        AuditEvent.DEAD,
        AuditEvent.REDRIVEN,
        AuditEvent.SENT,
      ),
    });

    expect(isLeaseTakeover(fresh)).toBe(false);
    expect(isLeaseTakeover(retried)).toBe(false);
    expect(isLeaseTakeover(redriven)).toBe(false);
  });
});
