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
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AuditEvent, DebounceMode, TableSchema } from '../core/constants.js';
import {
  DEBOUNCE_ID_PREFIX,
  DEBOUNCE_POINTER_PREFIX,
  type DebounceSpec,
} from '../core/debounce.js';
import type { TaskRecord } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import { fromItem } from './record.js';
import type { WriteContext } from './store-context.js';
import type { Replacement } from './transitions/debounce.js';
import * as debounce from './transitions/debounce.js';
import { send } from './transitions/writer.js';

export type { Replacement } from './transitions/debounce.js';

/**
 * How long past its last task's window and the retention an idle pointer is kept before its
 * TTL may remove it: by then that task's record is normally gone too, so a restarted search
 * (from generation 1) rarely meets old records.
 */
const POINTER_KEEP_MS = 86_400_000;

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

/** The debounce pointers, and the one write that folds an enqueue into a waiting task. */
export class DebounceStore {
  constructor(private readonly ctx: WriteContext) {}

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
    const keepUntil =
      this.ctx.retention === 'forever' ? undefined : now + windowMs + POINTER_KEEP_MS;
    const input = { key: pointerKey(type, key), generation, keepUntil };
    return (await send(this.ctx, debounce.advancePointer, input, now)).accepted;
  }

  /**
   * Whether `record`, as a refused write returned it, is a task this enqueue may fold into:
   * the client-side reading of the `fold` row, the fold's own condition. A record for which
   * this is false has started, finished, been redriven or rolled back, or, for 'last', is
   * too old or has another ordering key than `orderingKey`: the enqueue moves on to the next
   * generation.
   */
  mayAbsorb(record: TaskRecord, spec: DebounceSpec, orderingKey: string | undefined): boolean {
    return (
      debounce.NOT_STARTED.includes(record.status) &&
      record.attempt === 0 &&
      record.unclaimed !== true &&
      record.continuations === undefined &&
      record.generation === 1 &&
      record.debounce?.key === spec.key &&
      (spec.mode !== DebounceMode.LAST ||
        (record.createdAt >= debounce.oldestAbsorbing(spec, this.ctx.clock()) &&
          record.orderingKey === orderingKey))
    );
  }

  /**
   * Folds one enqueue into the waiting task `taskId`: one conditional UpdateItem whose
   * condition (the `fold` row) is "this key's task, not started": its debounce key (the
   * id is derived from the type and key), a waiting status, attempt 0 and its first
   * generation (a redriven task, which has run, has a later one; a claim moves the status
   * and attempt in its own single write, so the two writes are ordered and exactly one of
   * them sees the other). 'first' counts the enqueue; 'last' also replaces the payload and
   * moves `runAt` with the status index's time, refused (a new generation) once the task is
   * `MAX_WAIT_WINDOWS` windows old.
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
    const sent = await send(this.ctx, debounce.fold, { taskId, spec, replacement, runAt }, now);
    if (!sent.accepted) {
      return sent.current === undefined
        ? { kind: 'missing' }
        : { kind: 'moved-on', current: fromItem(sent.current) };
    }
    const record = fromItem(sent.item ?? {});
    auditEntry(this.ctx.logger, record, {
      event: AuditEvent.DEBOUNCED,
      at: now,
      attempt: 0,
      status: record.status,
      detail: `${spec.mode} ${spec.key}`,
    });
    return { kind: 'absorbed', record };
  }
}
