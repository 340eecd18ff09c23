/**
 * Consumer child: Tasklane's worker Lambda handler behind the local event source mapping,
 * one worker per concurrent invocation (as Lambda gives each its own environment). The
 * worker logs its audit lines to stdout as in Lambda.
 */
import { awsClientConfig } from '../../src/aws/clients.js';
import { createWorker } from '../../src/index.js';
import { benchTasks } from '../fixtures/tasks.js';
import { runConsumer } from './harness.js';
import { serveLambda } from './lambda.js';

await runConsumer(
  (setup) =>
    serveLambda(
      setup,
      () =>
        createWorker(benchTasks, {
          tableName: setup.config.tableName,
          queueUrl: setup.config.queueUrl,
          sqs: setup.sqs,
          dynamodb: setup.dynamodb,
        }).lambdaHandler,
    ),
  awsClientConfig(),
);
