import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../constants.js';
import { TransitionRejectedError, ValidationError } from '../errors.js';
import { logAudit } from '../observability/audit.js';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import { truncate } from '../text.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { MAX_DETAIL_CHARS } from './history.js';
import {
  fromItem,
  type HistoryEntry,
  statusShard,
  statusShardKey,
  type TaskErrorInfo,
  type TaskItem,
  type TaskRecord,
} from './record.js';
import { checkRetention, expiresAtSeconds, type Retention } from './retention.js';
import { CREATE_CONDITION, refusedConfirmation, rollbackTransition } from './rollback.js';
import { type SeenHistory, type TransitionSpec, writeTransition } from './transition.js';

/** What a worker holds after a claim; every worker write is fenced by it. */
export interface Lease {
  readonly taskId: string;
  readonly attempt: number;
  readonly leaseToken: string;
  readonly workerId: string;
  /**
   * The history as the claim wrote it. Heartbeats leave it unchanged, so the worker's
   * fenced writes can fold it within their one write (ADR 0008). Without it,
   * a fenced write appends.
   */
  readonly history?: readonly HistoryEntry[];
}

/** Input of {@link TaskStore.create}. */
export interface NewTask {
  readonly id: string;
  readonly type: string;
  readonly payloadJson: string;
  readonly payloadHash: string;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly orderingKey?: string | undefined;
  readonly messageGroupId: string;
  /** Not to run before this instant (epoch ms); the worker holds an early message back. */
  readonly runAt?: number | undefined;
  /**
   * Create the task SCHEDULED (delivered later by an EventBridge Scheduler one-time
   * schedule) instead of PENDING. Needs `runAt`.
   */
  readonly scheduled?: boolean | undefined;
  /** Recorded in the first history entry, e.g. which schedule fired the task. */
  readonly detail?: string | undefined;
  /** The producer's enqueue order (see {@link TaskRecord.sequence}). */
  readonly sequence?: string | undefined;
  /** The integrity tag (src/integrity/tag.ts), when integrity is on. */
  readonly integrityTag?: string | undefined;
}

/** Options of {@link TaskStore}. */
export interface TaskStoreOptions {
  readonly tableName: string;
  readonly dynamodb: DynamoDBClient;
  /** @default Defaults.STATUS_SHARDS */
  readonly statusShards?: number;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept (its id stays reserved) before DynamoDB's
   * TTL removes it: milliseconds, or `'forever'` (no TTL attribute is written). DEAD tasks
   * never get one. @default 30 days
   */
  readonly retention?: Retention;
  /** @default Date.now */
  readonly clock?: () => number;
  /** Receives one structured audit line per transition. */
  readonly logger?: TaskLogger;
}

/** A page of {@link TaskStore.list}. */
export interface TaskPage {
  readonly items: readonly TaskRecord[];
  /** Pass back to get the next page; undefined on the last page. */
  readonly cursor: string | undefined;
}

/**
 * The DynamoDB task store. Each lifecycle transition is one method and one conditional
 * write; the condition names the allowed starting state(s) and, for a worker's writes,
 * the lease token and attempt. A refused write is explained with the record DynamoDB saw
 * (ReturnValuesOnConditionCheckFailure = ALL_OLD). Every write emits an audit line and,
 * except a heartbeat, adds its entry to the history, which keeps within a byte budget
 * (ADR 0008). The store never scans: listing uses the sharded status index.
 */
export class TaskStore {
  readonly tableName: string;
  readonly statusShards: number;
  private readonly doc: DynamoDBDocumentClient;
  private readonly clock: () => number;
  private readonly retention: Retention;
  private readonly logger: TaskLogger;

