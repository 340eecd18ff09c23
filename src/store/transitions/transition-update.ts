/**
 * The UpdateItem of one move (docs/adr/0021-sparse-status-index.md,
 * docs/adr/0052-running-leaves-the-status-index.md): what move.ts's writer sends for a
 * transition, built from its condition, the attributes it sets and removes, its history plan
 * (ADR 0008) and the task's filing in the status index: keyed, filed for its dependents'
 * release, or out of the index. Pure: it reads nothing and sends nothing.
 */
import { isTerminal, TableSchema, type TaskStatus } from '../../core/constants.js';
import type { HistoryEntry } from '../../core/record.js';
import { type HistoryPlan, toStoredEntry, toStoredHistory } from '../history.js';
import { filesForRelease } from '../status-index-keys.js';
import type { Condition } from './expression.js';
import type { MoveUpdate } from './writer.js';

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
   * With `indexKeys`: write only the sort key (the due time) and remove the partition key, so
   * that the task is not in the index though its status is keyed
   * (docs/adr/0068-a-retry-stays-off-the-index.md).
   */
  readonly offIndex?: boolean | undefined;
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
  if (write.indexKeys !== undefined && write.offIndex === true) {
    // A keyed status, off the index: an index entry needs both keys, so the due time alone
    // puts none there (docs/adr/0068-a-retry-stays-off-the-index.md).
    parts.sets.push('#statusAt = :statusAt');
    parts.values[':statusAt'] = write.indexKeys[TableSchema.STATUS_INDEX_SORT_KEY];
    remove.push(TableSchema.STATUS_INDEX_PARTITION_KEY);
  } else if (write.indexKeys !== undefined) {
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
