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
import { AuditEvent, DebounceMode, TableSchema, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import {
  DEBOUNCE_ID_PREFIX,
  DEBOUNCE_POINTER_PREFIX,
  type DebounceSpec,
  MAX_WAIT_WINDOWS,
} from './debounce-spec.js';
import {
  and,
  type Condition,
  compare,
  equals,
  exists,
  generationIs,
  notExists,
  oneOf,
  or,
} from './expression.js';
import { fromItem, refusedRecord } from './record.js';
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
   * Whether `record`, as a refused write returned it, is a task this enqueue may fold into:
   * the client-side reading of {@link foldable}, the fold's own condition. A record for which
   * this is false has started, finished, been redriven or rolled back, or, for 'last', is
   * too old or has another ordering key than `orderingKey`: the enqueue moves on to the next
   * generation.
   */
  mayAbsorb(record: TaskRecord, spec: DebounceSpec, orderingKey: string | undefined): boolean {
    return (
      (WAITING as readonly string[]).includes(record.status) &&
      record.attempt === 0 &&
      record.generation === 1 &&
      record.debounce?.key === spec.key &&
      (spec.mode !== DebounceMode.LAST ||
        (record.createdAt >= oldestAbsorbing(spec, this.ctx.clock()) &&
          record.orderingKey === orderingKey))
    );
  }

  /**
   * Folds one enqueue into the waiting task `taskId`: one conditional UpdateItem whose
   * condition ({@link foldable}) is "this key's task, not started": its debounce key (the
   * id is derived from the type and key), a waiting status, attempt 0 and its first
   * generation (a redriven task, which has run, has a later one; a claim moves the status
   * and attempt in its own single write, so the two writes are ordered and exactly one of
   * them sees the other). 'first' counts the enqueue; 'last' also replaces the payload and
   * moves `runAt` with the status index's time, refused (a new generation) once the task is
   * {@link MAX_WAIT_WINDOWS} windows old.
   *
   * 'last' never moves `runAt` earlier (docs/adr/0033-debounce-fences.md): a producer whose
   * clock lags writes a window end before the stored one, so that fold is refused, and
   * made again keeping the stored `runAt`. A claim in between refuses the second write too.
   */
  async absorb(
    taskId: string,
    spec: DebounceSpec,
    replacement: Replacement | undefined,
  ): Promise<AbsorbResult> {
    const first = await this.fold(taskId, spec, replacement, 'move');
    if (
      first.kind !== 'moved-on' ||
      replacement === undefined ||
      replacement.runAt === undefined ||
      !this.mayAbsorb(first.current, spec, replacement.orderingKey) ||
      (first.current.runAt ?? 0) <= replacement.runAt
    ) {
      return first;
    }
    return this.fold(taskId, spec, replacement, 'keep');
  }

  /** The fold's one conditional write; `runAt` 'move's up to the replacement's, or is kept. */
  private async fold(
    taskId: string,
    spec: DebounceSpec,
    replacement: Replacement | undefined,
    runAt: 'move' | 'keep',
  ): Promise<AbsorbResult> {
    const now = this.ctx.clock();
    const condition = foldable(spec, now, replacement, runAt);
    const update = foldUpdate(now, replacement, runAt);
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: { [TableSchema.PARTITION_KEY]: taskId },
          UpdateExpression: update.expression,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: { ...condition.names, ...update.names },
          ExpressionAttributeValues: { ...condition.values, ...update.values },
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

/** The oldest creation time of a 'last' task that still absorbs at `now`. */
function oldestAbsorbing(spec: DebounceSpec, now: number): number {
  return now - MAX_WAIT_WINDOWS * spec.windowMs;
}

/**
 * The fold's condition: the key's task exists, waits, was never attempted and is in its
 * first generation (`generationIs(1)`: a redrive moves it); for 'last', young enough, of the
 * ordering key the replacement was tagged with, and its stored `runAt` at most the new one
 * ('move') or after it ('keep').
 */
function foldable(
  spec: DebounceSpec,
  now: number,
  replacement: Replacement | undefined,
  runAt: 'move' | 'keep',
): Condition {
  const conditions = [
    exists('pk', TableSchema.PARTITION_KEY),
    oneOf('status', Object.fromEntries(WAITING.map((s) => [s.toLowerCase(), s]))),
    equals('attempt', 'zero', 0),
    generationIs('one', 1),
    equals('debounceKey', 'key', spec.key),
  ];
  if (replacement !== undefined) {
    conditions.push(compare('createdAt', '>=', 'oldest', oldestAbsorbing(spec, now)));
    // The tag covers the ordering key, which the task's message group follows: the fold
    // must meet the key it tagged, or start a new task.
    conditions.push(
      replacement.orderingKey === undefined
        ? notExists('orderingKey')
        : equals('orderingKey', 'orderingKey', replacement.orderingKey),
    );
    const newRunAt = replacement.runAt;
    if (newRunAt !== undefined) {
      conditions.push(
        runAt === 'move'
          ? or([notExists('runAt'), compare('runAt', '<=', 'runAt', newRunAt)])
          : compare('runAt', '>', 'runAt', newRunAt),
      );
    }
  }
  return and(conditions);
}

/**
 * The fold's changes, all in its one write: `absorbed` counted; with a replacement ('last'),
 * the payload (inline or its claim check), its hash and integrity tag, the fields the tag
 * covers that the folding producer's definition decides (written as tagged, so a producer
 * of another release cannot leave a tag the record fails), and, when 'move',
 * `runAt` with the status index's time, so the sweeper looks at the task again only once its
 * new window has ended.
 */
function foldUpdate(
  now: number,
  replacement: Replacement | undefined,
  runAt: 'move' | 'keep',
): Condition {
  const names: Record<string, string> = { '#absorbed': 'absorbed', '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':none': 0, ':once': 1, ':now': now };
  const sets = ['#absorbed = if_not_exists(#absorbed, :none) + :once', '#updatedAt = :now'];
  const removes: string[] = [];
  const set = (attribute: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:new_${attribute}`] = value;
    sets.push(`#${attribute} = :new_${attribute}`);
  };
  const remove = (attribute: string) => {
    names[`#${attribute}`] = attribute;
    removes.push(`#${attribute}`);
  };
  if (replacement !== undefined) {
    set('payloadHash', replacement.payloadHash);
    if (replacement.payloadRef === undefined) {
      set('payload', replacement.payloadJson);
      remove('payloadRef');
    } else {
      set('payloadRef', replacement.payloadRef);
      remove('payload');
    }
    if (replacement.integrityTag === undefined) remove('integrityTag');
    else set('integrityTag', replacement.integrityTag);
    set('maxAttempts', replacement.maxAttempts);
    set('timeoutMs', replacement.timeoutMs);
    for (const field of ['lane', 'onDead'] as const) {
      const value = replacement[field];
      if (value === undefined) remove(field);
      else set(field, value);
    }
    if (runAt === 'move' && replacement.runAt !== undefined) {
      set('runAt', replacement.runAt);
      set(TableSchema.STATUS_INDEX_SORT_KEY, replacement.runAt);
    }
  }
  const removal = removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : '';
  return { expression: `SET ${sets.join(', ')}${removal}`, names, values };
}
