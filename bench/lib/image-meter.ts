/**
 * Write units from the item's images: an SDK middleware that reads the item (uncounted,
 * strongly consistent, on a separate client) before and after every write a counted client
 * sends, and prices the write from what it changed (bench/lib/index-writes.ts): the table's
 * units from the larger image, the status index's from its entries, and where each index
 * write landed. moto reports constant consumed capacity, so this is how the bench gets what
 * DynamoDB would bill, whatever the index keys or projects.
 *
 * The extra reads make it for untimed measurements only (the realistic scenario and the
 * feature costs). A write racing another on the same item could see the other's change in
 * its images; the scenarios that use it write each item from one place at a time.
 */
import {
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { type Image, type IndexShape, indexWrites, tableWriteUnits } from './index-writes.js';
import { isWireItem } from './item-size.js';
import type { Tally } from './request-counter.js';

type Input = Record<string, unknown>;
type Handler = (args: { input: Input }) => Promise<{ output: unknown }>;
interface Stack {
  add(
    middleware: (next: Handler, context: { commandName?: string }) => Handler,
    options: Record<string, unknown>,
  ): void;
}

/** Units counted from images. */
export interface ImageTally {
  /** By `DynamoDB.Operation`: table and index write units. */
  readonly byOperation: Record<string, { writeUnits: number; indexWriteUnits: number }>;
  /** Index write units by the partition key value they landed on (e.g. `PENDING#3`). */
  readonly indexUnitsByPartition: Record<string, number>;
  /** Index writes (entries put, deleted or updated) by partition key value. */
  readonly indexWritesByPartition: Record<string, number>;
}

/** The table's status index, read with DescribeTable. */
export async function describeIndex(
  dynamodb: DynamoDBClient,
  tableName: string,
): Promise<IndexShape | undefined> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  const index = Table?.GlobalSecondaryIndexes?.[0];
  if (Table === undefined || index === undefined) return undefined;
  return {
    tableKey: (Table.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
    indexKey: (index.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
    projection: (index.Projection?.ProjectionType ?? 'ALL') as IndexShape['projection'],
    nonKeyAttributes: index.Projection?.NonKeyAttributes ?? [],
  };
}

function emptyImageTally(): ImageTally {
  return { byOperation: {}, indexUnitsByPartition: {}, indexWritesByPartition: {} };
}

/** Counts write units from images for every client attached to it. */
export class ImageMeter {
  private tally = emptyImageTally();

  /**
   * @param reader an uncounted client for the images
   * @param shape the status index of every table written to (undefined: no index)
   * @param tableKey the table's key attributes
   */
  constructor(
    private readonly reader: DynamoDBClient,
    private readonly shape: IndexShape | undefined,
    private readonly tableKey: readonly string[] = shape?.tableKey ?? ['pk'],
  ) {}

  /** Starts metering the client's writes. Attach before the first request. */
  attach(client: DynamoDBClient): void {
    (client.middlewareStack as unknown as Stack).add(
      (next, context) => async (args) => {
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        const writes = this.writesOf(operation, args.input);
        if (writes.length === 0) return next(args);
        const before = await Promise.all(writes.map((w) => this.image(w)));
        let succeeded = false;
        try {
          const result = await next(args);
          succeeded = true;
          return result;
        } finally {
          const after = succeeded ? await Promise.all(writes.map((w) => this.image(w))) : before;
          // A transactional write costs twice; a refused write its item's size, no index.
          const factor = operation === 'TransactWriteItems' ? 2 : 1;
          for (let i = 0; i < writes.length; i++) {
            this.record(operation, before[i], after[i], factor);
          }
        }
      },
      { step: 'deserialize', priority: 'high', name: 'benchImageMeter', override: true },
    );
  }

  /** A copy of what was counted so far. */
  snapshot(): ImageTally {
    return structuredClone(this.tally);
  }

  /** Forgets what was counted. */
  reset(): void {
    this.tally = emptyImageTally();
  }

  private writesOf(operation: string, input: Input): { table: string; key: Input }[] {
    const keyOf = (item: Input) =>
      Object.fromEntries(this.tableKey.filter((a) => a in item).map((a) => [a, item[a]]));
    switch (operation) {
      case 'PutItem':
        return [{ table: String(input.TableName), key: keyOf(input.Item as Input) }];
      case 'UpdateItem':
      case 'DeleteItem':
        return [{ table: String(input.TableName), key: input.Key as Input }];
      case 'TransactWriteItems':
        return ((input.TransactItems as Input[] | undefined) ?? []).flatMap((entry) => {
          const [kind, op] = Object.entries(entry)[0] as [string, Input];
          // A ConditionCheck changes nothing but is billed as a transactional write.
          const key = kind === 'Put' ? keyOf(op.Item as Input) : (op.Key as Input);
          return [{ table: String(op.TableName), key }];
        });
      default:
        return [];
    }
  }

  private async image(write: { table: string; key: Input }): Promise<Image> {
    const key = isWireItem(write.key) ? write.key : marshall(write.key);
    const out = await this.reader.send(
      new GetItemCommand({
        TableName: write.table,
        Key: key as never,
        ConsistentRead: true,
      }),
    );
    return out.Item as Image;
  }

  private record(operation: string, before: Image, after: Image, factor: number): void {
    const key = `DynamoDB.${operation}`;
    this.tally.byOperation[key] ??= { writeUnits: 0, indexWriteUnits: 0 };
    const entry = this.tally.byOperation[key];
    entry.writeUnits += factor * tableWriteUnits(before, after);
    if (this.shape === undefined) return;
    for (const write of indexWrites(before, after, this.shape)) {
      entry.indexWriteUnits += write.units;
      this.tally.indexUnitsByPartition[write.partition] =
        (this.tally.indexUnitsByPartition[write.partition] ?? 0) + write.units;
      this.tally.indexWritesByPartition[write.partition] =
        (this.tally.indexWritesByPartition[write.partition] ?? 0) + 1;
    }
  }
}

/** The request tally with its DynamoDB write units replaced by the ones counted from images. */
export function withImageUnits(tally: Tally, images: ImageTally): Tally {
  const out: Tally = structuredClone(tally);
  for (const [key, entry] of Object.entries(out)) {
    if (!/^DynamoDB\.(PutItem|UpdateItem|DeleteItem|TransactWriteItems)$/.test(key)) continue;
    const counted = images.byOperation[key];
    entry.writeUnits = counted?.writeUnits ?? 0;
    entry.indexWriteUnits = counted?.indexWriteUnits ?? 0;
  }
  return out;
}
