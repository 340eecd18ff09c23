/**
 * How a move (a {@link Transition} row) is written: the one conditional UpdateItem that sets
 * the new status, appends (or folds) the history entry within its byte budget (ADR 0008),
 * files the task in the status index (or takes it out, or files it for its dependents'
 * release), and recovers the refusals that are not the transition's own (a transaction
 * holding the item, a history changed meanwhile, a wrong guess of the filing, an item too
 * large) by writing the same transition again under the same condition. The update itself
 * is built by transition-update.ts; the writer (writer.ts) sends it and reads DynamoDB's
 * refusal.
 */
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditEvent, Defaults, TableSchema, type TaskStatus } from '../../core/constants.js';
import { LeaseLostError, TransitionRejectedError } from '../../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../../core/record.js';
import { truncate } from '../../core/record.js';
import { auditEntry } from '../../observability/audit.js';
import type { LogAttributes } from '../../observability/logger.js';
import {
  itemBytes,
  MAX_DETAIL_CHARS,
  PRODUCER_HISTORY,
  planHistory,
  storedEntries,
} from '../history.js';
import { fromItem, type TaskItem } from '../record.js';
import { filesForRelease, statusIndexKeys } from '../status-index-keys.js';
import type { WriteContext } from '../store-context.js';
import { and, type Condition, oneOf } from './expression.js';
import type { SeenHistory, Transition } from './row.js';
import { buildTransitionUpdate } from './transition-update.js';
import { keyedStates, recordOf, type Sent, sendMove } from './writer.js';

/** One transition, as a store method describes it. */
export interface TransitionSpec {
  readonly name: string;
  readonly taskId: string;
  readonly taskType: string;
  readonly event: AuditEvent;
  readonly to: TaskStatus;
  /** Attempt number recorded in the history entry; the condition must pin it. */
  readonly attempt: number;
  readonly workerId?: string | undefined;
  /** The operator who acted, for an operator's action (docs/adr/0039-operator-audit.md). */
  readonly principal?: string | undefined;
  readonly detail?: string | undefined;
  /** The allowed starting state (and fence). */
  readonly condition: Condition;
  readonly set?: Record<string, unknown> | undefined;
  readonly remove?: readonly string[] | undefined;
  /** Sort key of the status index in the new state (unused when that state is not keyed). */
  readonly statusAt: number;
  /** Keyed status, written off the index (the row's `offIndex`). */
  readonly offIndex?: boolean | undefined;
  /** Worker writes raise LeaseLostError instead of TransitionRejectedError. */
  readonly fenced?: boolean | undefined;
  /** The history the caller read, if it holds one: lets the write fold it. */
  readonly seen?: SeenHistory | undefined;
  /** A heartbeat: counted on the record instead of appended to the history. */
  readonly heartbeat?: boolean | undefined;
  /** Fields for the audit line only, not stored in the history. */
  readonly logFields?: LogAttributes | undefined;
  /** A producer's write: its entry is appended to the producer's own list (ADR 0039). */
  readonly producer?: boolean | undefined;
}

/** The write of `transition` for `input` at `now`: its one condition, entry and changes. */
export function transitionSpec<I>(
  ctx: Pick<WriteContext, 'retention'>,
  transition: Transition<I>,
  input: I,
  now: number,
): TransitionSpec {
  const task = transition.task(input);
  const by = transition.by(input);
  return {
    name: transition.name,
    taskId: task.id,
    taskType: task.type,
    event: transition.event,
    to: transition.to,
    attempt: by.attempt,
    workerId: by.workerId,
    principal: by.principal,
    detail: transition.detail?.(input),
    condition: and([
      oneOf('status', keyedStates(transition.from)),
      ...transition.fence(input, now),
    ]),
    set: transition.set?.(input, now, ctx.retention),
    remove:
      transition.drop === undefined
        ? transition.remove
        : [...(transition.remove ?? []), ...transition.drop(input)],
    statusAt: transition.statusAt(input, now),
    offIndex: transition.offIndex?.(input) === true,
    fenced: transition.leased === true,
    seen: 'history' in task && task.history !== undefined ? seenOf(task) : undefined,
    heartbeat: transition.heartbeat === true,
    logFields: transition.log?.(input),
    producer: transition.producer === true,
  };
}

