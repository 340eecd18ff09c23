/**
 * Prices for the run-time cost figures (docs/cost.md): the requests and capacity units
 * Tasklane meters, priced per million.
 */
import { requestCount, type Usage } from './usage-meter.js';

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
  /**
   * S3 Standard PUT requests (the claim check's PutObject).
   * @default 5 (us-east-1)
   */
  readonly s3PerMillionWriteRequests?: number;
  /**
   * S3 Standard GET requests (the claim check's GetObject).
   * @default 0.4 (us-east-1)
   */
  readonly s3PerMillionReadRequests?: number;
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
  s3PerMillionWriteRequests: 5,
  s3PerMillionReadRequests: 0.4,
};

/** The S3 request prices of a table: its own, else us-east-1's. */
export function s3Prices(prices: PriceTable): { write: number; read: number } {
  return {
    write: prices.s3PerMillionWriteRequests ?? DEFAULT_S3_WRITE,
    read: prices.s3PerMillionReadRequests ?? DEFAULT_S3_READ,
  };
}
const DEFAULT_S3_WRITE = 5;
const DEFAULT_S3_READ = 0.4;

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
    /** The claim check's S3 requests, PUT and GET; absent when the usage made none. */
    readonly s3?: number;
    readonly total: number;
  };
  /** `cost.total` per million tasks; undefined when no task was counted. */
  readonly costPerMillionTasks: number | undefined;
  /** Requests (SQS, DynamoDB and S3) per task; undefined when no task was counted. */
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
  const s3Price = s3Prices(prices);
  const s3 =
    ((usage.s3WriteRequests ?? 0) * s3Price.write + (usage.s3ReadRequests ?? 0) * s3Price.read) /
    1e6;
  const total = sqs + dynamodbWrites + dynamodbReads + s3;
  return {
    usage: { ...usage },
    tasks,
    prices,
    cost: {
      sqs,
      dynamodbWrites,
      dynamodbReads,
      ...(usage.s3WriteRequests === undefined && usage.s3ReadRequests === undefined ? {} : { s3 }),
      total,
    },
    costPerMillionTasks: tasks > 0 ? (total / tasks) * 1e6 : undefined,
    requestsPerTask: tasks > 0 ? requestCount(usage) / tasks : undefined,
  };
}
