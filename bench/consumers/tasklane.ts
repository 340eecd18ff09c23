/**
 * Consumer child: Tasklane's worker Lambda handler behind the local event source mapping,
 * one worker per concurrent invocation (as Lambda gives each its own environment). The
 * worker logs its audit lines to stdout as in Lambda.
 */
import { awsClientConfig } from '../../src/aws-clients.js';
import { createWorker, silentLogger } from '../../src/index.js';
import { runEventSourceMapping } from '../../src/local/index.js';
import { benchTasks } from '../fixtures/tasks.js';
import { perEnvironment, runConsumer, timed } from './harness.js';

await runConsumer(async ({ config, sqs, dynamodb, progress }) => {
  const handler = perEnvironment(
    config.concurrency,
    () =>
      createWorker(benchTasks, {
        tableName: config.tableName,
        queueUrl: config.queueUrl,
        sqs,
        dynamodb,
      }).lambdaHandler,
  );
  await runEventSourceMapping({
    sqs,
    queueUrl: config.queueUrl,
    handler: timed(handler, progress),
    signal: progress.signal,
    // The mapping stands in for the Lambda service; its own lines are not the function's.
    logger: silentLogger,
    batchSize: config.batchSize,
    maximumConcurrency: config.concurrency,
    onBatch: (s) => progress.batch(s.deleted, s.failed, s.batchError !== undefined),
  });
}, awsClientConfig());
