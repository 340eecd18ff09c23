/**
 * A worker child process for the fault suite: `node worker-process.mjs` with its settings
 * as JSON in FAULT_WORKER_CONFIG and the emulator in AWS_ENDPOINT_URL. It polls until
 * SIGTERM (a graceful stop) or until the suite SIGKILLs or SIGSTOPs it. Warnings and errors
 * go to stderr as JSON lines, which the parent appends to the scenario's log.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../src/aws/clients.js';
import type { TaskLogger } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { faultTask } from './lib/fault-tasks.js';
import { CallLog, EffectsLedger } from './lib/ledger.js';
import type { WorkerProcessConfig } from './lib/processes.js';

const config = JSON.parse(process.env.FAULT_WORKER_CONFIG ?? '{}') as WorkerProcessConfig;
const region = 'us-east-1';

const write = (level: string) => (message: string, attributes?: Record<string, unknown>) => {
  process.stderr.write(
    `${JSON.stringify({ level, worker: config.workerId, at: new Date().toISOString(), message, ...attributes })}\n`,
  );
};
const logger: TaskLogger = {
  debug: () => undefined,
  // Audit events go to the parent, which counts them (stale-dropped, duplicate-dropped, …).
  info: (_message, attributes) => {
    if (attributes?.audit === true) process.stdout.write(CallLog.auditLine(attributes));
  },
  warn: write('warn'),
  error: write('error'),
};

const offset = config.clockOffsetMs ?? 0;
const worker = createWorker(
  [
    faultTask({
      ledger: new EffectsLedger(config.ledgerTable, new DynamoDBClient({ region })),
      workerId: config.workerId,
      profile: config.profile,
      calls: (entry) => process.stdout.write(CallLog.line(entry)),
      ends: (entry) => process.stdout.write(CallLog.endLine(entry)),
    }),
  ],
  {
    tableName: config.tableName,
    queueUrl: config.queueUrl,
    workerId: config.workerId,
    dynamodb: new DynamoDBClient({ ...awsClientConfig(), region }),
    sqs: new SQSClient({ ...awsClientConfig(), region }),
    logger,
    metrics: noopMetrics,
    leaseGraceMs: config.leaseGraceMs,
    leaseDurationMs: config.leaseDurationMs,
    clock: () => Date.now() + offset,
  },
);

const controller = new AbortController();
process.once('SIGTERM', () => controller.abort());
worker
  .poll({
    signal: controller.signal,
    concurrency: config.concurrency,
    batchSize: config.batchSize,
    waitTimeSeconds: config.waitTimeSeconds,
  })
  .then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error('poll loop failed', { error: String(err) });
      process.exit(2);
    },
  );
