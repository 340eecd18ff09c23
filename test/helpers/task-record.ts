/** A TaskRecord builder for unit tests that need a record without a store. */
import { TaskStatus } from '../../src/core/constants.js';
import type { TaskRecord } from '../../src/core/record.js';

/** Epoch milliseconds that fixtures treat as "now". */
export const FIXTURE_NOW = 1_700_000_000_000;

/** A QUEUED task at attempt 0 of 3, created a minute before {@link FIXTURE_NOW}. */
export function taskRecord(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: 'task-1',
    type: 'email.send',
    status: TaskStatus.QUEUED,
    payload: {},
    payloadRef: undefined,
    payloadHash: 'hash',
    attempt: 0,
    maxAttempts: 3,
    orderingKey: undefined,
    messageGroupId: 'task-1',
    generation: 1,
    timeoutMs: 30_000,
    createdAt: FIXTURE_NOW - 60_000,
    sequence: undefined,
    updatedAt: FIXTURE_NOW - 60_000,
    runAt: undefined,
    leaseToken: undefined,
    leaseExpiresAt: undefined,
    workerId: undefined,
    result: undefined,
    resultRef: undefined,
    lastError: undefined,
    deadReason: undefined,
    finishedAt: undefined,
    scheduleConfirmed: false,
    leaseLost: false,
    resends: 0,
    history: [],
    historyTruncated: 0,
    heartbeats: 0,
    lastHeartbeatAt: undefined,
    integrityTag: undefined,
    progress: undefined,
    progressAt: undefined,
    cancelRequested: false,
    cancelRequestedAt: undefined,
    ...overrides,
  };
}
