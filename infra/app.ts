/**
 * The CDK app: `npx cdk synth` (offline) and `npx cdk deploy` use it through cdk.json.
 * The stack is environment-agnostic: it deploys to the account and region of the CLI's
 * credentials (or, with `npm run deploy:local`, into the local emulator).
 */
import { App } from 'aws-cdk-lib';
import { TasklaneExampleStack } from './example-stack.js';

const app = new App();
new TasklaneExampleStack(app, 'TasklaneExample');
app.synth();
