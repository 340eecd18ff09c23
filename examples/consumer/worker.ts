/** The worker Lambda: the TaskExecutor's SQS event source mapping invokes this handler. */
import { createWorker } from 'tasklane';
import { tasks } from './tasks.ts';

export const handler = createWorker(tasks).lambdaHandler;
