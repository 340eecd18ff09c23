/**
 * How a move (a {@link Transition} row) is written: the one conditional UpdateItem that sets
 * the new status, appends (or folds) the history entry within its byte budget (ADR 0008),
 * files the task in the status index (or takes it out, or files it for its dependents'
 * release), and recovers the refusals that are not the transition's own (a transaction
 * holding the item, a history changed meanwhile, a wrong guess of the filing, an item too
 * large) by writing the same transition again under the same condition. The writer
 * (writer.ts) sends what is built here and reads DynamoDB's refusal.
 */
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AuditEvent,
  Defaults,
  isTerminal,
  TableSchema,
  type TaskStatus,
} from '../../core/constants.js';
import { LeaseLostError, TransitionRejectedError } from '../../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../../core/record.js';
import { truncate } from '../../core/record.js';
import { auditEntry } from '../../observability/audit.js';
import type { LogAttributes } from '../../observability/logger.js';
import {
  type HistoryPlan,
  itemBytes,
  MAX_DETAIL_CHARS,
  PRODUCER_HISTORY,
  planHistory,
  storedEntries,
  toStoredEntry,
  toStoredHistory,
} from '../history.js';
import { fromItem, type TaskItem } from '../record.js';
import { isIndexed, statusIndexKeys } from '../status-index-keys.js';
import type { WriteContext } from '../store-context.js';
import { and, type Condition, oneOf } from './expression.js';
import type { SeenHistory, Transition } from './row.js';
import { keyedStates, type MoveUpdate, recordOf, type Sent, sendMove } from './writer.js';

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

/**
 * Whether a move into `status` is filed by whether the task has dependents: into a finished
 * status the index does not key (docs/adr/0030-dependencies.md). A live unkeyed status
 * (RUNNING) just leaves the index.
 */
