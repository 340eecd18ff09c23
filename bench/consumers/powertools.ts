/**
 * Consumer child: the Powertools baseline handler behind the same local event source
 * mapping, one handler per concurrent invocation (as Lambda gives each its own environment).
 */
import { createPowertoolsHandler } from '../baseline/powertools-worker.js';
import { runConsumer } from './harness.js';
import { serveLambda } from './lambda.js';

await runConsumer((setup) =>
  // Its batch processor keeps the invocation's records at module scope: one per environment.
  serveLambda(setup, () =>
    createPowertoolsHandler({ tableName: setup.config.tableName, dynamodb: setup.dynamodb }),
  ),
);
