/**
 * What one stream record shows: the history entries its write added, found by comparing the
 * item before and after (docs/adr/0049-watch-reads-the-table-stream.md).
 */
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { transitionsOf } from '../../../src/client/watch.js';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import type { HistoryEntry } from '../../../src/core/record.js';
import { toStoredEntry } from '../../../src/store/history.js';

const T = 1_700_000_000_000;
const submitted: HistoryEntry = {
  event: AuditEvent.SUBMITTED,
  at: T,
  attempt: 0,
  status: TaskStatus.PENDING,
};
const claimed: HistoryEntry = {
  event: AuditEvent.CLAIMED,
  at: T + 5,
  attempt: 1,
  status: TaskStatus.RUNNING,
  workerId: 'w1',
};
const succeeded: HistoryEntry = {
  event: AuditEvent.SUCCEEDED,
  at: T + 9,
  attempt: 1,
  status: TaskStatus.SUCCEEDED,
};

/** A task item as the table stores it, in `status`, with `history`. */
function item(status: TaskStatus, history: HistoryEntry[], extra: Record<string, unknown> = {}) {
  return {
    pk: 'task-1',
    type: 'email',
    status,
    payload: '{}',
    attempt: 1,
    maxAttempts: 3,
    timeoutMs: 30_000,
    createdAt: T,
    updatedAt: T,
    history: history.map(toStoredEntry),
    ...extra,
  };
}

function record(before: object | undefined, after: object | undefined): StreamRecord {
  return {
    eventName: before === undefined ? 'INSERT' : after === undefined ? 'REMOVE' : 'MODIFY',
    dynamodb: {
      ...(before === undefined ? {} : { OldImage: marshall(before) as never }),
      ...(after === undefined ? {} : { NewImage: marshall(after) as never }),
    },
  };
}

describe('transitionsOf', () => {
  it('yields the entries a write added, after those already there', () => {
    const write = record(
      item('RUNNING', [submitted, claimed]),
      item('SUCCEEDED', [submitted, claimed, succeeded]),
    );

    const transitions = transitionsOf(write);

    expect(transitions.map((t) => [t.taskId, t.type, t.event, t.status, t.attempt, t.at])).toEqual([
      ['task-1', 'email', 'succeeded', 'SUCCEEDED', 1, T + 9],
    ]);
  });

  it('yields every entry of a created task', () => {
    const transitions = transitionsOf(record(undefined, item('PENDING', [submitted])));

    expect(transitions.map((t) => t.event)).toEqual(['submitted']);
  });

  it('yields nothing for a write that adds no entry: a heartbeat, a fold, a mark', () => {
    const before = item('RUNNING', [submitted, claimed]);
    const heartbeat = item('RUNNING', [submitted, claimed], { heartbeats: 1, progress: '{"n":1}' });
    const folded = item('RUNNING', [claimed], { historyTruncated: 1 });

    expect(transitionsOf(record(before, heartbeat))).toEqual([]);
    expect(transitionsOf(record(before, folded))).toEqual([]);
  });

  it('yields a second entry that equals an earlier one in all but its place', () => {
    const twice = { ...claimed, event: AuditEvent.DUPLICATE_DROPPED, status: TaskStatus.RUNNING };
    const write = record(
      item('RUNNING', [submitted, twice]),
      item('RUNNING', [submitted, twice, twice]),
    );

    expect(transitionsOf(write).map((t) => t.event)).toEqual(['duplicate-dropped']);
  });

  it('yields nothing for a delete, or for an item that is not a task', () => {
    const purge = record(item('DEAD', [submitted]), undefined);
    const pointer = record(undefined, { pk: 'debounce email k', generation: 2 });

    expect(transitionsOf(purge)).toEqual([]);
    expect(transitionsOf(pointer)).toEqual([]);
  });
});
