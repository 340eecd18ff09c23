/**
 * The store's side of task dependencies (docs/adr/0030-dependencies.md): creating a task
 * that waits for parents, counting a finished parent on it, releasing or cancelling it, and
 * the release partition that lets the sweeper finish a release a crash interrupted.
 *
 * The edges are kept on the records themselves: the child lists its `parents`, each parent
 * its `dependents` (a string set, at most `Defaults.MAX_DEPENDENTS`). A parent that has a
 * dependent also holds `releaseShard`: its terminal write then files it under that index
 * partition instead of its status's (see buildTransitionUpdate), and it leaves it only once
 * every dependent has counted its outcome.
 */
import {
  type CancellationReason,
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { Defaults, isTerminal, TableSchema, TaskStatus } from '../core/constants.js';
import { DependencyError, TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import {
  cancelWaiting,
  notCounted,
  type ReleaseInput,
  releaseWaiting,
} from './dependency-transitions.js';
import { type NewTask, newTaskItem, type WriteContext } from './new-task.js';
import { fromItem, refusedRecord, statusShard, statusShardKey } from './record.js';
import type { Retention } from './retention.js';
import { CREATE_CONDITION } from './rollback.js';
import { isIndexed, RELEASE_PARTITION } from './status-index-keys.js';

export { RELEASE_PARTITION } from './status-index-keys.js';

import { writeTransition } from './transition.js';
import { transitionSpec } from './transitions.js';

/** Statuses a parent can still leave: a dependent added now is released by its end. */
const UNFINISHED = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.RUNNING,
] as const;

/** Rounds of {@link DependencyStore.create} before it gives up on parents that keep moving. */
const CREATE_ROUNDS = 8;

/** Reads and writes the dependency attributes of task records. */
export class DependencyStore {
  constructor(
    private readonly ctx: WriteContext,
    private readonly retention: Retention,
  ) {}

  /**
   * Creates a task that waits for `task.parents`, without reading them first: one
   * TransactWriteItems of the child's Put (as any create: unless the id exists) and, for
   * each parent not known to be finished, an Update that adds the child to its `dependents`
   * under the condition that it exists, is unfinished and has room. A refused Update returns
   * the parent as it is (ALL_OLD): a SUCCEEDED one (or, with `onParentDead: 'run'`, a DEAD
   * or CANCELLED one) is then counted at once and the transaction written again without it.
   * When no parent is left to wait for, the task is created PENDING.
   *
   * @throws DependencyError for an unknown parent, a full parent, or a parent that already
   *   failed when the task would be cancelled by it.
   */
  async create(task: NewTask): Promise<{ record: TaskRecord; created: boolean }> {
    const finished: string[] = [];
    for (let round = 0; ; round++) {
      const unfinished = (task.parents ?? []).filter((id) => !finished.includes(id));
      const now = this.ctx.clock();
      const waiting = { waitingOn: unfinished.length, releasedBy: finished };
      const { item, entry } = newTaskItem(this.ctx, task, now, waiting);
      const put = { TableName: this.ctx.tableName, Item: item, ...CREATE_CONDITION };
      try {
        await this.ctx.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
              ...unfinished.map((parentId) => ({ Update: this.addDependent(parentId, task.id) })),
            ],
          }),
        );
      } catch (err) {
        if (!(err instanceof TransactionCanceledException) || round + 1 >= CREATE_ROUNDS) throw err;
        const reasons = err.CancellationReasons ?? [];
        const existing = refusedItem(reasons[0]);
        if (existing !== undefined) return { record: existing, created: false };
        unfinished.forEach((parentId, n) => {
          const reason = reasons[n + 1];
          if (reason?.Code !== 'ConditionalCheckFailed') return;
          if (judgeParent(task, parentId, refusedItem(reason)) === 'counted') {
            finished.push(parentId);
          }
        });
        // Other writers on the same parents (TransactionConflict): back off with jitter.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** round));
        continue;
      }
      const record = fromItem(item);
      auditEntry(this.ctx.logger, record, entry);
      return { record, created: true };
    }
  }

  /**
   * Counts a finished parent on a WAITING child with other parents left: `waitingOn` - 1 and
   * the parent added to `releasedBy`, under `waitingOn` still being what was read and the
   * parent not yet counted. Not a transition: the child stays WAITING, its history unchanged.
   *
   * @throws TransitionRejectedError with the child as DynamoDB held it, when either moved.
   */
  async countParent(seen: TaskRecord, parentId: string): Promise<TaskRecord> {
    const counted = notCounted(parentId);
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: { [TableSchema.PARTITION_KEY]: seen.id },
          UpdateExpression:
            'ADD #releasedBy :parentSet, #waitingOn :minusOne SET #updatedAt = :now',
          ConditionExpression: `#status = :waiting AND #waitingOn = :seenWaitingOn AND ${counted.expression}`,
          ExpressionAttributeNames: {
            ...counted.names,
            '#status': 'status',
            '#waitingOn': 'waitingOn',
            '#updatedAt': 'updatedAt',
          },
          ExpressionAttributeValues: {
            ...counted.values,
            ':parentSet': new Set([parentId]),
            ':minusOne': -1,
            ':now': this.ctx.clock(),
            ':waiting': TaskStatus.WAITING,
            ':seenWaitingOn': seen.waitingOn ?? 0,
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return fromItem(out.Attributes ?? {});
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      throw new TransitionRejectedError('count a parent of', seen.id, refusedRecord(err));
    }
  }

  /** WAITING → PENDING for its last parent (see `releaseWaiting`). */
  release(input: ReleaseInput): Promise<TaskRecord> {
    return this.write(releaseWaiting, input);
  }

  /** WAITING → CANCELLED for a parent that did not succeed (see `cancelWaiting`). */
  cancel(input: ReleaseInput): Promise<TaskRecord> {
    return this.write(cancelWaiting, input);
  }

  /**
   * Files a finished parent whose dependents have all counted its outcome back under its
   * status's index partition (DEAD), or takes it out of the index (SUCCEEDED, CANCELLED,
   * ROLLED_BACK). Conditional on it still being finished in that status and in a release
   * partition, whichever shard: the producer that registered the first dependent chose it
   * with its own `statusShards`, which may be lower than this writer's during a rolling raise
   * (docs/adr/0031-dependency-fences.md). Returns false when it was not (nothing to do, or
   * it moved on).
   */
  async finishRelease(parent: Pick<TaskRecord, 'id' | 'status'>): Promise<boolean> {
    const keyed = isIndexed(parent.status);
    try {
      await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: { [TableSchema.PARTITION_KEY]: parent.id },
          // A finished status the index does not key leaves it (docs/adr/0021-sparse-status-index.md).
          UpdateExpression: keyed
            ? 'SET #statusShard = :statusShard'
            : 'REMOVE #statusShard, #statusAt',
          ConditionExpression: '#status = :status AND begins_with(#statusShard, :release)',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#statusShard': TableSchema.STATUS_INDEX_PARTITION_KEY,
            ...(keyed ? {} : { '#statusAt': TableSchema.STATUS_INDEX_SORT_KEY }),
          },
          ExpressionAttributeValues: {
            ':status': parent.status,
            ...(keyed
              ? {
                  ':statusShard': statusShardKey(
                    parent.status,
                    statusShard(parent.id, this.ctx.statusShards),
                  ),
                }
              : {}),
            ':release': `${RELEASE_PARTITION}#`,
          },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /**
   * Ids of finished parents still in the release partition whose last write is older than
   * `before`, a page at a time (through the status index, never a Scan).
   */
  async *pendingReleases(before: number): AsyncGenerator<readonly string[], void, undefined> {
    for (let shard = 0; shard < this.ctx.statusShards; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await this.ctx.doc.send(
          new QueryCommand({
            TableName: this.ctx.tableName,
            IndexName: TableSchema.STATUS_INDEX,
            KeyConditionExpression: '#pk = :pk AND #at < :before',
            ExpressionAttributeNames: {
              '#pk': TableSchema.STATUS_INDEX_PARTITION_KEY,
              '#at': TableSchema.STATUS_INDEX_SORT_KEY,
            },
            ExpressionAttributeValues: {
              ':pk': `${RELEASE_PARTITION}#${shard}`,
              ':before': before,
            },
            ExclusiveStartKey: startKey,
          }),
        );
        yield (out.Items ?? []).map((item) => String(item[TableSchema.PARTITION_KEY]));
        startKey = out.LastEvaluatedKey;
      } while (startKey !== undefined);
    }
  }

  /** The Update that adds `childId` to an unfinished parent's dependents. */
  private addDependent(parentId: string, childId: string) {
    const shard = statusShard(parentId, this.ctx.statusShards);
    const releaseShard = `${RELEASE_PARTITION}#${shard}`;
    const states = Object.fromEntries(UNFINISHED.map((s) => [s.toLowerCase(), s]));
    return {
      TableName: this.ctx.tableName,
      Key: { [TableSchema.PARTITION_KEY]: parentId },
      UpdateExpression: 'ADD #dependents :child SET #releaseShard = :releaseShard',
      ConditionExpression: `attribute_exists(#pk) AND #status IN (${Object.keys(states)
        .map((k) => `:${k}`)
        .join(', ')}) AND (attribute_not_exists(#dependents) OR size(#dependents) < :max)`,
      ExpressionAttributeNames: {
        '#pk': TableSchema.PARTITION_KEY,
        '#status': 'status',
        '#dependents': 'dependents',
        '#releaseShard': 'releaseShard',
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(Object.entries(states).map(([k, v]) => [`:${k}`, v])),
        ':child': new Set([childId]),
        ':releaseShard': releaseShard,
        ':max': Defaults.MAX_DEPENDENTS,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
  }

  private write<I>(transition: Parameters<typeof transitionSpec<I>>[0], input: I) {
    const spec = transitionSpec(transition, input, this.ctx.clock(), this.retention);
    return writeTransition(this.ctx, spec);
  }
}

/** A refused item of a transaction, as its ALL_OLD record; undefined when there was none. */
function refusedItem(reason: CancellationReason | undefined): TaskRecord | undefined {
  if (reason?.Code !== 'ConditionalCheckFailed' || reason.Item === undefined) return undefined;
  return fromItem(unmarshall(reason.Item));
}

/**
 * Why a parent refused a new dependent: it is `counted` (finished in a way that counts as
 * done); otherwise the enqueue cannot go on, and this throws the DependencyError saying why.
 * A parent still unfinished refused only because it moved meanwhile: `retry`.
 */
function judgeParent(
  task: NewTask,
  parentId: string,
  parent: TaskRecord | undefined,
): 'counted' | 'retry' {
  const fail = (problem: DependencyError['problem'], detail: string): never => {
    throw new DependencyError(task.id, problem, [parentId], detail);
  };
  if (parent === undefined || parent.status === TaskStatus.ROLLED_BACK) {
    return fail(
      'unknown-parent',
      `depends on '${parentId}', but no task has that id; enqueue parents before their dependents`,
    );
  }
  if (!isTerminal(parent.status)) {
    if ((parent.dependents?.length ?? 0) >= Defaults.MAX_DEPENDENTS) {
      return fail(
        'too-many-dependents',
        `cannot depend on '${parentId}': it already has ${Defaults.MAX_DEPENDENTS} dependents, the most a task may have`,
      );
    }
    return 'retry';
  }
  if (parent.status === TaskStatus.SUCCEEDED || task.onParentDead === 'run') return 'counted';
  return fail(
    'parent-dead',
    `depends on '${parentId}', which is already ${parent.status}; with onParentDead 'cancel' it could never run (redrive the parent first, or pass onParentDead: 'run')`,
  );
}
