/**
 * The price table every cost figure uses: AWS on-demand list prices in us-east-1, without
 * free tiers. Update `asOf` whenever a price changes.
 */
export const PRICES = {
  /** When these prices were checked. */
  asOf: '2026-11-30',
  region: 'us-east-1',
  source:
    'AWS public price pages (SQS, DynamoDB on-demand, Lambda, EventBridge Scheduler, CloudWatch Logs), as quoted in issue #6',
  /** SQS FIFO: per million requests; each started 64 KB of payload is one request. */
  sqsFifoPerMillionRequests: 0.5,
  sqsBillingChunkBytes: 64 * 1024,
  /** DynamoDB on-demand: per million write request units (1 KB each). */
  dynamodbPerMillionWriteUnits: 0.625,
  /** DynamoDB on-demand: per million read request units (4 KB strongly consistent each). */
  dynamodbPerMillionReadUnits: 0.125,
  /** Lambda: per million invocations. */
  lambdaPerMillionRequests: 0.2,
  /** Lambda compute on Arm (Graviton), which the TaskExecutor construct uses. */
  lambdaPerGbSecondArm: 0.0000133334,
  /** EventBridge Scheduler: per million invocations; creating schedules is not billed. */
  schedulerPerMillionInvocations: 1.0,
  /** CloudWatch Logs ingestion (standard class), per GB: the audit log's cost. */
  cloudwatchLogsPerGbIngested: 0.5,
} as const;

/**
 * The stated Lambda configuration for GB-seconds. The duration is an assumption, not a
 * measurement: on the emulator every request is serialized behind one lock, so measured
 * invocation times say more about moto than about Lambda (BENCHMARKS.md shows them anyway).
 */
export const LAMBDA_ASSUMPTIONS = {
  memoryMb: 512,
  /** Billed duration of one invocation (one batch of 10 no-op tasks). */
  durationMsPerInvocation: 100,
  architecture: 'arm64',
} as const;