function filesForRelease(status: TaskStatus): boolean {
  return !isIndexed(status) && isTerminal(status);
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

/** What {@link buildTransitionUpdate} needs beyond the history plan. */
export interface TransitionWrite {
  readonly taskId: string;
  /** The allowed starting state (and fence), with the names and values it uses. */
  readonly condition: Condition;
  /** Attributes set by the transition; undefined values are skipped. */
  readonly set?: Readonly<Record<string, unknown>> | undefined;
  readonly remove?: readonly string[] | undefined;
  readonly status: string;
  /**
   * The status index's keys in the new status (`statusIndexKeys`), or undefined when the
   * new status is not keyed: then the write removes them (docs/adr/0021-sparse-status-index.md).
   */
  readonly indexKeys: Readonly<Record<string, string | number>> | undefined;
  /**
   * Into a finished status the index does not key: whether the task has dependents
   * (`releaseShard` set), so that it is filed under its release partition until their
   * releases are done instead of leaving the index. The condition requires what this
   * assumes, so a wrong guess is refused and changes nothing (docs/adr/0030-dependencies.md).
   */
  readonly releaseFiling?: boolean | undefined;
  readonly now: number;
  /** The history entry; undefined for a heartbeat, which counts itself instead. */
  readonly entry: HistoryEntry | undefined;
  readonly plan: HistoryPlan;
  /**
   * Where an appended entry goes: `history`, or the producer's own list for a producer's
   * write, which may not name `history` (docs/adr/0039-operator-audit.md). @default 'history'
   */
  readonly entryAttribute?: string | undefined;
}

/** The attributes every transition writes, under their expression names. */
const TRANSITION_NAMES = {
  '#pk': TableSchema.PARTITION_KEY,
  '#status': 'status',
  '#updatedAt': 'updatedAt',
  '#statusShard': TableSchema.STATUS_INDEX_PARTITION_KEY,
  '#statusAt': TableSchema.STATUS_INDEX_SORT_KEY,
} as const;

/**
 * The parts of an update expression, each clause added with the names and values it uses.
 */
class UpdateParts {
  readonly names: Record<string, string> = { ...TRANSITION_NAMES };
  readonly values: Record<string, unknown> = {};
  readonly sets: string[] = [];

  /** Declares `#attribute` and `:key`s, returning the clause unchanged. */
  clause(clause: string, attributes: readonly string[], values: Record<string, unknown> = {}) {
    for (const attribute of attributes) this.names[`#${attribute}`] = attribute;
    Object.assign(this.values, values);
    return clause;
  }

  /** `#attribute = :attribute` for each defined value. */
  assignments(set: Readonly<Record<string, unknown>>): string[] {
    return Object.entries(set)
      .filter(([, value]) => value !== undefined)
      .map(([attr, value]) => this.clause(`#${attr} = :${attr}`, [attr], { [`:${attr}`]: value }));
  }
}

/**
 * The UpdateItem of one transition, for the writer to send: SET the new status, its index
 * keys (or REMOVE them when the new status is not keyed) and the given attributes, write the
 * history as planned, REMOVE the given attributes, all under
 * `attribute_exists(pk) AND (condition)`. A history rewrite also requires the stored list
 * to still have the length it was folded from, so no entry written meanwhile (a duplicate
 * note) is lost; a heartbeat increments `heartbeats` and sets `lastHeartbeatAt`.
 *
 * Clause order does not matter to DynamoDB, which applies an update whole or not at all.
 * It is chosen for emulators that check the size clause by clause: a rewrite, which
 * shrinks the item, comes first; an append, which grows it, after the other attributes.
 */
export function buildTransitionUpdate(write: TransitionWrite): MoveUpdate {
  const parts = new UpdateParts();
  Object.assign(parts.values, write.condition.values, {
    ':to': write.status,
    ':now_': write.now,
  });
  const attributes = parts.assignments(write.set ?? {});
  let condition = write.condition.expression;
  const { plan, entry } = write;
  if (plan.kind === 'rewrite') {
    const rewrite = [
      parts.clause('#history = :history', ['history'], {
        ':history': toStoredHistory(plan.entries),
      }),
      parts.clause(
        '#historyTruncated = if_not_exists(#historyTruncated, :zero_) + :dropped',
        ['historyTruncated'],
        { ':dropped': plan.dropped, ':zero_': 0 },
      ),
    ];
    parts.sets.push(...rewrite, ...attributes);
    const unchanged = parts.clause('size(#history) = :historyLength', ['history'], {
      ':historyLength': plan.seenLength,
    });
    condition = `(${condition}) AND ${unchanged}`;
  } else if (entry !== undefined && write.entryAttribute !== undefined) {
    // The list may not exist yet: records are created without it.
    const list = write.entryAttribute;
    const append = parts.clause(
      `#${list} = list_append(if_not_exists(#${list}, :emptyList_), :entry)`,
      [list],
      { ':entry': [toStoredEntry(entry)], ':emptyList_': [] },
    );
    parts.sets.push(...attributes, append);
  } else if (entry !== undefined) {
    const append = parts.clause('#history = list_append(#history, :entry)', ['history'], {
      ':entry': [toStoredEntry(entry)],
    });
    parts.sets.push(...attributes, append);
  } else {
    parts.sets.push(...attributes);
  }
  if (entry === undefined) {
    parts.sets.push(
      parts.clause('#heartbeats = if_not_exists(#heartbeats, :zero_) + :one_', ['heartbeats'], {
        ':zero_': 0,
        ':one_': 1,
      }),
      parts.clause('#lastHeartbeatAt = :now_', ['lastHeartbeatAt']),
    );
  }
  parts.sets.push('#status = :to', '#updatedAt = :now_');
  const remove = [...(write.remove ?? [])];
  let guard = '';
  if (write.indexKeys !== undefined) {
    // A keyed status. A finished one (DEAD) with dependents goes to the release partition its
    // first dependent gave it, until their releases are done (docs/adr/0030-dependencies.md).
    const shard = isTerminal(write.status as TaskStatus)
      ? parts.clause('#statusShard = if_not_exists(#releaseShard, :statusShard)', ['releaseShard'])
      : '#statusShard = :statusShard';
    parts.sets.push(shard, '#statusAt = :statusAt');
    parts.values[':statusShard'] = write.indexKeys[TableSchema.STATUS_INDEX_PARTITION_KEY];
    parts.values[':statusAt'] = write.indexKeys[TableSchema.STATUS_INDEX_SORT_KEY];
  } else if (write.releaseFiling === true && filesForRelease(write.status as TaskStatus)) {
    // Finished, not keyed, with dependents: filed under the release partition instead.
    parts.sets.push(
      parts.clause('#statusShard = #releaseShard', ['releaseShard']),
      '#statusAt = :now_',
    );
    guard = ' AND attribute_exists(#releaseShard)';
  } else {
    // Leaves the index (docs/adr/0021-sparse-status-index.md); only a finished task without
    // dependents may, so that a release cut short stays findable by the sweeper. RUNNING
    // leaves it whatever its dependents (docs/adr/0052-running-leaves-the-status-index.md).
    remove.push(TableSchema.STATUS_INDEX_PARTITION_KEY, TableSchema.STATUS_INDEX_SORT_KEY);
    if (filesForRelease(write.status as TaskStatus)) {
      guard = parts.clause(' AND attribute_not_exists(#releaseShard)', ['releaseShard']);
    }
  }
  const removeClause =
    remove.length === 0
      ? ''
      : ` REMOVE ${remove.map((attr) => parts.clause(`#${attr}`, [attr])).join(', ')}`;
  Object.assign(parts.names, write.condition.names);
  return {
    key: write.taskId,
    update: `SET ${parts.sets.join(', ')}${removeClause}`,
    condition: `attribute_exists(#pk) AND (${condition})${guard}`,
    names: parts.names,
    values: parts.values,
  };
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
