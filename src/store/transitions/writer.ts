/**
 * The one writer of the transition table: every row (see index.ts) is sent here, and here
 * alone a condition is written into a request and DynamoDB's refusal of it is read. A move
 * (a `Transition`) goes out as the one conditional UpdateItem that move.ts builds, with its
 * history and index filing ({@link sendMove}); any other row as its one Put, Update, Delete
 * ({@link send}), or as one item of a transaction ({@link transact}). A refusal comes back
 * with the item DynamoDB held (ALL_OLD): move.ts makes it a domain error carrying the record;
 * the other rows' callers decide what it means.
 */
import {
  type CancellationReason,
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TableSchema, type TaskStatus } from '../../core/constants.js';
import type { TaskRecord } from '../../core/record.js';
import { fromItem, type TaskItem } from '../record.js';
import type { WriteContext } from '../store-context.js';
import { and, type Condition, exists, notExists, oneOf, or } from './expression.js';
import type { Write } from './row.js';

/** What a row's write came to. */
export type Sent =
  /** The write landed; `item` is what it asked to have back (ALL_NEW, UPDATED_OLD), if anything. */
  | { readonly accepted: true; readonly item: TaskItem | undefined }
  /** The condition refused it; `current` is the item DynamoDB held (ALL_OLD), if any. */
  | { readonly accepted: false; readonly current: TaskItem | undefined };

/** One refused item of a transaction. */
export interface ItemRefusal {
  /** DynamoDB's code: `ConditionalCheckFailed`, `TransactionConflict`, or `None` when it was not this item. */
  readonly code: string | undefined;
  /** Refused by its own condition. */
  readonly refused: boolean;
  /** The item as DynamoDB held it (ALL_OLD) when its condition refused it and it asked. */
  readonly current: TaskItem | undefined;
}

/** What a transaction came to. */
export type Transacted =
  | { readonly accepted: true }
  /**
   * Cancelled: `items` says, item by item in the order sent, why; `error` is the cancellation,
   * for a caller that gives up on it.
   */
  | { readonly accepted: false; readonly items: readonly ItemRefusal[]; readonly error: Error };

/** One item of a transaction: a row and its input (see {@link part}). */
export interface Part {
  readonly row: Write<never>;
  readonly input: never;
}

/** A row and its input, as one item of {@link transact}. */
export function part<I>(row: Write<I>, input: I): Part {
  return { row: row as Write<never>, input: input as never };
}

/** `{ <status lower-case>: status }` for every state, the keys of an IN list. */
export function keyedStates(states: readonly TaskStatus[]): Record<string, TaskStatus> {
  return Object.fromEntries(states.map((status) => [status.toLowerCase(), status]));
}

/**
 * A row's whole condition: the item exists in one of the row's states and its fences hold
 * (or, with `orAbsent`, the item is absent); a row on an item that is no task's is its
 * fences alone. Undefined when nothing is required (an item a transaction's check fences).
 */
export function writeCondition<I>(row: Write<I>, input: I, now: number): Condition | undefined {
  const fence = row.fence(input, now);
  if (row.from === undefined) return fence.length === 0 ? undefined : and(fence);
  const held = and([oneOf('status', keyedStates(row.from)), ...fence]);
  return row.orAbsent === true
    ? or([notExists(TableSchema.PARTITION_KEY), held])
    : and([exists(TableSchema.PARTITION_KEY, TableSchema.PARTITION_KEY), held]);
}

