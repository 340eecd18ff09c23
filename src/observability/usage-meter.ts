/**
 * Run-time metering of what Tasklane's own AWS requests cost (docs/cost.md,
 * docs/adr/0025-run-time-cost-metrics.md).
 *
 * One SDK middleware, attached to the SQS, DynamoDB and S3 (claim check) clients, asks DynamoDB for
 * `ReturnConsumedCapacity: 'TOTAL'` (free; it includes the writes to global secondary
 * indexes) and counts every request attempt, retries included, as AWS bills them. What it
 * counts goes to the meter of the current scope ({@link UsageMeter.track}), an
 * AsyncLocalStorage context: a client shared by a worker and a producer in one process
 * counts each request once, for whichever of them sent it. Requests outside any scope are
 * not counted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What a set of requests cost, in the units AWS bills. */
export interface Usage {
  /** SQS request attempts (each counts once; payloads up to 64 KB are one billed request). */
  sqsRequests: number;
  /** DynamoDB request attempts. */
  dynamodbRequests: number;
  /** DynamoDB write request units, table and indexes, as DynamoDB reported them. */
  writeUnits: number;
  /** DynamoDB read request units, as DynamoDB reported them. */
  readUnits: number;
  /**
   * S3 request attempts billed at the PUT rate: the claim check's PutObject. Absent until
   * one is made.
   */
  s3WriteRequests?: number;
  /** S3 request attempts billed at the GET rate (GetObject). Absent until one is made. */
  s3ReadRequests?: number;
}

/** A zeroed {@link Usage}. */
export function emptyUsage(): Usage {
  return { sqsRequests: 0, dynamodbRequests: 0, writeUnits: 0, readUnits: 0 };
}

/** `into` plus `more`, in place. */
export function addUsage(into: Usage, more: Usage): Usage {
  into.sqsRequests += more.sqsRequests;
  into.dynamodbRequests += more.dynamodbRequests;
  into.writeUnits += more.writeUnits;
  into.readUnits += more.readUnits;
  if (more.s3WriteRequests !== undefined) {
    into.s3WriteRequests = (into.s3WriteRequests ?? 0) + more.s3WriteRequests;
  }
  if (more.s3ReadRequests !== undefined) {
    into.s3ReadRequests = (into.s3ReadRequests ?? 0) + more.s3ReadRequests;
  }
  return into;
}

/** The label of a worker's requests for a batch as a whole, not for one of its tasks. */
export const BATCH_USAGE = '(batch)';

interface Scope {
  readonly meter: UsageMeter;
  readonly label: string;
}

const scopes = new AsyncLocalStorage<Scope>();

const MINUTE_MS = 60_000;
/** How long per-minute totals are kept for {@link UsageMeter.since}. */
const KEPT_MINUTES = 24 * 60;

/**
 * Totals of the requests made inside its scopes: by label (for the worker's per-batch
 * metrics, by task type) and by minute (for a cost report over a window).
 */
export class UsageMeter {
  private byLabel = new Map<string, Usage>();
  private tasks = new Map<string, number>();
  private readonly byMinute = new Map<number, Usage>();
  private readonly tasksByMinute = new Map<number, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Runs `fn` with this meter counting its requests under `label`. */
  track<T>(label: string, fn: () => Promise<T>): Promise<T> {
    return scopes.run({ meter: this, label }, fn);
  }

  /** {@link track} for `count` tasks (messages) of type `label`, which it also counts. */
  trackTask<T>(label: string, fn: () => Promise<T>, count = 1): Promise<T> {
    this.tasks.set(label, (this.tasks.get(label) ?? 0) + count);
    const minute = Math.floor(this.clock() / MINUTE_MS);
    this.tasksByMinute.set(minute, (this.tasksByMinute.get(minute) ?? 0) + count);
    if (!this.byLabel.has(label)) this.byLabel.set(label, emptyUsage());
    return this.track(label, fn);
  }

  /** Adds one request's usage (called by the middleware). */
  record(label: string, usage: Usage): void {
    let total = this.byLabel.get(label);
    if (total === undefined) {
      total = emptyUsage();
      this.byLabel.set(label, total);
    }
    addUsage(total, usage);
    const minute = Math.floor(this.clock() / MINUTE_MS);
    let bucket = this.byMinute.get(minute);
    if (bucket === undefined) {
      bucket = emptyUsage();
      this.byMinute.set(minute, bucket);
      for (const old of this.byMinute.keys()) {
        if (old <= minute - KEPT_MINUTES) {
          this.byMinute.delete(old);
          this.tasksByMinute.delete(old);
        }
      }
    }
    addUsage(bucket, usage);
  }

  /** The totals and task counts by label since the last take, and forgets them. */
  take(): Map<string, { usage: Usage; tasks: number }> {
    const taken = new Map<string, { usage: Usage; tasks: number }>();
    for (const [label, usage] of this.byLabel) {
      taken.set(label, { usage, tasks: this.tasks.get(label) ?? 0 });
    }
    this.byLabel = new Map();
    this.tasks = new Map();
    return taken;
  }

