/** Cost per million tasks, from the requests and units each task cost. */
import { LAMBDA_ASSUMPTIONS, PRICES } from '../prices.js';
import type { Tally } from './request-counter.js';

/** What one task costs, as counted. */
export interface PerTaskUsage {
  /** Per-task tally; idle (empty) receives left out. */
  readonly tally: Tally;
  /** Lambda invocations per task. */
  readonly lambdaInvocations: number;
  /** Scheduler invocations per task (delayed tasks only). */
  readonly schedulerInvocations?: number;
  /** Log bytes per task (audit lines). */
  readonly logBytes?: number;
}

/** Dollars per million tasks, by line item. */
export interface CostBreakdown {
  readonly sqs: number;
  readonly dynamodbWrites: number;
  readonly dynamodbReads: number;
  readonly lambdaRequests: number;
  readonly lambdaCompute: number;
  readonly scheduler: number;
  /** Everything above. */
  readonly total: number;
  /** CloudWatch Logs ingestion of the log lines; reported beside the total, not in it. */
  readonly logs: number;
}

function sum(tally: Tally, service: string, pick: (t: Tally[string]) => number): number {
  return Object.entries(tally)
    .filter(([key]) => key.startsWith(`${service}.`))
    .reduce((s, [, t]) => s + pick(t), 0);
}

/** Prices one million tasks of the given usage. */
export function costPerMillion(usage: PerTaskUsage): CostBreakdown {
  const million = 1e6;
  const sqs = sum(usage.tally, 'SQS', (t) => t.billedRequests) * PRICES.sqsFifoPerMillionRequests;
  const writeUnits = sum(usage.tally, 'DynamoDB', (t) => t.writeUnits + t.indexWriteUnits);
  const dynamodbWrites = writeUnits * PRICES.dynamodbPerMillionWriteUnits;
  const dynamodbReads =
    sum(usage.tally, 'DynamoDB', (t) => t.readUnits) * PRICES.dynamodbPerMillionReadUnits;
  const lambdaRequests = usage.lambdaInvocations * PRICES.lambdaPerMillionRequests;
  const gbSeconds =
    usage.lambdaInvocations *
    million *
    (LAMBDA_ASSUMPTIONS.memoryMb / 1024) *
    (LAMBDA_ASSUMPTIONS.durationMsPerInvocation / 1000);
  const lambdaCompute = gbSeconds * PRICES.lambdaPerGbSecondArm;
  const scheduler = (usage.schedulerInvocations ?? 0) * PRICES.schedulerPerMillionInvocations;
  const logs = (((usage.logBytes ?? 0) * million) / 1e9) * PRICES.cloudwatchLogsPerGbIngested;
  return {
    sqs,
    dynamodbWrites,
    dynamodbReads,
    lambdaRequests,
    lambdaCompute,
    scheduler,
    total: sqs + dynamodbWrites + dynamodbReads + lambdaRequests + lambdaCompute + scheduler,
    logs,
  };
}
