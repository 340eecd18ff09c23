/** The CDK app: one TaskExecutor, checked by cdk-nag (AwsSolutions, NIST 800-53 R5). */
import path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, NIST80053R5Checks } from 'cdk-nag';
import { TaskExecutor } from 'tasklane/cdk';

const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new NIST80053R5Checks(app));

const stack = new Stack(app, 'TasklaneConsumer');
new TaskExecutor(stack, 'Tasks', {
  workerEntry: path.join(import.meta.dirname, 'worker.ts'),
  maxAttempts: 3,
});
