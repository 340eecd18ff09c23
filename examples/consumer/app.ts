/**
 * The CDK app: one TaskExecutor, and a producer function wired to it by one call; checked by
 * cdk-nag (AwsSolutions, NIST 800-53 R5).
 */
import path from 'node:path';
import { App, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { AwsSolutionsChecks, NIST80053R5Checks } from 'cdk-nag';
import { TaskExecutor } from 'tasklane/cdk';

const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new NIST80053R5Checks(app));

const stack = new Stack(app, 'TasklaneConsumer');
const executor = new TaskExecutor(stack, 'Tasks', {
  workerEntry: path.join(import.meta.dirname, 'worker.ts'),
  maxAttempts: 3,
});

// The producer: connectProducer sets every TASKLANE_* variable its TaskClient reads (delayed
// tasks included) and grants enqueue, and with { read: true } reading its tasks back.
const producer = new NodejsFunction(stack, 'Producer', {
  entry: path.join(import.meta.dirname, 'producer.ts'),
  runtime: executor.runtime,
});
executor.connectProducer(producer, { read: true });
new CfnOutput(stack, 'ProducerFunctionName', { value: producer.functionName });

// The producer's own findings are this app's choices, not the executor's: a real app would
// put it in a VPC, cap its concurrency and give it a dead-letter queue as its policy requires.
// Acknowledged on the function, they cover its role and the policy the grants went into.
for (const [id, reason] of [
  [
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'The example producer writes its logs through the basic execution role.',
  ],
  ['NIST.800.53.R5-IAMNoInlinePolicy', 'CDK puts grants into the role’s default policy.'],
  ['NIST.800.53.R5-LambdaConcurrency', 'An example producer: no reserved concurrency.'],
  ['NIST.800.53.R5-LambdaDLQ', 'Invoked synchronously: a DLQ applies to async invocations.'],
  ['NIST.800.53.R5-LambdaInsideVPC', 'An example producer: it reaches only AWS APIs.'],
] as const) {
  Validations.of(producer).acknowledge({ id, reason });
}