/** What the caller's copy of the record tells a write: its history and whether it has dependents. */
function seenOf(task: SeenHistory & { readonly dependents?: unknown }): SeenHistory {
  const { dependents } = task;
  return {
    history: task.history,
    ...(Array.isArray(dependents) ? { hasDependents: dependents.length > 0 } : {}),
  };
}

/** Writes one transition of the table as its one conditional write (see {@link writeSpec}). */
export function writeTransition<I>(
  ctx: WriteContext,
  transition: Transition<I>,
  input: I,
): Promise<TaskRecord> {
  return writeSpec(ctx, transitionSpec(ctx, transition, input, ctx.clock()));
}

/** A transition is written at most this many times (see {@link writeSpec}). */
const MAX_TRANSITION_ROUNDS = 4;

/**
 * A write refused with TransactionConflictException (a producer's transaction registering a
 * dependent held the item at that moment) changed nothing: it is sent again, unchanged, at
 * most this many more times, after a short jittered pause (the transaction lasts milliseconds).
 */
const MAX_CONFLICT_RETRIES = 6;

/** Added to a terminal entry's detail when the item had no room left for the result. */
const RESULT_DROPPED = "result not stored: the item would exceed DynamoDB's size limit";

/**
 * Sends the one conditional UpdateItem of a transition, keeping the history within its
 * budget (ADR 0008): appended while it fits, else rewritten folded, from the
 * history the caller read. Four refusals are recovered by writing the same transition again,
 * under the same condition, so at most one write ever lands:
 * - a write refused with TransactionConflictException, because a producer's transaction
 *   (adding a dependent, docs/adr/0031-dependency-fences.md) held the item: nothing was
 *   written, so it is sent again after a short pause;
 * - a rewrite refused because the stored list changed since it was read (only a duplicate
 *   note can do that without failing the transition's own condition): folded again from
 *   the list DynamoDB returned;
 * - a finished task's write refused because it guessed wrong whether the task has dependents
 *   (which decides whether it leaves the status index or is filed for their release):
 *   written again filed as the returned item requires;
 * - an item DynamoDB refused for its size (one written before histories had a budget): the
 *   item is read, its history folded and rewritten, and the result left out if the item
 *   would still be too large, so the task still reaches its next state.
 */
