import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../../src/core/constants.js';
import type { HistoryEntry } from '../../../../src/core/record.js';
import { toStoredEntry, toStoredHistory } from '../../../../src/store/history.js';
import { and, equals } from '../../../../src/store/transitions/expression.js';
import { isItemSizeError } from '../../../../src/store/transitions/move.js';
import {
  buildTransitionUpdate,
  type TransitionWrite,
} from '../../../../src/store/transitions/transition-update.js';
import { moveRequest } from '../../../../src/store/transitions/writer.js';

/** The UpdateItem the writer sends for a move built from `write`. */
function sentUpdate(write: TransitionWrite) {
  return moveRequest('tasks', buildTransitionUpdate(write));
}

const entry: HistoryEntry = {
  event: AuditEvent.SUCCEEDED,
  at: 5,
  attempt: 1,
  status: TaskStatus.SUCCEEDED,
};

function write(overrides: Partial<TransitionWrite> = {}): TransitionWrite {
  return {
    taskId: 'task-1',
    condition: and([
      equals('status', 'running', TaskStatus.RUNNING),
      equals('leaseToken', 'leaseToken', 't'),
    ]),
    set: { result: '"ok"', finishedAt: 5 },
    remove: ['leaseToken'],
    status: TaskStatus.SUCCEEDED,
    indexKeys: undefined,
    now: 5,
    entry,
    plan: { kind: 'append' },
    ...overrides,
  };
}

