/**
 * The example of docs/events.md: lifecycle events from a TaskExecutor to a rule, in-process
 * hooks on a poll-loop worker, and a consumer that deduplicates. Type-checked in CI with the
 * rest of the repository; in an application, import from 'tasklane/cdk' and 'tasklane'.
 */
import { App, Stack } from 'aws-cdk-lib';
import { EventBus, type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { EventBridgeEvent } from 'aws-lambda';
import * as z from 'zod';
import { TaskExecutor } from '../src/cdk/index.js';
import {
  createWorker,
  defineTask,
  LifecycleEventType,
  type TaskEventDetail,
} from '../src/index.js';

/** Infrastructure: the executor publishes to its own bus; a rule sends dead tasks to a queue. */
export function ordersApp(): App {
  const app = new App();
  const stack = new Stack(app, 'Orders');
  // Typed as the interface: under `exactOptionalPropertyTypes`, CDK's EventBus class does not
  // match its own IEventBus (`eventSourceName`), which props and rules take.
  const bus = new EventBus(stack, 'TaskEvents', { eventBusName: 'orders-tasks' }) as IEventBus;
  new TaskExecutor(stack, 'Tasks', {
    workerEntry: 'src/worker.ts',
    // `events: true` alone publishes to the account's default bus.
    eventBus: bus,
  });
  const deadTasks = new Queue(stack, 'DeadTasks', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  new Rule(stack, 'OnDead', {
    eventBus: bus,
    eventPattern: {
      // The source is `tasklane.<name>`; the name defaults to the stack's.
      source: ['tasklane.Orders'],
      detailType: [LifecycleEventType.DEAD],
    },
    targets: [new SqsQueue(deadTasks)],
  });
  return app;
}

export const chargeCard = defineTask('chargeCard', {
  schema: z.object({ orderId: z.string(), cents: z.number().int() }),
  handler: async ({ orderId }) => ({ receipt: `r-${orderId}` }),
});

/** A poll-loop worker (ECS, a laptop) with in-process hooks; errors in a hook are only logged. */
export function startWorker(signal: AbortSignal): Promise<void> {
  const worker = createWorker([chargeCard], {
    onSucceeded: (event) => console.log(`${event.taskId} took ${event.durationMs} ms`),
    onDead: async (event) => {
      await pageSomeone(`${event.type} ${event.taskId} is dead: ${event.deadReason}`);
    },
  });
  return worker.poll({ signal });
}

async function pageSomeone(text: string): Promise<void> {
  console.error(text);
}

const handled = new Set<string>();

/**
 * A consumer Lambda behind a rule. Events come at least once, so it deduplicates on the task
 * id, the status and `finishedAt` (the same for every copy of one outcome; a redriven task
 * that dies again has a later one); in production, a conditional write instead of a Set.
 */
export async function onTaskEvent(
  event: EventBridgeEvent<LifecycleEventType, TaskEventDetail>,
): Promise<void> {
  const { taskId, status, finishedAt } = event.detail;
  const key = `${taskId}/${status}/${finishedAt}`;
  if (handled.has(key)) return;
  handled.add(key);
  if (event['detail-type'] === LifecycleEventType.SUCCEEDED && event.detail.resultTruncated) {
    // The result was over 8 KB: read it with TaskClient.get(taskId).
  }
}