/** The request parameters of a row's write: its key or item, update and condition. */
function writeParams<I>(ctx: WriteContext, row: Write<I>, input: I, now: number) {
  const request = row.request(input, now, ctx);
  const condition = writeCondition(row, input, now);
  const update = request.op === 'update' ? request.update : undefined;
  const names = { ...condition?.names, ...update?.names };
  const values = { ...condition?.values, ...update?.values };
  const params = {
    TableName: ctx.tableName,
    ...(request.op === 'put'
      ? { Item: request.item }
      : { Key: { [TableSchema.PARTITION_KEY]: request.key } }),
    ...(update === undefined ? {} : { UpdateExpression: update.expression }),
    ...(condition === undefined ? {} : { ConditionExpression: condition.expression }),
    ...(Object.keys(names).length === 0 ? {} : { ExpressionAttributeNames: names }),
    ...(Object.keys(values).length === 0 ? {} : { ExpressionAttributeValues: values }),
    ...(row.returnsOld === false
      ? {}
      : { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
  };
  return { request, params };
}

/**
 * Sends one row that is not a transition as its one conditional write. A ConditionCheck row
 * alone goes as a transaction of one item.
 *
 * @param now the time the row's request is built with; the caller passes it when it records
 *   the same time elsewhere (an audit entry).
 * @throws whatever DynamoDB throws other than the condition's refusal, untouched.
 */
export async function send<I>(
  ctx: WriteContext,
  row: Write<I>,
  input: I,
  now: number = ctx.clock(),
): Promise<Sent> {
  const { request, params } = writeParams(ctx, row, input, now);
  try {
    switch (request.op) {
      case 'put':
        await ctx.doc.send(new PutCommand(params as ConstructorParameters<typeof PutCommand>[0]));
        return { accepted: true, item: undefined };
      case 'delete':
        await ctx.doc.send(
          new DeleteCommand(params as ConstructorParameters<typeof DeleteCommand>[0]),
        );
        return { accepted: true, item: undefined };
      case 'update': {
        const out = await ctx.doc.send(
          new UpdateCommand({
            ...(params as UpdateCommandInput),
            ...(request.returns === undefined ? {} : { ReturnValues: request.returns }),
          }),
        );
        return { accepted: true, item: out.Attributes };
      }
      case 'check': {
        const done = await transact(ctx, [part(row, input)], now);
        if (done.accepted) return { accepted: true, item: undefined };
        const [refusal] = done.items;
        if (refusal?.refused === true) return { accepted: false, current: refusal.current };
        throw done.error;
      }
    }
  } catch (err) {
    return refusal(err);
  }
}

/**
 * A write's refusal by its condition, with the item DynamoDB held (ALL_OLD) when it was
 * asked for.
 *
 * @throws `err` itself when it is anything else.
 */
function refusal(err: unknown): Sent {
  if (!(err instanceof ConditionalCheckFailedException)) throw err;
  return { accepted: false, current: err.Item === undefined ? undefined : unmarshall(err.Item) };
}

/**
 * The UpdateItem of a move, as move.ts builds it: the task's key, the update, the whole
 * condition, and every name and value the two use.
 */
export interface MoveUpdate {
  readonly key: string;
  readonly update: string;
  readonly condition: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * The request of a move: its UpdateItem, returning the item as written (ALL_NEW) and, when
 * refused, as DynamoDB held it (ALL_OLD).
 */
export function moveRequest(tableName: string, move: MoveUpdate): UpdateCommandInput {
  return {
    TableName: tableName,
    Key: { [TableSchema.PARTITION_KEY]: move.key },
    UpdateExpression: move.update,
    ConditionExpression: move.condition,
    ExpressionAttributeNames: { ...move.names },
    ExpressionAttributeValues: { ...move.values },
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Sends a move's one conditional UpdateItem: accepted with the item as written, or refused
 * with the item DynamoDB held.
 *
 * @throws whatever DynamoDB throws other than the condition's refusal, untouched: move.ts
 *   recovers a TransactionConflictException and an item too large itself.
 */
export async function sendMove(ctx: WriteContext, move: MoveUpdate): Promise<Sent> {
  try {
    const out = await ctx.doc.send(new UpdateCommand(moveRequest(ctx.tableName, move)));
    return { accepted: true, item: out.Attributes };
  } catch (err) {
    return refusal(err);
  }
}

/**
 * Sends rows as one TransactWriteItems: all land or none does. A cancellation is returned,
 * not thrown, with each item's reason and (for an item refused by its condition that asked)
 * the item DynamoDB held.
 *
 * @throws whatever DynamoDB throws other than a cancellation, untouched.
 */
export async function transact(
  ctx: WriteContext,
  parts: readonly Part[],
  now: number = ctx.clock(),
): Promise<Transacted> {
  const items = parts.map(({ row, input }) => {
    const { request, params } = writeParams(ctx, row, input, now);
    const op = { put: 'Put', delete: 'Delete', check: 'ConditionCheck', update: 'Update' } as const;
    return { [op[request.op]]: params };
  });
  try {
    await ctx.doc.send(
      new TransactWriteCommand({
        TransactItems: items as ConstructorParameters<
          typeof TransactWriteCommand
        >[0]['TransactItems'],
      }),
    );
    return { accepted: true };
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const reasons: readonly (CancellationReason | undefined)[] = err.CancellationReasons ?? [];
    return {
      accepted: false,
      error: err,
      items: parts.map((_, n) => itemRefusal(reasons[n])),
    };
  }
}

function itemRefusal(reason: CancellationReason | undefined): ItemRefusal {
  const refused = reason?.Code === 'ConditionalCheckFailed';
  return {
    code: reason?.Code,
    refused,
    current: refused && reason?.Item !== undefined ? unmarshall(reason.Item) : undefined,
  };
}

/** The task record of an item DynamoDB returned (ALL_NEW, or ALL_OLD with a refusal), if any. */
export function recordOf(current: TaskItem | undefined): TaskRecord | undefined {
  return current === undefined ? undefined : fromItem(current);
}
