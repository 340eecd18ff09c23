/**
 * Debounced tasks' writes (docs/adr/0029-debounce.md). A debounce key of a task type names
 * at most one waiting task at a time. That task's id is derived from the type, the key and a
 * generation number, so that concurrent creators of the same generation meet on one
 * conditional PutItem; a small pointer item remembers the latest generation, so that an
 * enqueue finds the waiting task with one read. The pointer is only a hint: the task records
 * decide, and a lagging or missing pointer costs extra requests, never a second task.
 *
 * The pointer's key contains spaces, which no task id can, and it has no status-index
 * attributes: it never shows in `get`, `list`, `counts` or a sweep.
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AuditEvent, TableSchema, TaskStatus } from '../constants.js';
import { auditEntry } from '../observability/audit.js';
import {
  DEBOUNCE_ID_PREFIX,
  DEBOUNCE_POINTER_PREFIX,
  type DebounceSpec,
  MAX_WAIT_WINDOWS,
} from './debounce-spec.js';
import { equals, notExists } from './expression.js';
import { fromItem, refusedRecord, type TaskRecord } from './record.js';
import type { NewTask, WriteContext } from './record-writes.js';
import { expiresAtSeconds, type Retention } from './retention.js';

/**
 * How long past its last task's window and the retention an idle pointer is kept before its
 * TTL may remove it: by then that task's record is normally gone too, so a restarted search
 * (from generation 1) rarely meets old records.
 */
const POINTER_KEEP_MS = 86_400_000;

/** The statuses of a task that has not started: only these absorb an enqueue. */
const WAITING = [TaskStatus.SCHEDULED, TaskStatus.PENDING, TaskStatus.QUEUED] as const;

/** The id of generation `generation` of a type's debounce key: stable, printable, no `@`. */
export function debounceTaskId(type: string, key: string, generation: number): string {
  const hash = createHash('sha256').update(type).update('\0').update(key).digest('hex');
  return `${DEBOUNCE_ID_PREFIX}${hash.slice(0, 40)}-${generation}`;
}

/** The pointer item's key. */
export function pointerKey(type: string, key: string): string {
  return `${DEBOUNCE_POINTER_PREFIX}${type} ${key}`;
}

/** What {@link DebounceStore.absorb} did. */
export type AbsorbResult =
  | { readonly kind: 'absorbed'; readonly record: TaskRecord }
  /** No task has this id (never created, or removed by its retention). */
  | { readonly kind: 'missing' }
  /** The task has started, finished, or is not this key's: a new generation is due. */
  | { readonly kind: 'moved-on'; readonly current: TaskRecord };

/**
 * What a 'last' absorb writes, prepared as for a new task: the payload, runAt and the
 * fields the folding producer's definition decides, with the integrity tag over exactly
 * these values (docs/adr/0035-integrity-tag-v2.md). Its ordering key is not written but
 * required: a fold with another one is a new task.
 */
export type Replacement = Pick<
  NewTask,
  | 'payloadJson'
  | 'payloadRef'
  | 'payloadHash'
  | 'integrityTag'
  | 'runAt'
  | 'maxAttempts'
  | 'timeoutMs'
  | 'lane'
  | 'onDead'
  | 'orderingKey'
>;

/** The debounce pointers, and the one write that folds an enqueue into a waiting task. */
export class DebounceStore {
  constructor(
    private readonly ctx: WriteContext,
    private readonly retention: Retention,
  ) {}

