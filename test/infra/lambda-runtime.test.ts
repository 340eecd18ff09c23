import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { ValidationError } from '../../src/core/errors.js';

function template(props: Partial<TaskExecutorProps>): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Runtime');
  new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts', ...props });
  return Template.fromStack(stack);
}

const worker = { Description: 'the Tasklane worker of Runtime' };
const sweeper = { Description: 'the Tasklane sweeper of Runtime' };

describe('TaskExecutor lambdaRuntime', () => {
  it('gives both functions the newest Node.js runtime aws-cdk-lib knows by default', () => {
    const synthesized = template({});

    // aws-cdk-lib 2.276, the repository's version, knows Node.js 24 at most.
    synthesized.hasResourceProperties('AWS::Lambda::Function', {
      ...worker,
      Runtime: 'nodejs24.x',
    });
    synthesized.hasResourceProperties('AWS::Lambda::Function', {
      ...sweeper,
      Runtime: 'nodejs24.x',
    });
  });

  it('gives both functions a pinned runtime', () => {
    const synthesized = template({ lambdaRuntime: Runtime.NODEJS_24_X });

    synthesized.hasResourceProperties('AWS::Lambda::Function', {
      ...worker,
      Runtime: 'nodejs24.x',
    });
    synthesized.hasResourceProperties('AWS::Lambda::Function', {
      ...sweeper,
      Runtime: 'nodejs24.x',
    });
  });

  it('tells the app the runtime it chose, for the app’s own functions', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Runtime');
    const other = new Stack(app, 'Pinned');

    const chosen = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
    const pinned = new TaskExecutor(other, 'Executor', {
      workerEntry: 'functions/worker.ts',
      lambdaRuntime: Runtime.NODEJS_24_X,
    });

    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      ...worker,
      Runtime: chosen.runtime.name,
    });
    expect(pinned.runtime).toBe(Runtime.NODEJS_24_X);
  });

  it('refuses a runtime older than the bundles, or not Node.js, naming what it received', () => {
    const attempt = (lambdaRuntime: Runtime) => () => template({ lambdaRuntime });

    expect(attempt(Runtime.NODEJS_22_X)).toThrow(ValidationError);
    expect(attempt(Runtime.NODEJS_22_X)).toThrow(
      /lambdaRuntime: expected a Node\.js runtime, 24 or later .*received "nodejs22\.x"/,
    );
    expect(attempt(Runtime.PYTHON_3_13)).toThrow(/received "python3\.13"/);
  });
});