describe('buildTransitionUpdate', () => {
  it('appends the entry after the other attributes, under the transition condition', () => {
    const update = sentUpdate(write());

    expect(update.UpdateExpression).toBe(
      'SET #result = :result, #finishedAt = :finishedAt, #history = list_append(#history, :entry), ' +
        '#status = :to, #updatedAt = :now_ ' +
        'REMOVE #leaseToken, #statusShard, #statusAt',
    );
    expect(update.ConditionExpression).toBe(
      'attribute_exists(#pk) AND (#status = :running AND #leaseToken = :leaseToken) ' +
        'AND attribute_not_exists(#releaseShard)',
    );
    expect(update.ExpressionAttributeValues?.[':entry']).toEqual([toStoredEntry(entry)]);
    expect(update.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('a move into RUNNING removes the index keys and is never filed for release (ADR 0052)', () => {
    // A claim of a task with dependents: RUNNING just leaves the index; only a finished
    // task is filed under its release partition.
    const update = sentUpdate(
      write({
        status: TaskStatus.RUNNING,
        set: { leaseToken: 't' },
        remove: [],
        releaseFiling: true,
      }),
    );

    expect(update.UpdateExpression).toMatch(/ REMOVE #statusShard, #statusAt$/);
    expect(update.UpdateExpression).not.toContain('releaseShard');
    expect(update.ConditionExpression).not.toContain('releaseShard');
  });

  it('rewrites a folded history first, pinned to the length it was folded from', () => {
    const folded = [entry];

    const update = sentUpdate(
      write({ plan: { kind: 'rewrite', entries: folded, dropped: 7, seenLength: 9 } }),
    );

    expect(update.UpdateExpression).toMatch(
      /^SET #history = :history, #historyTruncated = if_not_exists\(#historyTruncated, :zero_\) \+ :dropped, #result = :result/,
    );
    expect(update.ConditionExpression).toBe(
      'attribute_exists(#pk) AND ((#status = :running AND #leaseToken = :leaseToken) AND size(#history) = :historyLength) ' +
        'AND attribute_not_exists(#releaseShard)',
    );
    expect(update.ExpressionAttributeValues).toMatchObject({
      ':history': toStoredHistory(folded),
      ':dropped': 7,
      ':historyLength': 9,
    });
  });

  it('counts a heartbeat instead of adding a history entry', () => {
    const update = sentUpdate(
      write({
        entry: undefined,
        set: { leaseExpiresAt: 9 },
        remove: undefined,
        status: TaskStatus.RUNNING,
        indexKeys: { statusShard: 'RUNNING#3', statusAt: 9 },
      }),
    );

    expect(update.UpdateExpression).toBe(
      'SET #leaseExpiresAt = :leaseExpiresAt, #heartbeats = if_not_exists(#heartbeats, :zero_) + :one_, ' +
        '#lastHeartbeatAt = :now_, #status = :to, #updatedAt = :now_, #statusShard = :statusShard, #statusAt = :statusAt',
    );
    expect(update.ExpressionAttributeNames).not.toHaveProperty('#history');
    expect(update.ExpressionAttributeValues).not.toHaveProperty(':entry');
  });

  it('sets the index keys for a keyed status and removes them for any other', () => {
    const keyed = sentUpdate(
      write({
        status: TaskStatus.DEAD,
        indexKeys: { statusShard: 'DEAD#3', statusAt: 5 },
      }),
    );
    const unkeyed = sentUpdate(write({ remove: undefined }));

    expect(keyed.UpdateExpression).toContain(
      '#statusShard = if_not_exists(#releaseShard, :statusShard), #statusAt = :statusAt',
    );
    expect(keyed.UpdateExpression).toMatch(/REMOVE #leaseToken$/);
    expect(keyed.ExpressionAttributeValues).toMatchObject({
      ':statusShard': 'DEAD#3',
      ':statusAt': 5,
    });
    expect(unkeyed.UpdateExpression).toMatch(/ REMOVE #statusShard, #statusAt$/);
    expect(unkeyed.ExpressionAttributeValues).not.toHaveProperty(':statusShard');
  });

  it('writes only the due time of a keyed status written off the index, and removes its partition key (ADR 0068)', () => {
    const retry = sentUpdate(
      write({
        status: TaskStatus.QUEUED,
        set: { lastError: 'boom' },
        remove: ['leaseToken'],
        indexKeys: { statusShard: 'QUEUED#3', statusAt: 905 },
        offIndex: true,
      }),
    );

    expect(retry.UpdateExpression).toContain('#statusAt = :statusAt');
    expect(retry.UpdateExpression).not.toContain('#statusShard =');
    expect(retry.UpdateExpression).toMatch(/ REMOVE #leaseToken, #statusShard$/);
    expect(retry.ExpressionAttributeValues).toMatchObject({ ':statusAt': 905 });
    expect(retry.ExpressionAttributeValues).not.toHaveProperty(':statusShard');
  });

  it('files a finished task with dependents under its release partition, guarded both ways', () => {
    const leaves = sentUpdate(write());
    const filed = sentUpdate(write({ releaseFiling: true, remove: undefined }));
    const dead = sentUpdate(
      write({ status: TaskStatus.DEAD, indexKeys: { statusShard: 'DEAD#3', statusAt: 5 } }),
    );

    expect(leaves.ConditionExpression).toMatch(/ AND attribute_not_exists\(#releaseShard\)$/);
    expect(filed.UpdateExpression).toContain('#statusShard = #releaseShard, #statusAt = :now_');
    expect(filed.UpdateExpression).not.toContain('REMOVE');
    expect(filed.ConditionExpression).toMatch(/ AND attribute_exists\(#releaseShard\)$/);
    expect(dead.UpdateExpression).toContain(
      '#statusShard = if_not_exists(#releaseShard, :statusShard)',
    );
    expect(dead.ExpressionAttributeNames).toMatchObject({ '#releaseShard': 'releaseShard' });
  });

  it('skips attributes set to undefined', () => {
    const update = sentUpdate(write({ set: { result: undefined } }));

    expect(update.UpdateExpression).not.toContain('#result');
    expect(update.ExpressionAttributeValues).not.toHaveProperty(':result');
  });
});

describe('isItemSizeError', () => {
  const error = (name: string, message: string) => Object.assign(new Error(message), { name });

  it("recognises DynamoDB's refusals of an item past 400 KB", () => {
    expect(
      isItemSizeError(
        error('ValidationException', 'Item size to update has exceeded the maximum allowed size'),
      ),
    ).toBe(true);
    expect(
      isItemSizeError(
        error('ValidationException', 'Item size has exceeded the maximum allowed size'),
      ),
    ).toBe(true);
  });

  it('rejects other validation errors and other errors', () => {
    expect(
      isItemSizeError(
        error(
          'ValidationException',
          'An operand in the update expression has an incorrect data type',
        ),
      ),
    ).toBe(false);
    expect(isItemSizeError(error('ThrottlingException', 'Item size exceeded'))).toBe(false);
    expect(isItemSizeError('Item size has exceeded the maximum allowed size')).toBe(false);
  });
});
