import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/task-executor.js';
import { ValidationError } from '../../src/core/errors.js';

/** The props under test; the worker entry is the example app's. */
type Props = Omit<TaskExecutorProps, 'workerEntry'>;

function template(props: Props): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Shards');
  new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts', ...props });
  return Template.fromStack(stack);
}

/** Asserts that both functions get `value` as TASKLANE_STATUS_SHARDS. */
function expectShardsEnv(t: Template, value: string): void {
  for (const role of ['worker', 'sweeper']) {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Description: `the Tasklane ${role} of Shards`,
      Environment: { Variables: Match.objectLike({ TASKLANE_STATUS_SHARDS: value }) },
    });
  }
}

describe('TaskExecutor statusShards', () => {
  it('passes 8 shards to both functions and the stack outputs by default', () => {
    const t = template({});

    expectShardsEnv(t, '8');
    t.hasOutput('ExecutorStatusShards', { Value: '8' });
  });

  it('passes the shard count it is given', () => {
    const t = template({ statusShards: 32 });

    expectShardsEnv(t, '32');
    t.hasOutput('ExecutorStatusShards', { Value: '32' });
  });

  it.each([0, 257, 2.5, Number.NaN])('rejects %s shards, naming the prop and the range', (n) => {
    const error = (() => {
      try {
        template({ statusShards: n });
      } catch (err) {
        return err;
      }
      return undefined;
    })();

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'statusShards',
        message: `expected an integer from 1 to 256, received ${n}`,
      },
    ]);
  });
});
