/**
 * Builds the one conditional UpdateItem behind every transition of the task store, and
 * recognises DynamoDB's refusal of an item that would grow past its size limit.
 */
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { TableSchema } from '../constants.js';
import type { HistoryPlan } from './history.js';
import type { HistoryEntry } from './record.js';

/** What {@link buildTransitionUpdate} needs beyond the history plan. */
export interface TransitionWrite {
  readonly tableName: string;
  readonly taskId: string;
  /** The allowed starting state (and fence), as a condition expression. */
  readonly condition: string;
  readonly values?: Record<string, unknown> | undefined;
  /** Attributes set by the transition; undefined values are skipped. */
  readonly set?: Record<string, unknown> | undefined;
  readonly remove?: readonly string[] | undefined;
  readonly status: string;
  readonly statusShard: string;
  readonly statusAt: number;
  readonly now: number;
  /** The history entry; undefined for a heartbeat, which counts itself instead. */
  readonly entry: HistoryEntry | undefined;
  readonly plan: HistoryPlan;
}

/**
 * The UpdateItem of one transition: SET the new status, its index keys and the given
 * attributes, write the history as planned, REMOVE the given attributes, all under
 * `attribute_exists(pk) AND (condition)`. A history rewrite also requires the stored list
 * to still have the length it was folded from, so no entry written meanwhile (a duplicate
 * note) is lost; a heartbeat increments `heartbeats` and sets `lastHeartbeatAt`.
 *
 * Clause order does not matter to DynamoDB, which applies an update whole or not at all.
 * It is chosen for emulators that check the size clause by clause: a rewrite, which
 * shrinks the item, comes first; an append, which grows it, after the other attributes.
 */
export function buildTransitionUpdate(write: TransitionWrite): UpdateCommandInput {
  const names: Record<string, string> = {
    '#pk': TableSchema.PARTITION_KEY,
    '#status': 'status',
    '#updatedAt': 'updatedAt',
    '#statusShard': TableSchema.STATUS_INDEX_PARTITION_KEY,
    '#statusAt': TableSchema.STATUS_INDEX_SORT_KEY,
  };
  const values: Record<string, unknown> = {
    ...write.values,
    ':to': write.status,
    ':now_': write.now,
    ':statusShard': write.statusShard,
    ':statusAt': write.statusAt,
  };
  const attributes: string[] = [];
  for (const [attr, value] of Object.entries(write.set ?? {})) {
    if (value === undefined) continue;
    names[`#${attr}`] = attr;
    values[`:${attr}`] = value;
    attributes.push(`#${attr} = :${attr}`);
  }
  const sets: string[] = [];
  let condition = write.condition;
  const { plan, entry } = write;
  if (plan.kind === 'rewrite') {
    names['#history'] = 'history';
    names['#historyTruncated'] = 'historyTruncated';
    values[':history'] = plan.entries;
    values[':historyLength'] = plan.seenLength;
    values[':dropped'] = plan.dropped;
    values[':zero_'] = 0;
    sets.push(
      '#history = :history',
      '#historyTruncated = if_not_exists(#historyTruncated, :zero_) + :dropped',
      ...attributes,
    );
    condition = `(${condition}) AND size(#history) = :historyLength`;
  } else if (entry !== undefined) {
    names['#history'] = 'history';
    values[':entry'] = [entry];
    sets.push(...attributes, '#history = list_append(#history, :entry)');
  } else {
    sets.push(...attributes);
  }
  if (entry === undefined) {
    names['#heartbeats'] = 'heartbeats';
    names['#lastHeartbeatAt'] = 'lastHeartbeatAt';
    values[':zero_'] = 0;
    values[':one_'] = 1;
    sets.push(
      '#heartbeats = if_not_exists(#heartbeats, :zero_) + :one_',
      '#lastHeartbeatAt = :now_',
    );
  }
  sets.push(
    '#status = :to',
    '#updatedAt = :now_',
    '#statusShard = :statusShard',
    '#statusAt = :statusAt',
  );
  for (const attr of write.remove ?? []) names[`#${attr}`] = attr;
  for (const match of condition.matchAll(/#(\w+)/g)) {
    const attr = match[1] as string;
    names[`#${attr}`] ??= attr;
  }
  const removeClause =
    write.remove === undefined || write.remove.length === 0
      ? ''
      : ` REMOVE ${write.remove.map((a) => `#${a}`).join(', ')}`;
  return {
    TableName: write.tableName,
    Key: { [TableSchema.PARTITION_KEY]: write.taskId },
    UpdateExpression: `SET ${sets.join(', ')}${removeClause}`,
    ConditionExpression: `attribute_exists(#pk) AND (${condition})`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
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
