/**
 * Counts every AWS request a client sends, by service and operation, with the units AWS
 * bills for it: SQS bills each 64 KB chunk of payload as a request; DynamoDB bills write and
 * read capacity units by item size, plus writes to each global secondary index whose key a
 * write touches.
 *
 * The counter is an SDK v3 middleware in the `deserialize` step, inside the retry
 * middleware, so a retried call counts once per attempt, as AWS bills it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { TableSchema } from '../../src/core/constants.js';
import { itemSize, readUnits, writeUnits } from './item-size.js';

/** What one operation cost over a measured window. */
export interface OperationTally {
  /** Requests sent, retries included. */
  requests: number;
  /** Requests as billed: for SQS, one per started 64 KB of payload; else `requests`. */
  billedRequests: number;
  /** DynamoDB write units on the table. */
  writeUnits: number;
  /** DynamoDB write units on global secondary indexes. */
  indexWriteUnits: number;
  /** DynamoDB read units. */
  readUnits: number;
}

/** Tallies keyed by `Service.Operation`, e.g. `DynamoDB.UpdateItem`. */
export type Tally = Record<string, OperationTally>;

const SQS_CHUNK_BYTES = 64 * 1024;

/** Suffix of the key under which receives that returned no message are counted. */
export const EMPTY_SUFFIX = '(empty)';

type Input = Record<string, unknown>;
type Output = Record<string, unknown> | undefined;
interface MiddlewareContext {
  readonly clientName?: string;
  readonly commandName?: string;
}
type Handler = (args: { input: Input }) => Promise<{ output: Output }>;
type Middleware = (next: Handler, context: MiddlewareContext) => Handler;
interface Stack {
  add(middleware: Middleware, options: Record<string, unknown>): void;
}

/** Counts the requests of every client attached to it. */
export class RequestCounter {
  private tally: Tally = {};

  /**
   * @param indexKeyAttributes attributes that key a sparse global secondary index whose
   *   entries are under 1 KB (Tasklane's status index: an INCLUDE projection of a few
   *   attributes, docs/adr/0021-sparse-status-index.md), so each entry written or deleted is
   *   one write unit: a write that sets a key moves the entry (a delete and a put), one that
   *   removes a key deletes it, one that changes a projected attribute of a keyed item
   *   updates it.
   * @param projectedAttributes the index's projected non-key attributes.
   */
  constructor(
    private readonly indexKeyAttributes: readonly string[] = [],
    private readonly projectedAttributes: readonly string[] = TableSchema.STATUS_INDEX_PROJECTION,
  ) {}

  /**
   * Starts counting the client's requests. Attach before the first request. Scheduler and S3
   * requests are counted one each, with no units.
   */
  attach(client: SQSClient | DynamoDBClient | SchedulerClient | S3Client): void {
    const middleware: Middleware = (next, context) => async (args) => {
      const service = (context.clientName ?? 'Unknown').replace(/Client$/, '');
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      let output: Output;
      try {
        const result = await next(args);
        output = result.output;
        return result;
      } finally {
        // An empty receive is idle polling, which a poller does on its own schedule.
        const empty =
          operation === 'ReceiveMessage' && output !== undefined && !hasMessages(output);
        const entry = this.entry(`${service}.${operation}${empty ? EMPTY_SUFFIX : ''}`);
        entry.requests += 1;
        this.measure(service, operation, args.input, output, entry);
      }
    };
    (client.middlewareStack as unknown as Stack).add(middleware, {
      step: 'deserialize',
      priority: 'high',
      name: 'benchRequestCounter',
      override: true,
    });
  }

  /** A copy of what was counted so far. */
  snapshot(): Tally {
    return structuredClone(this.tally);
  }

  /** Forgets what was counted. */
  reset(): void {
    this.tally = {};
  }

  private entry(key: string): OperationTally {
    this.tally[key] ??= emptyTally();
    return this.tally[key];
  }

  private measure(
    service: string,
    operation: string,
    input: Input,
    output: Output,
    entry: OperationTally,
  ): void {
    if (service === 'SQS') {
      entry.billedRequests += Math.max(
        1,
        Math.ceil(sqsPayloadBytes(operation, input, output) / SQS_CHUNK_BYTES),
      );
      return;
    }
    entry.billedRequests += 1;
    if (service !== 'DynamoDB') return;
    switch (operation) {
      case 'PutItem': {
        const item = input.Item as Input;
        const units = writeUnits(itemSize(item));
        entry.writeUnits += units;
        if (this.indexKeyAttributes.some((a) => a in item)) entry.indexWriteUnits += 1;
        return;
      }
      case 'UpdateItem': {
        const after = output?.Attributes as Input | undefined;
        const units = writeUnits(
          after === undefined ? updateSizeLowerBound(input) : itemSize(after),
        );
        entry.writeUnits += units;
        entry.indexWriteUnits += this.indexWrites(input, after);
        return;
      }
      case 'DeleteItem':
        entry.writeUnits += 1;
        return;
      case 'GetItem': {
        const item = output?.Item as Input | undefined;
        entry.readUnits += readUnits(
          item === undefined ? 0 : itemSize(item),
          input.ConsistentRead === true,
        );
        return;
      }
      case 'BatchGetItem': {
        // Each key is one read: a found item by its size, a missing one at the minimum.
        const tables = (input.RequestItems ?? {}) as Record<string, Input>;
        const found = (output?.Responses ?? {}) as Record<string, Input[]>;
        for (const [table, request] of Object.entries(tables)) {
          const consistent = request.ConsistentRead === true;
          const items = found[table] ?? [];
          const keys = Array.isArray(request.Keys) ? request.Keys.length : 0;
          for (const item of items) entry.readUnits += readUnits(itemSize(item), consistent);
          entry.readUnits += Math.max(0, keys - items.length) * readUnits(0, consistent);
        }
        return;
      }
      case 'Query': {
        const items = (output?.Items as Input[] | undefined) ?? [];
        const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
        entry.readUnits += readUnits(bytes, input.ConsistentRead === true);
        return;
      }
    }
  }