  /**
   * The total and the tasks counted since `since` (ms since the epoch), to the minute;
   * kept for 24 hours.
   */
  since(since: number): { usage: Usage; tasks: number } {
    const from = Math.floor(since / MINUTE_MS);
    const usage = emptyUsage();
    for (const [minute, used] of this.byMinute) if (minute >= from) addUsage(usage, used);
    let tasks = 0;
    for (const [minute, count] of this.tasksByMinute) if (minute >= from) tasks += count;
    return { usage, tasks };
  }
}

/** DynamoDB operations that accept ReturnConsumedCapacity, and whether they write. */
const DYNAMODB_OPERATIONS: Readonly<Record<string, 'read' | 'write'>> = {
  PutItemCommand: 'write',
  UpdateItemCommand: 'write',
  DeleteItemCommand: 'write',
  BatchWriteItemCommand: 'write',
  TransactWriteItemsCommand: 'write',
  GetItemCommand: 'read',
  BatchGetItemCommand: 'read',
  TransactGetItemsCommand: 'read',
  QueryCommand: 'read',
  ScanCommand: 'read',
};

/** S3 operations billed at the GET rate; the claim check's others (PutObject) pay the PUT rate. */
const S3_READS: ReadonlySet<string> = new Set(['GetObjectCommand', 'HeadObjectCommand']);

/** The AWS requests a usage counts: SQS, DynamoDB and S3. */
export function requestCount(usage: Usage): number {
  const s3 = (usage.s3WriteRequests ?? 0) + (usage.s3ReadRequests ?? 0);
  return usage.sqsRequests + usage.dynamodbRequests + s3;
}

type Input = Record<string, unknown>;
type Handler = (args: { input: Input }) => Promise<{ output?: unknown }>;
interface Context {
  readonly clientName?: string;
  readonly commandName?: string;
}
interface Stack {
  add(
    middleware: (next: Handler, context: Context) => Handler,
    options: Record<string, unknown>,
  ): void;
}

/** Sum of CapacityUnits over a ConsumedCapacity value (one object, or a list of them). */
function capacityUnits(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  return list.reduce((sum: number, c) => sum + Number((c as Input)?.CapacityUnits ?? 0), 0);
}

function isConditionalFailure(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}

const asksCapacity = (next: Handler, context: Context): Handler => {
  return (args) => {
    const operation = context.commandName ?? '';
    if (scopes.getStore() === undefined || DYNAMODB_OPERATIONS[operation] === undefined) {
      return next(args);
    }
    const input = args.input;
    if (input.ReturnConsumedCapacity === undefined || input.ReturnConsumedCapacity === 'NONE') {
      return next({ ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } });
    }
    return next(args);
  };
};

const counts = (next: Handler, context: Context): Handler => {
  return async (args) => {
    const scope = scopes.getStore();
    if (scope === undefined) return next(args);
    const usage = emptyUsage();
    const kind = DYNAMODB_OPERATIONS[context.commandName ?? ''];
    const client = context.clientName ?? '';
    if (client.startsWith('DynamoDB')) usage.dynamodbRequests = 1;
    else if (client.startsWith('SQS')) usage.sqsRequests = 1;
    else if (client.startsWith('S3')) {
      if (S3_READS.has(context.commandName ?? '')) usage.s3ReadRequests = 1;
      else usage.s3WriteRequests = 1;
    }
    try {
      const result = await next(args);
      const units = capacityUnits((result.output as Input | undefined)?.ConsumedCapacity);
      if (kind === 'write') usage.writeUnits = units;
      else if (kind === 'read') usage.readUnits = units;
      return result;
    } catch (err) {
      // A refused conditional write is billed, but the error carries no ConsumedCapacity:
      // it counts as the minimum, one unit (a lower bound for items over 1 KB).
      if (kind === 'write' && isConditionalFailure(err)) usage.writeUnits = 1;
      throw err;
    } finally {
      if (requestCount(usage) > 0) scope.meter.record(scope.label, usage);
    }
  };
};

/**
 * Attaches the metering middleware to an SQS, DynamoDB or S3 client; attaching it again is a
 * no-op. It only acts inside a {@link UsageMeter.track} scope, so an injected client
 * behaves as before everywhere else.
 */
export function meterClient(client: { readonly middlewareStack: unknown }): void {
  const stack = client.middlewareStack as Stack;
  stack.add(asksCapacity, {
    step: 'initialize',
    name: 'tasklaneAskCapacity',
    override: true,
  });
  // In the deserialize step, inside the retry middleware: each attempt counts, as billed.
  stack.add(counts, {
    step: 'deserialize',
    priority: 'high',
    name: 'tasklaneUsageCounter',
    override: true,
  });
}