export async function writeSpec(ctx: WriteContext, spec: TransitionSpec): Promise<TaskRecord> {
  // Only the stored `history` is folded and rewritten; the producer's entries stay apart.
  let seen = storedEntries(spec.seen?.history);
  let oversize: TaskItem | undefined;
  // The caller's copy says whether the task has dependents; a dependent added since (or no
  // copy) costs one refused write to learn it.
  let releaseFiling = spec.seen?.hasDependents === true;
  let conflicts = 0;
  for (let round = 0; ; round++) {
    const now = ctx.clock();
    const dropResult = oversize !== undefined && resultTooLarge(oversize, spec.set);
    const entry = spec.heartbeat ? undefined : entryOf(spec, now, dropResult);
    const plan = spec.producer
      ? ({ kind: 'append' } as const)
      : planHistory(seen, entry, { force: oversize !== undefined });
    const update = buildTransitionUpdate({
      taskId: spec.taskId,
      condition: spec.condition,
      set: dropResult ? { ...spec.set, result: undefined } : spec.set,
      remove: dropResult ? [...(spec.remove ?? []), 'result'] : spec.remove,
      status: spec.to,
      indexKeys: statusIndexKeys(spec.taskId, spec.to, spec.statusAt, ctx.statusShards),
      offIndex: spec.offIndex === true,
      releaseFiling,
      now,
      entry,
      plan,
      ...(spec.producer ? { entryAttribute: PRODUCER_HISTORY } : {}),
    });
    let sent: Sent;
    try {
      sent = await sendMove(ctx, update);
    } catch (err) {
      if (err instanceof TransactionConflictException && conflicts < MAX_CONFLICT_RETRIES) {
        // Nothing was written: the same write, under the same condition, decides again.
        await conflictPause(conflicts++);
        round -= 1; // not one of the transition's rounds
        continue;
      }
      const last = round >= MAX_TRANSITION_ROUNDS - 1;
      if (last || oversize !== undefined || !isItemSizeError(err)) throw err;
      oversize = await readItem(ctx, spec.taskId);
      if (oversize === undefined) throw err;
      seen = storedEntries(fromItem(oversize).history);
      ctx.logger.warn('item too large for DynamoDB; writing it again with a folded history', {
        taskId: spec.taskId,
        transition: spec.name,
        resultDropped: resultTooLarge(oversize, spec.set),
      });
      continue;
    }
    if (sent.accepted) {
      const record = fromItem(sent.item ?? {});
      auditEntry(ctx.logger, record, entry ?? entryOf(spec, now, false), spec.logFields);
      return record;
    }
    const last = round >= MAX_TRANSITION_ROUNDS - 1;
    const current = recordOf(sent.current);
    const hasDependents = (current?.dependents?.length ?? 0) > 0;
    if (!last && filesForRelease(spec.to) && hasDependents !== releaseFiling) {
      // Refused for the index filing alone, or for the transition's own condition too: the
      // write is sent again filed as the stored item requires, and that one decides.
      releaseFiling = hasDependents;
      continue;
    }
    const currentStored = storedEntries(current?.history);
    if (!last && plan.kind === 'rewrite' && currentStored?.length !== plan.seenLength) {
      seen = currentStored;
      continue;
    }
    throw spec.fenced
      ? new LeaseLostError(spec.name, spec.taskId, current)
      : new TransitionRejectedError(spec.name, spec.taskId, current);
  }
}

/** Full jitter over 10 ms doubling: under half a second in all. */
function conflictPause(retry: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** retry));
}

function entryOf(spec: TransitionSpec, now: number, resultDropped: boolean): HistoryEntry {
  const detail = resultDropped
    ? `${spec.detail === undefined ? '' : `${spec.detail}; `}${RESULT_DROPPED}`
    : spec.detail;
  return {
    event: spec.event,
    at: now,
    attempt: spec.attempt,
    status: spec.to,
    ...(spec.workerId === undefined ? {} : { workerId: spec.workerId }),
    ...(detail === undefined ? {} : { detail: truncate(detail, MAX_DETAIL_CHARS) }),
    ...(spec.principal === undefined ? {} : { principal: spec.principal }),
  };
}

async function readItem(ctx: WriteContext, taskId: string): Promise<TaskItem | undefined> {
  const out = await ctx.doc.send(
    new GetCommand({
      TableName: ctx.tableName,
      Key: { [TableSchema.PARTITION_KEY]: taskId },
      ConsistentRead: true,
    }),
  );
  return out.Item;
}

/**
 * Whether a transition setting `set` on the stored `item` would leave it over DynamoDB's
 * size limit even with a history of at most its budget: then the result is not stored.
 */
function resultTooLarge(item: TaskItem, set: Record<string, unknown> | undefined): boolean {
  if (set?.result === undefined) return false;
  const { history: _history, ...rest } = item;
  const bytes = itemBytes({ ...rest, ...set }) + Defaults.HISTORY_BUDGET_BYTES;
  return bytes > Defaults.MAX_ITEM_BYTES;
}

/**
 * True for DynamoDB's refusal of a write that would take the item past 400 KB (a
 * ValidationException whose message names the item size), as opposed to a malformed request.
 */
export function isItemSizeError(err: unknown): boolean {
  return (
    err instanceof Error &&
    err.name === 'ValidationException' &&
    /item size/i.test(err.message) &&
    /maximum allowed size|exceed/i.test(err.message)
  );
}
