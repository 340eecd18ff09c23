/**
 * The worker Lambda: an SQS event source mapping (ReportBatchItemFailures) invokes this
 * handler. The table and queue come from TASKLANE_TABLE_NAME and TASKLANE_QUEUE_URL, which
 * the TaskExecutor construct sets. Built once per execution environment, at cold start.
 */
import { exampleTasks } from '../examples/tasks.js';
import { createWorker } from '../src/index.js';

export const handler = createWorker(exampleTasks).lambdaHandler;
