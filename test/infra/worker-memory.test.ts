import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';

function workerTemplate(props: Partial<TaskExecutorProps>): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Memory');
  new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts', ...props });
  return Template.fromStack(stack);
}

const worker = { Description: 'the Tasklane worker of Memory' };

describe('TaskExecutor worker memory', () => {
  it('gives the worker 512 MB without a payload bucket', () => {
    const template = workerTemplate({});

    template.hasResourceProperties('AWS::Lambda::Function', { ...worker, MemorySize: 512 });
  });

  it('gives the worker 1024 MB with a payload bucket, enough to read a payload at the default limit', () => {
    const template = workerTemplate({ payloadBucket: true });

    template.hasResourceProperties('AWS::Lambda::Function', { ...worker, MemorySize: 1024 });
  });

  it('keeps an explicit workerMemorySize with a payload bucket', () => {
    const template = workerTemplate({ payloadBucket: true, workerMemorySize: 768 });

    template.hasResourceProperties('AWS::Lambda::Function', { ...worker, MemorySize: 768 });
  });
});
