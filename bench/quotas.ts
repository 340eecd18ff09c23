/**
 * The AWS quotas and Tasklane settings the capacity model (docs/capacity.md) holds the
 * measured per-task units against. Each figure is the documented default in us-east-1, with
 * the AWS page that states it and whether AWS raises it on request. Update `asOf` whenever
 * a figure changes; nothing here is measured.
 */
import { Defaults } from '../src/core/constants.js';
import { MAX_LANES } from '../src/settings/lanes.js';
import { MAX_STATUS_SHARDS } from '../src/store/status-index-keys.js';

/** One documented quota. */
export interface Quota {
  /** The default value, in the unit `unit` names. */
  readonly value: number;
  readonly unit: string;
  /** True when AWS raises it on request (Service Quotas or support). */
  readonly adjustable: boolean;
  /** The AWS documentation page that states it. */
  readonly source: string;
}

const DYNAMODB = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide';
const SQS = 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide';
const LAMBDA = 'https://docs.aws.amazon.com/lambda/latest/dg';
const SCHEDULER = 'https://docs.aws.amazon.com/scheduler/latest/UserGuide/scheduler-quotas.html';

/** Documented AWS quotas, us-east-1 defaults. */
export const QUOTAS = {
  asOf: '2026-12-06',
  region: 'us-east-1',
  /** Write units a second on one partition key value (so on one `status#shard` key). */
  partitionWriteUnits: {
    value: 1_000,
    unit: 'write units/s per key',
    adjustable: false,
    source: `${DYNAMODB}/warm-throughput-scenarios.html`,
  },
  /** The on-demand table-level write throughput quota. */
  tableWriteUnits: {
    value: 40_000,
    unit: 'write units/s',
    adjustable: true,
    source: `${DYNAMODB}/on-demand-capacity-mode-max-throughput.html`,
  },
  /** What a new on-demand table sustains before it has seen a higher peak. */
  newTableWriteUnits: {
    value: 4_000,
    unit: 'write units/s',
    adjustable: true,
    source: `${DYNAMODB}/on-demand-capacity-mode.html`,
  },
  /** SQS FIFO without high-throughput mode: transactions a second per API action. */
  fifoActionTps: {
    value: 300,
    unit: 'requests/s per action',
    adjustable: false,
    source: `${SQS}/quotas-messages.html`,
  },
  /** SQS FIFO in high-throughput mode, us-east-1: requests a second per API action. */
  fifoHighThroughputActionTps: {
    value: 70_000,
    unit: 'requests/s per action',
    adjustable: false,
    source: `${SQS}/quotas-messages.html`,
  },
  /** Messages received and not yet deleted, per FIFO queue. */
  fifoInFlight: {
    value: 120_000,
    unit: 'messages per queue',
    adjustable: false,
    source: `${SQS}/quotas-messages.html`,
  },
  /** Concurrent executions of all functions of an account in a Region. */
  lambdaConcurrency: {
    value: 1_000,
    unit: 'concurrent executions',
    adjustable: true,
    source: `${LAMBDA}/lambda-concurrency.html`,
  },
  /** How fast one function may add execution environments. */
  lambdaScaling: {
    value: 1_000,
    unit: 'execution environments per 10 s per function',
    adjustable: false,
    source: `${LAMBDA}/scaling-behavior.html`,
  },
  /** An SQS event source mapping's maximum concurrency (Tasklane's `maxConcurrency`). */
  mappingConcurrency: {
    value: 1_000,
    unit: 'concurrent invocations per mapping',
    adjustable: false,
    source: `${LAMBDA}/services-sqs-scaling.html`,
  },
  /** EventBridge Scheduler target invocations a second. */
  schedulerInvocations: {
    value: 1_000,
    unit: 'invocations/s',
    adjustable: true,
    source: SCHEDULER,
  },
  /** EventBridge Scheduler CreateSchedule requests a second. */
  schedulerCreates: {
    value: 5_000,
    unit: 'CreateSchedule/s',
    adjustable: true,
    source: SCHEDULER,
  },
  /** EventBridge Scheduler schedules that may exist at once. */
  schedulerSchedules: {
    value: 10_000_000,
    unit: 'schedules',
    adjustable: true,
    source: SCHEDULER,
  },
} as const satisfies Record<string, Quota | string>;

/** The quota ids, for tables that list them all. */
export type QuotaId = Exclude<keyof typeof QUOTAS, 'asOf' | 'region'>;

/** Tasklane's own settings that the quotas meet: defaults and bounds (docs/reference/construct.md). */
export const TASKLANE_LIMITS = {
  /** `statusShards`: default and most (docs/status-index.md). */
  defaultShards: Defaults.STATUS_SHARDS,
  maxShards: MAX_STATUS_SHARDS,
  /** Lanes, the default one included (docs/lanes.md). */
  maxLanes: MAX_LANES,
  /** `maxConcurrency` of a lane's event source mapping: default and most. */
  defaultMaxConcurrency: 10,
  maxMaxConcurrency: 1_000,
  /** Delayed tasks due within this many seconds wait in the queue instead of Scheduler. */
  scheduleThresholdSeconds: 60,
} as const;

/**
 * The share of each limit the recommended settings leave free: the status index's rule
 * (docs/status-index.md, shards ≥ peak ÷ 250) keeps half of each key's throughput for
 * heartbeats, retries and an uneven spread, and the model applies the same half everywhere.
 */
export const HEADROOM = 2;