  /** The latest generation the pointer names; 0 when there is none. */
  async generation(type: string, key: string): Promise<number> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: pointerKey(type, key) },
        ConsistentRead: true,
      }),
    );
    const generation = out.Item?.generation;
    return typeof generation === 'number' ? generation : 0;
  }

  /**
   * Moves the pointer up to `generation` (never down: the write is conditional on the stored
   * one being lower). @returns false when it already named that generation or a later one.
   */
  async advance(type: string, key: string, generation: number, windowMs: number): Promise<boolean> {
    const now = this.ctx.clock();
    const keep = this.retention === 'forever' ? undefined : now + windowMs + POINTER_KEEP_MS;
    try {
      await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: { [TableSchema.PARTITION_KEY]: pointerKey(type, key) },
          UpdateExpression:
            keep === undefined ? 'SET #generation = :g' : 'SET #generation = :g, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#generation) OR #generation < :g',
          ExpressionAttributeNames: {
            '#generation': 'generation',
            ...(keep === undefined ? {} : { '#ttl': TableSchema.TTL_ATTRIBUTE }),
          },
          ExpressionAttributeValues: {
            ':g': generation,
            ...(keep === undefined ? {} : { ':ttl': expiresAtSeconds(keep, this.retention) }),
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
   * Folds one enqueue into the waiting task `taskId`: one conditional UpdateItem whose
   * condition is "this key's task, not started": its debounce key (the id is derived from
   * the type and key), a waiting status, attempt 0 and its first generation (a redriven
   * task, which has run, is not folded into either; a claim
   * moves both in its own single write, so the two writes are ordered and exactly one of
   * them sees the other). 'first' counts the enqueue; 'last' also replaces the payload and
   * moves runAt, refused (a new generation) once the task is {@link MAX_WAIT_WINDOWS}
   * windows old.
   */
  async absorb(
    taskId: string,
    spec: DebounceSpec,
    replacement: Replacement | undefined,
  ): Promise<AbsorbResult> {
    const now = this.ctx.clock();
    const names: Record<string, string> = {
      '#pk': TableSchema.PARTITION_KEY,
      '#status': 'status',
      '#attempt': 'attempt',
      '#generation': 'generation',
      '#debounceKey': 'debounceKey',
      '#absorbed': 'absorbed',
      '#updatedAt': 'updatedAt',
    };
    const values: Record<string, unknown> = {
      ':key': spec.key,
      ':zero': 0,
      ':one': 1,
      ':now': now,
      ...Object.fromEntries(WAITING.map((s) => [`:${s.toLowerCase()}`, s])),
    };
    const waiting = WAITING.map((s) => `:${s.toLowerCase()}`).join(', ');
    const conditions = [
      'attribute_exists(#pk)',
      `#status IN (${waiting})`,
      '#attempt = :zero',
      // A first generation is not stored (docs/adr/0027-compact-history.md).
      '(attribute_not_exists(#generation) OR #generation = :one)',
      '#debounceKey = :key',
    ];
    const sets = ['#absorbed = if_not_exists(#absorbed, :zero) + :one', '#updatedAt = :now'];
    const removes: string[] = [];
    if (replacement !== undefined) {
      Object.assign(names, {
        '#payload': 'payload',
        '#payloadRef': 'payloadRef',
        '#payloadHash': 'payloadHash',
        '#integrityTag': 'integrityTag',
        '#runAt': 'runAt',
        '#createdAt': 'createdAt',
      });
      Object.assign(values, {
        ':payloadHash': replacement.payloadHash,
        ':runAt': replacement.runAt,
        ':oldest': now - MAX_WAIT_WINDOWS * spec.windowMs,
      });
      conditions.push('#createdAt >= :oldest');
      // The tag covers the ordering key, which the task's message group follows: the fold
      // must meet the key it tagged, or start a new task.
      const sameKey =
        replacement.orderingKey === undefined
          ? notExists('orderingKey')
          : equals('orderingKey', 'orderingKey', replacement.orderingKey);
      conditions.push(sameKey.expression);
      Object.assign(names, sameKey.names);
      Object.assign(values, sameKey.values);
      sets.push('#payloadHash = :payloadHash', '#runAt = :runAt');
      // The fields the tag covers that the folding producer's definition decides: written as
      // tagged, so a producer of another release cannot leave a tag the record fails.
      names['#maxAttempts'] = 'maxAttempts';
      names['#timeoutMs'] = 'timeoutMs';
      values[':maxAttempts'] = replacement.maxAttempts;
      values[':timeoutMs'] = replacement.timeoutMs;
      sets.push('#maxAttempts = :maxAttempts', '#timeoutMs = :timeoutMs');
      for (const field of ['lane', 'onDead'] as const) {
        names[`#${field}`] = field;
        const value = replacement[field];
        if (value === undefined) removes.push(`#${field}`);
        else {
          values[`:${field}`] = value;
          sets.push(`#${field} = :${field}`);
        }
      }
      if (replacement.payloadRef === undefined) {
        values[':payload'] = replacement.payloadJson;
        sets.push('#payload = :payload');
        removes.push('#payloadRef');
      } else {
        values[':payloadRef'] = replacement.payloadRef;
        sets.push('#payloadRef = :payloadRef');
        removes.push('#payload');
      }
      if (replacement.integrityTag === undefined) removes.push('#integrityTag');
      else {
        values[':integrityTag'] = replacement.integrityTag;
        sets.push('#integrityTag = :integrityTag');
      }
    }
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: { [TableSchema.PARTITION_KEY]: taskId },
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const record = fromItem(out.Attributes ?? {});
      auditEntry(this.ctx.logger, record, {
        event: AuditEvent.DEBOUNCED,
        at: now,
        attempt: 0,
        status: record.status,
        detail: `${spec.mode} ${spec.key}`,
      });
      return { kind: 'absorbed', record };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const current = refusedRecord(err);
      return current === undefined ? { kind: 'missing' } : { kind: 'moved-on', current };
    }
  }
}
