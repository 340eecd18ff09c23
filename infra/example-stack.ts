/**
 * The example stack: one TaskExecutor that runs the example tasks (examples/tasks.ts,
 * through functions/worker.ts). infra/app.ts synthesizes it; the infra tests check it. It
 * imports the construct as an app does (`tasklane/cdk`), here from the source.
 */
import path from 'node:path';
import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { TaskExecutor, type TaskExecutorProps } from '../src/cdk/index.js';

/** Props of {@link TasklaneExampleStack}. */
export interface TasklaneExampleStackProps extends StackProps {
  /** Overrides of the executor's props. @default - the example's settings */
  readonly executor?: Partial<TaskExecutorProps>;
}

/** A stack with one executor, `Executor`, running the example tasks. */
export class TasklaneExampleStack extends Stack {
  readonly executor: TaskExecutor;

  constructor(scope: Construct, id: string, props: TasklaneExampleStackProps = {}) {
    super(scope, id, {
      description: 'Tasklane example: a serverless task executor (SQS FIFO, Lambda, DynamoDB)',
      ...props,
    });
    this.executor = new TaskExecutor(this, 'Executor', {
      workerEntry: path.resolve(import.meta.dirname, '../functions/worker.ts'),
      ...props.executor,
    });
  }
}