  /** Index entries an UpdateItem writes: each one write unit (entries are under 1 KB). */
  private indexWrites(input: Input, after: Input | undefined): number {
    const expression = String(input.UpdateExpression ?? '');
    const [sets = '', removes = ''] = expression.split(/\bREMOVE\b/);
    // Setting a key moves the entry: the old one deleted, the new one put.
    if (this.names(input, sets, this.indexKeyAttributes)) return 2;
    if (this.names(input, removes, this.indexKeyAttributes)) return 1;
    const keyed = after !== undefined && this.indexKeyAttributes.some((a) => a in after);
    return keyed && this.names(input, sets, this.projectedAttributes) ? 1 : 0;
  }

  /** True when `expression` assigns or lists one of `attributes` (by name or #token). */
  private names(input: Input, expression: string, attributes: readonly string[]): boolean {
    const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
    return attributes.some((attribute) => {
      const tokens = [
        attribute,
        ...Object.entries(names)
          .filter(([, name]) => name === attribute)
          .map(([token]) => token),
      ];
      return tokens.some((token) =>
        new RegExp(`(^|[\\s,])${token.replace(/[#$]/g, '\\$&')}(\\s*=|\\s*,|\\s*$)`).test(
          expression,
        ),
      );
    });
  }
}

function hasMessages(output: Record<string, unknown>): boolean {
  return ((output.Messages as unknown[] | undefined) ?? []).length > 0;
}

function sqsPayloadBytes(operation: string, input: Input, output: Output): number {
  const bytes = (text: unknown) => Buffer.byteLength(String(text ?? ''), 'utf8');
  switch (operation) {
    case 'SendMessage':
      return bytes(input.MessageBody);
    case 'SendMessageBatch':
      return ((input.Entries as Input[]) ?? []).reduce((sum, e) => sum + bytes(e.MessageBody), 0);
    case 'ReceiveMessage':
      return ((output?.Messages as Input[] | undefined) ?? []).reduce(
        (sum, m) => sum + bytes(m.Body),
        0,
      );
    default:
      return 0;
  }
}

/** An UpdateItem that returns no item: its key and new values bound the item's size. */
function updateSizeLowerBound(input: Input): number {
  const key = itemSize((input.Key ?? {}) as Input);
  const values = (input.ExpressionAttributeValues ?? {}) as Input;
  return key + (Object.keys(values).length === 0 ? 0 : itemSize(values));
}

function emptyTally(): OperationTally {
  return { requests: 0, billedRequests: 0, writeUnits: 0, indexWriteUnits: 0, readUnits: 0 };
}

/** Adds tallies together. */
export function mergeTallies(...tallies: readonly Tally[]): Tally {
  const merged: Tally = {};
  for (const tally of tallies) {
    for (const [key, value] of Object.entries(tally)) {
      merged[key] ??= emptyTally();
      const into = merged[key];
      into.requests += value.requests;
      into.billedRequests += value.billedRequests;
      into.writeUnits += value.writeUnits;
      into.indexWriteUnits += value.indexWriteUnits;
      into.readUnits += value.readUnits;
    }
  }
  return merged;
}

/** Divides every figure of a tally by `n` (e.g. per task). */
export function scaleTally(tally: Tally, n: number): Tally {
  const scaled: Tally = {};
  for (const [key, value] of Object.entries(tally)) {
    scaled[key] = {
      requests: value.requests / n,
      billedRequests: value.billedRequests / n,
      writeUnits: value.writeUnits / n,
      indexWriteUnits: value.indexWriteUnits / n,
      readUnits: value.readUnits / n,
    };
  }
  return scaled;
}

/** Keeps only the operations whose key passes the filter. */
export function filterTally(tally: Tally, keep: (key: string) => boolean): Tally {
  return Object.fromEntries(Object.entries(tally).filter(([key]) => keep(key)));
}

/** The sum of one figure over all operations. */
export function totalOf(tally: Tally, field: keyof OperationTally): number {
  return Object.values(tally).reduce((sum, value) => sum + value[field], 0);
}

/** What `after` counted beyond `before` (two snapshots of one counter), operations with none left out. */
export function subtractTally(after: Tally, before: Tally): Tally {
  const diff: Tally = {};
  for (const [key, value] of Object.entries(after)) {
    const was = before[key] ?? emptyTally();
    const entry: OperationTally = {
      requests: value.requests - was.requests,
      billedRequests: value.billedRequests - was.billedRequests,
      writeUnits: value.writeUnits - was.writeUnits,
      indexWriteUnits: value.indexWriteUnits - was.indexWriteUnits,
      readUnits: value.readUnits - was.readUnits,
    };
    if (entry.requests !== 0) diff[key] = entry;
  }
  return diff;
}
