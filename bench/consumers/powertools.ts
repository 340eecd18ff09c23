/**
 * Consumer child: the Powertools baseline handler behind the same local event source
 * mapping, one handler per concurrent invocation (as Lambda gives each its own environment).
 */
import { silentLogger } from '../../src/index.js';
import { runEventSourceMapping } from '../../src/local/index.js';
import { createPowertoolsHandler } from '../baseline/powertools-worker.js';
import { perEnvironment, runConsumer, timed } from './harness.js';

await runConsumer(async ({ config, sqs, dynamodb, progress }) => {
  // Its batch processor keeps the invocation's records at module scope: one per environment.
  const handler = perEnvironment(config.concurrency, () =>
    createPowertoolsHandler({ tableName: config.tableName, dynamodb }),
  );
  await runEventSourceMapping({
    sqs,
    queueUrl: config.queueUrl,
    handler: timed(handler, progress),
    signal: progress.signal,
    logger: silentLogger,
    batchSize: config.batchSize,
    maximumConcurrency: config.concurrency,
    onBatch: (s) => progress.batch(s.deleted, s.failed, s.batchError !== undefined),
  });
});