  constructor(options: TaskStoreOptions) {
    this.tableName = options.tableName;
    this.statusShards = options.statusShards ?? Defaults.STATUS_SHARDS;
    this.doc = DynamoDBDocumentClient.from(options.dynamodb, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.clock = options.clock ?? Date.now;
    this.retention = checkRetention(options.retention ?? Defaults.RETENTION_MS);
    this.logger = options.logger ?? defaultLogger();
  }

  /** Reads one task with a strongly consistent read. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [TableSchema.PARTITION_KEY]: taskId },
        ConsistentRead: true,
      }),
    );
    return out.Item === undefined ? undefined : fromItem(out.Item);
  }

  /**
   * (new) → PENDING, or (new) → SCHEDULED with `scheduled` (history event `scheduled`, and
   * the status index sorted by `runAt`, so the sweeper finds overdue ones). Idempotent: when
   * the id exists, nothing is written and the existing record is returned with
   * `created: false`; the caller decides whether it conflicts. A ROLLED_BACK record is replaced.
   */
  async create(task: NewTask): Promise<{ record: TaskRecord; created: boolean }> {
    const now = this.clock();
    const shard = statusShard(task.id, this.statusShards);
    const scheduled = task.scheduled === true && task.runAt !== undefined;
    const status = scheduled ? TaskStatus.SCHEDULED : TaskStatus.PENDING;
    const entry: HistoryEntry = {
      event: scheduled ? AuditEvent.SCHEDULED : AuditEvent.SUBMITTED,
      at: now,
      attempt: 0,
      status,
      ...(task.detail === undefined ? {} : { detail: truncate(task.detail, MAX_DETAIL_CHARS) }),
    };
    const item: TaskItem = {
      [TableSchema.PARTITION_KEY]: task.id,
      type: task.type,
      status,
      payload: task.payloadJson,
      payloadHash: task.payloadHash,
      attempt: 0,
      maxAttempts: task.maxAttempts,
      orderingKey: task.orderingKey,
      messageGroupId: task.messageGroupId,
      generation: 1,
      timeoutMs: task.timeoutMs,
      runAt: task.runAt,
      createdAt: now,
      sequence: task.sequence,
      integrityTag: task.integrityTag,
      updatedAt: now,
      history: [entry],
      [TableSchema.STATUS_INDEX_PARTITION_KEY]: statusShardKey(status, shard),
      [TableSchema.STATUS_INDEX_SORT_KEY]: scheduled ? (task.runAt as number) : now,
    };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ...CREATE_CONDITION,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException && err.Item !== undefined) {
        return { record: fromItem(unmarshall(err.Item)), created: false };
      }
      throw err;
    }
    const record = fromItem(item);
    this.audit(record.id, record.type, entry);
    return { record, created: true };
  }

  /** PENDING → QUEUED, once the message of this generation is in the queue. */
  markSent(
    record: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'attempt'> & SeenHistory,
  ): Promise<TaskRecord> {
    return this.transition({
      name: 'mark as sent',
      seen: record,
      taskId: record.id,
      taskType: record.type,
      event: AuditEvent.SENT,
      to: TaskStatus.QUEUED,
      attempt: record.attempt,
      condition: '#status = :pending AND #generation = :generation AND #attempt = :seenAttempt',
      values: {
        ':pending': TaskStatus.PENDING,
        ':generation': record.generation,
        ':seenAttempt': record.attempt,
      },
      statusAt: this.clock(),
    });
  }

  /**
   * QUEUED | PENDING | due SCHEDULED | RUNNING with an expired lease → RUNNING, as attempt
   * `seen.attempt + 1` under a fresh lease. `seen` is the record the caller read and judged
   * claimable; the write is fenced by its status, attempt and lease token, so two workers
   * racing from the same read cannot both win.
   */
  async claim(
    seen: TaskRecord,
    options: { workerId: string; leaseMs: number; detail?: string },
  ): Promise<{ record: TaskRecord; lease: Lease }> {
    const now = this.clock();
    const leaseToken = randomUUID();
    const leaseExpiresAt = now + options.leaseMs;
    let condition = '#status = :seenStatus AND #attempt = :seenAttempt AND #attempt < #maxAttempts';
    const values: Record<string, unknown> = {
      ':seenStatus': seen.status,
      ':seenAttempt': seen.attempt,
    };
    if (seen.status === TaskStatus.RUNNING) {
      condition += ' AND #leaseToken = :seenToken AND #leaseExpiresAt <= :now';
      values[':seenToken'] = seen.leaseToken;
      values[':now'] = now;
    } else if (seen.status === TaskStatus.SCHEDULED) {
      condition += ' AND #runAt <= :now';
      values[':now'] = now;
    } else if (seen.status !== TaskStatus.QUEUED && seen.status !== TaskStatus.PENDING) {
      throw new TransitionRejectedError('claim', seen.id, seen);
    }
    const record = await this.transition({
      name: 'claim',
      seen,
      taskId: seen.id,
      taskType: seen.type,
      event: AuditEvent.CLAIMED,
      to: TaskStatus.RUNNING,
      attempt: seen.attempt + 1,
      workerId: options.workerId,
      detail: options.detail,
      condition,
      values,
      set: { attempt: seen.attempt + 1, leaseToken, leaseExpiresAt, workerId: options.workerId },
      statusAt: leaseExpiresAt,
    });
    return {
      record,
      lease: {
        taskId: seen.id,
        attempt: seen.attempt + 1,
        leaseToken,
        workerId: options.workerId,
        history: record.history,
      },
    };
  }

  /**
   * RUNNING → RUNNING with a later lease expiry (a heartbeat). Fenced by the lease. The
   * heartbeat is counted (`heartbeats`, `lastHeartbeatAt`) and logged, not added to the
   * history, so a long run does not grow the item.
   */
  extendLease(lease: Lease, taskType: string, leaseMs: number): Promise<TaskRecord> {
    const leaseExpiresAt = this.clock() + leaseMs;
    return this.transition({
      ...this.fence(lease, taskType, 'extend the lease of'),
      heartbeat: true,
      event: AuditEvent.HEARTBEAT_EXTENDED,
      to: TaskStatus.RUNNING,
      set: { leaseExpiresAt },
      statusAt: leaseExpiresAt,
    });
  }

  /** RUNNING → SUCCEEDED, the terminal write. Fenced by the lease. */
  complete(lease: Lease, taskType: string, resultJson: string | undefined): Promise<TaskRecord> {
    const now = this.clock();
    return this.transition({
      ...this.fence(lease, taskType, 'complete'),
      event: AuditEvent.SUCCEEDED,
      to: TaskStatus.SUCCEEDED,
      set: {
        result: resultJson,
        finishedAt: now,
        [TableSchema.TTL_ATTRIBUTE]: expiresAtSeconds(now, this.retention),
      },
      remove: ['leaseToken', 'leaseExpiresAt'],
      statusAt: now,
    });
  }

  /** RUNNING → QUEUED after a failed attempt with attempts left. Fenced by the lease. */
  retry(
    lease: Lease,
    taskType: string,
    error: TaskErrorInfo,
    delayMs: number,
  ): Promise<TaskRecord> {
    const now = this.clock();
    return this.transition({
      ...this.fence(lease, taskType, 'retry'),
      event: AuditEvent.RETRY_SCHEDULED,
      to: TaskStatus.QUEUED,
      detail: `${error.name}: ${error.message} (next attempt in ${delayMs} ms)`,
      set: { lastError: boundedError(error) },
      remove: ['leaseToken', 'leaseExpiresAt'],
      statusAt: now + delayMs,
    });
  }

  /**
   * RUNNING → DEAD: last attempt failed, a permanent error, an unknown type, an invalid
   * payload, or (with `leaseExpired`) a lease that ran out on the final attempt.
   * Fenced by the lease. DEAD tasks keep no TTL: they wait for a redrive or a purge.
   */
  kill(
    lease: Lease,
    taskType: string,
    reason: string,
    options: { error?: TaskErrorInfo; leaseExpired?: boolean } = {},
  ): Promise<TaskRecord> {
    const now = this.clock();
    const fence = this.fence(lease, taskType, 'kill');
    return this.transition({
      ...fence,
      condition: options.leaseExpired
        ? `${fence.condition} AND #leaseExpiresAt <= :now`
        : fence.condition,
      values: options.leaseExpired ? { ...fence.values, ':now': now } : fence.values,
      event: AuditEvent.DEAD,
      to: TaskStatus.DEAD,
      detail: reason,
      set: {
        deadReason: truncate(reason, 1000),
        lastError: options.error === undefined ? undefined : boundedError(options.error),
        finishedAt: now,
      },
      remove: ['leaseToken', 'leaseExpiresAt'],
      statusAt: now,
    });
  }

  /**
   * SCHEDULED | PENDING | QUEUED → CANCELLED. A running task cannot be cancelled. `seen` is
   * the record the caller read; its attempt is pinned so the history entry is exact.
   */
  cancel(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & SeenHistory,
    reason?: string,
  ): Promise<TaskRecord> {
    const now = this.clock();
    return this.transition({
      name: 'cancel',
      seen,
      taskId: seen.id,
      taskType: seen.type,
      event: AuditEvent.CANCELLED,
      to: TaskStatus.CANCELLED,
      attempt: seen.attempt,
      detail: reason,
      condition: '#status IN (:scheduled, :pending, :queued) AND #attempt = :seenAttempt',
      values: {
        ':seenAttempt': seen.attempt,
        ':scheduled': TaskStatus.SCHEDULED,
        ':pending': TaskStatus.PENDING,
        ':queued': TaskStatus.QUEUED,
      },
      set: {
        finishedAt: now,
        [TableSchema.TTL_ATTRIBUTE]: expiresAtSeconds(now, this.retention),
      },
      statusAt: now,
    });
  }

  /**
   * RUNNING with an expired lease → PENDING under a new generation, so the sweeper can send
   * a fresh message (a new deduplication id). The attempt is kept: the next claim counts as
   * a new one. PENDING rather than QUEUED, so that a failed send leaves the task in the
   * outbox instead of stranding it. Fenced by the expired lease's token and attempt.
   * `actor` (e.g. `sweeper`) is recorded as the history entry's worker.
   */
  requeue(seen: TaskRecord, reason: string, actor?: string): Promise<TaskRecord> {
    const now = this.clock();
    return this.transition({
      name: 'requeue',
      seen,
      taskId: seen.id,
      taskType: seen.type,
      event: AuditEvent.REQUEUED,
      to: TaskStatus.PENDING,
      attempt: seen.attempt,
      workerId: actor,
      detail: reason,
      condition:
        '#status = :running AND #leaseToken = :seenToken AND #attempt = :seenAttempt AND #leaseExpiresAt <= :now',
      values: {
        ':running': TaskStatus.RUNNING,
        ':seenToken': seen.leaseToken,
        ':seenAttempt': seen.attempt,
        ':now': now,
      },
      set: { generation: seen.generation + 1 },
      remove: ['leaseToken', 'leaseExpiresAt'],
      statusAt: now,
    });
  }

  /**
   * QUEUED, due before `overdueBefore` → PENDING under a new generation, so the sweeper can
   * send a fresh message: the task's own message may be gone (it outlived the queue's
   * retention). The attempt is kept. PENDING rather than QUEUED, as for a requeue, so that a
   * failed send leaves the task in the outbox. Fenced by the record's status, generation and
   * attempt, and by its due time (the status index's sort key) still being overdue, so a
   * claim, a retry or another sweeper in between makes this write lose.
   */
  resend(seen: TaskRecord, overdueBefore: number, actor?: string): Promise<TaskRecord> {
    const now = this.clock();
    return this.transition({
      name: 'resend',
      taskId: seen.id,
      taskType: seen.type,
      event: AuditEvent.RESENT,
      to: TaskStatus.PENDING,
      attempt: seen.attempt,
      workerId: actor,
      detail: `queued since ${new Date(seen.updatedAt).toISOString()} and never claimed; sent again as generation ${seen.generation + 1}`,
      condition:
        '#status = :queued AND #generation = :seenGeneration AND #attempt = :seenAttempt AND #statusAt < :overdueBefore',
      values: {
        ':queued': TaskStatus.QUEUED,
        ':seenGeneration': seen.generation,
        ':seenAttempt': seen.attempt,
        ':overdueBefore': overdueBefore,
      },
      set: { generation: seen.generation + 1 },
      statusAt: now,
      seen,
    });
  }

  /**
   * DEAD → PENDING with a fresh attempt budget and a new generation; the history is kept.
   * The caller then sends the message and marks it sent, as for a new task.
   */
  redrive(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'generation'> & SeenHistory,
    reason?: string,
  ): Promise<TaskRecord> {
    const now = this.clock();
    return this.transition({
      name: 'redrive',
      seen,
      taskId: seen.id,
      taskType: seen.type,
      event: AuditEvent.REDRIVEN,
      to: TaskStatus.PENDING,
      attempt: 0,
      detail: reason,
      condition: '#status = :dead AND #attempt = :seenAttempt AND #generation = :seenGeneration',
      values: {
        ':dead': TaskStatus.DEAD,
        ':seenAttempt': seen.attempt,
        ':seenGeneration': seen.generation,
      },
      set: { attempt: 0, generation: seen.generation + 1 },
      remove: ['deadReason', 'finishedAt', 'workerId'],
      statusAt: now,
    });
  }

  /**
   * Deletes a DEAD task for good. Conditional on it still being the DEAD record the caller
   * saw, so a concurrent redrive wins. Logged as a `purged` audit event.
   */
  async purge(seen: TaskRecord): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { [TableSchema.PARTITION_KEY]: seen.id },
          ConditionExpression: '#status = :dead AND #updatedAt = :seenUpdatedAt',
          ExpressionAttributeNames: { '#status': 'status', '#updatedAt': 'updatedAt' },
          ExpressionAttributeValues: { ':dead': TaskStatus.DEAD, ':seenUpdatedAt': seen.updatedAt },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) {
        const current = err.Item === undefined ? undefined : fromItem(unmarshall(err.Item));
        throw new TransitionRejectedError('purge', seen.id, current);
      }
      throw err;
    }
    this.audit(seen.id, seen.type, {
      event: AuditEvent.PURGED,
      at: this.clock(),
      attempt: seen.attempt,
      status: TaskStatus.DEAD,
    });
  }

  /**
   * Marks a SCHEDULED task `scheduleConfirmed`: an enqueue that found the record (a retry of
   * the one that wrote it) has made sure of its schedule and is about to report the task as
   * enqueued. From then on {@link discard} refuses, so the writing enqueue can no longer roll
   * back a task that another caller was told exists. Not a transition (the status stays),
   * so no history entry. Pinned to the record seen: its creation time tells it apart from a
   * later record of the same id.
   *
   * @returns `confirmed` (now or before); `moved-on` when the task left SCHEDULED (fired,
   *   sent or cancelled), so no rollback can touch it either; `gone` when the record seen no
   *   longer exists (rolled back, perhaps replaced by a new record of the same id).
   */
  async confirmSchedule(
    seen: Pick<TaskRecord, 'id' | 'generation' | 'createdAt'>,
  ): Promise<'confirmed' | 'moved-on' | 'gone'> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [TableSchema.PARTITION_KEY]: seen.id },
          UpdateExpression: 'SET #confirmed = :true',
          ConditionExpression:
            'attribute_exists(#pk) AND #createdAt = :createdAt AND #status = :scheduled AND #attempt = :zero AND #generation = :generation',
          ExpressionAttributeNames: {
            '#pk': TableSchema.PARTITION_KEY,
            '#confirmed': 'scheduleConfirmed',
            '#createdAt': 'createdAt',
            '#status': 'status',
            '#attempt': 'attempt',
            '#generation': 'generation',
          },
          ExpressionAttributeValues: {
            ':true': true,
            ':createdAt': seen.createdAt,
            ':scheduled': TaskStatus.SCHEDULED,
            ':zero': 0,
            ':generation': seen.generation,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'confirmed';
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const current = err.Item === undefined ? undefined : fromItem(unmarshall(err.Item));
      return refusedConfirmation(current, seen);
    }
  }

  /**
   * SCHEDULED → ROLLED_BACK: takes back a delayed task whose schedule this enqueue could not
   * create, so it never runs, and a retry of the same id creates it afresh over it. Only a
   * record this enqueue still owns is moved ({@link rollbackTransition}): one conditional
   * UpdateItem, so producers need no DeleteItem (docs/adr/0015-rollback-moves-instead-of-deleting.md).
   *
   * @returns `discarded: true` when moved; otherwise the record DynamoDB held instead
   *   (undefined when there is none), which is left as it is.
   */
  async discard(
    seen: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'createdAt'> & SeenHistory,
    reason: string,
  ): Promise<{ readonly discarded: boolean; readonly current?: TaskRecord | undefined }> {
    try {
      await this.transition(rollbackTransition(seen, reason, this.clock(), this.retention));
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      return { discarded: false, current: err.current };
    }
    return { discarded: true };
  }

  /**
   * Appends a `duplicate-dropped` entry to a task's history without changing anything else:
   * the record of an idempotent no-op (e.g. a recurring schedule's firing delivered twice).
   * At most `Defaults.MAX_DUPLICATE_NOTES` such entries are kept, so the item stays bounded;
   * beyond that the event is only logged.
   *
   * @returns false when the entry was not stored (limit reached, or no such task).
   */
  async noteDuplicate(
    record: Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'status'>,
    detail: string,
  ): Promise<boolean> {
    const entry: HistoryEntry = {
      event: AuditEvent.DUPLICATE_DROPPED,
      at: this.clock(),
      attempt: record.attempt,
      status: record.status,
      detail: truncate(detail, MAX_DETAIL_CHARS),
    };
    this.audit(record.id, record.type, entry);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [TableSchema.PARTITION_KEY]: record.id },
          UpdateExpression:
            'SET #history = list_append(#history, :entry), #notes = if_not_exists(#notes, :zero) + :one',
          ConditionExpression:
            'attribute_exists(#pk) AND (attribute_not_exists(#notes) OR #notes < :max)',
          ExpressionAttributeNames: {
            '#pk': TableSchema.PARTITION_KEY,
            '#history': 'history',
            '#notes': 'duplicateNotes',
          },
          ExpressionAttributeValues: {
            ':entry': [entry],
            ':zero': 0,
            ':one': 1,
            ':max': Defaults.MAX_DUPLICATE_NOTES,
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
   * Lists tasks in one status through the sharded status index, shard by shard; within a
   * shard, oldest `statusAt` first. `before` keeps only entries whose `statusAt` (lease
   * expiry for RUNNING, due time for a retry, else last change) is earlier.
   */
  async list(
    status: TaskStatus,
    options: { limit?: number; cursor?: string; before?: number } = {},
  ): Promise<TaskPage> {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new ValidationError('list options', [
        { path: 'limit', message: `expected an integer from 1 to 1000, received ${limit}` },
      ]);
    }
    let { shard, startKey } = decodeCursor(options.cursor, this.statusShards);
    const items: TaskRecord[] = [];
    while (shard < this.statusShards && items.length < limit) {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: TableSchema.STATUS_INDEX,
          KeyConditionExpression:
            options.before === undefined ? '#pk = :pk' : '#pk = :pk AND #sk < :before',
          ExpressionAttributeNames: {
            '#pk': TableSchema.STATUS_INDEX_PARTITION_KEY,
            ...(options.before === undefined ? {} : { '#sk': TableSchema.STATUS_INDEX_SORT_KEY }),
          },
          ExpressionAttributeValues: {
            ':pk': statusShardKey(status, shard),
            ...(options.before === undefined ? {} : { ':before': options.before }),
          },
          Limit: limit - items.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) items.push(fromItem(item));
      if (out.LastEvaluatedKey === undefined) {
        shard += 1;
        startKey = undefined;
      } else {
        startKey = out.LastEvaluatedKey;
      }
    }
    const done = shard >= this.statusShards;
    return { items, cursor: done ? undefined : encodeCursor(shard, startKey) };
  }

  /** Writes one transition (see {@link writeTransition}). */
  private transition(spec: TransitionSpec): Promise<TaskRecord> {
    return writeTransition(
      {
        doc: this.doc,
        tableName: this.tableName,
        statusShards: this.statusShards,
        clock: this.clock,
        logger: this.logger,
        audit: (taskId, taskType, entry) => this.audit(taskId, taskType, entry),
      },
      spec,
    );
  }

  private fence(lease: Lease, taskType: string, name: string) {
    return {
      name,
      taskId: lease.taskId,
      taskType,
      attempt: lease.attempt,
      workerId: lease.workerId,
      fenced: true,
      seen: lease.history === undefined ? undefined : { history: lease.history },
      condition: '#status = :running AND #leaseToken = :leaseToken AND #attempt = :fenceAttempt',
      values: {
        ':running': TaskStatus.RUNNING,
        ':leaseToken': lease.leaseToken,
        ':fenceAttempt': lease.attempt,
      } as Record<string, unknown>,
    };
  }

  private audit(taskId: string, taskType: string, entry: HistoryEntry): void {
    logAudit(this.logger, {
      event: entry.event,
      taskId,
      taskType,
      attempt: entry.attempt,
      status: entry.status,
      workerId: entry.workerId,
      at: entry.at,
      detail: entry.detail,
    });
  }
}

function boundedError(error: TaskErrorInfo): TaskErrorInfo {
  return { name: truncate(error.name, 100), message: truncate(error.message, 1000) };
}
