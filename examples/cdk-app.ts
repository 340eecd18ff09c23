/**
 * The example of docs/deploying.md: a TaskExecutor in your own CDK app, with a producer wired
 * by connectProducer, and an SDK configured from the stack outputs. Type-checked in CI with the
 * rest of the repository; in an application, import from 'tasklane/cdk' and 'tasklane'.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { TaskExecutor } from '../src/cdk/index.js';
import { locationFromStackOutputs, TaskClient } from '../src/index.js';

/** Builds the app; `cdk.json` would point at a file that calls this and `app.synth()`. */
export function ordersApp(): App {
  const app = new App();
  const stack = new Stack(app, 'Orders');
  const pager = new Topic(stack, 'Pager', { enforceSSL: true });

  // Your worker module exports `handler = createWorker(tasks).lambdaHandler`.
  const executor = new TaskExecutor(stack, 'Tasks', {
    workerEntry: 'src/worker.ts',
    workerTimeout: Duration.minutes(2),
    maxAttempts: 5,
    maxConcurrency: 20,
    alarmActions: [new SnsAction(pager)],
  });

  // A producer: it enqueues (immediate and delayed) and reads its tasks back. Every
  // TASKLANE_* variable its `new TaskClient()` reads is set, and the grants given.
  const api = new NodejsFunction(stack, 'Api', {
    entry: 'src/api.ts',
    runtime: executor.runtime,
  });
  executor.connectProducer(api, { read: true });
  return app;
}

/** Outside the stack (a script, another service): configure the SDK from the outputs. */
export async function clientFromStack(stackName: string): Promise<TaskClient> {
  const cloudformation = new CloudFormationClient({});
  const { Stacks = [] } = await cloudformation.send(
    new DescribeStacksCommand({ StackName: stackName }),
  );
  return new TaskClient(locationFromStackOutputs(Stacks[0]?.Outputs ?? [], 'Tasks'));
}
