/**
 * Prices for the run-time cost figures (docs/cost.md): the requests and capacity units
 * Tasklane meters, priced per million.
 */
import type { Usage } from './usage-meter.js';

/** What the metered units cost, per million, in one region. */
export interface PriceTable {
  /** The region these prices are for. */
  readonly region: string;
  /** When the prices were last checked (YYYY-MM-DD). */
  readonly asOf: string;
  /** SQS FIFO requests (each 64 KB of payload is one request). */
  readonly sqsPerMillionRequests: number;
  /** DynamoDB on-demand write request units. */
  readonly dynamodbPerMillionWriteUnits: number;
  /** DynamoDB on-demand read request units. */
  readonly dynamodbPerMillionReadUnits: number;
}

/**
 * AWS on-demand list prices in us-east-1, without free tiers, as of the date given. Other
 * regions differ: pass your own table (see {@link priceUsage}).
 */
export const DEFAULT_PRICES: PriceTable = {
  region: 'us-east-1',
  asOf: '2026-11-30',
  sqsPerMillionRequests: 0.5,
  dynamodbPerMillionWriteUnits: 0.625,
  dynamodbPerMillionReadUnits: 0.125,
};

/** Metered usage with its price. */
export interface PricedUsage {
  readonly usage: Usage;
  /** Tasks the usage was spent on (enqueued, for a producer; processed, for a worker). */
  readonly tasks: number;
  readonly prices: PriceTable;
  /** In US dollars. */
  readonly cost: {
    readonly sqs: number;
    readonly dynamodbWrites: number;
    readonly dynamodbReads: number;
    readonly total: number;
  };
  /** `cost.total` per million tasks; undefined when no task was counted. */
  readonly costPerMillionTasks: number | undefined;
  /** Requests (SQS and DynamoDB) per task; undefined when no task was counted. */
  readonly requestsPerTask: number | undefined;
}

/** Prices `usage` spent on `tasks` tasks with `prices`. */
export function priceUsage(
  usage: Usage,
  tasks: number,
  prices: PriceTable = DEFAULT_PRICES,
): PricedUsage {
  const sqs = (usage.sqsRequests * prices.sqsPerMillionRequests) / 1e6;
  const dynamodbWrites = (usage.writeUnits * prices.dynamodbPerMillionWriteUnits) / 1e6;
  const dynamodbReads = (usage.readUnits * prices.dynamodbPerMillionReadUnits) / 1e6;
  const total = sqs + dynamodbWrites + dynamodbReads;
  return {
    usage: { ...usage },
    tasks,
    prices,
    cost: { sqs, dynamodbWrites, dynamodbReads, total },
    costPerMillionTasks: tasks > 0 ? (total / tasks) * 1e6 : undefined,
    requestsPerTask: tasks > 0 ? (usage.sqsRequests + usage.dynamodbRequests) / tasks : undefined,
  };
}
