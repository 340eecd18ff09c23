import { App, Duration, Stack, Token } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { ValidationError } from '../../src/core/errors.js';

function construct(props: Partial<TaskExecutorProps>, stackName = 'Valid'): TaskExecutor {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new TaskExecutor(new Stack(app, stackName), 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...props,
  });
}

function rejection(props: Partial<TaskExecutorProps>, stackName?: string): ValidationError {
  try {
    construct(props, stackName);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('TaskExecutor prop validation', () => {
  it('accepts the defaults', () => {
    expect(construct({}).settings.workQueue.name).toBe('Valid-work.fifo');
  });

  it.each<[string, Partial<TaskExecutorProps>, string]>([
    [
      'name',
      { name: 'has space' },
      'expected 1-60 characters of A-Z a-z 0-9 _ -, received "has space"',
    ],
    ['name', { name: 'n'.repeat(61) }, `received "${'n'.repeat(61)}"`],
    [
      'workerEntry',
      { workerEntry: 'functions/missing.ts' },
      'expected an existing file that exports `handler`, received "',
    ],
    [
      'workerEntry',
      { workerEntry: 'README.md' },
      'expected a module path ending in .ts, .mts, .js, .mjs, received "',
    ],
    [
      'workerTimeout',
      { workerTimeout: Duration.minutes(16) },
      'expected an integer from 1 to 900, received 960 (in seconds)',
    ],
    ['workerTimeout', { workerTimeout: Duration.millis(1500) }, 'received 1.5 (in seconds)'],
    [
      'visibilityTimeout',
      { visibilityTimeout: Duration.minutes(5) },
      'expected an integer from 360 (6 × the worker timeout of 60 s) to 43200, received 300 (in seconds)',
    ],
    ['visibilityTimeout', { visibilityTimeout: Duration.hours(13) }, 'received 46800 (in seconds)'],
    [
      'workerMemorySize',
      { workerMemorySize: 64 },
      'expected an integer from 128 to 10240 MB, received 64',
    ],
    ['batchSize', { batchSize: 11 }, 'expected an integer from 1 to 10, received 11'],
    ['batchSize', { batchSize: 0 }, 'expected an integer from 1 to 10, received 0'],
    ['maxConcurrency', { maxConcurrency: 1 }, 'expected an integer from 2 to 1000, received 1'],
    [
      'maxConcurrency',
      { maxConcurrency: 1001 },
      'expected an integer from 2 to 1000, received 1001',
    ],
    [
      'reservedConcurrency',
      { reservedConcurrency: 5 },
      'expected an integer from 10 to 1000000 (at least maxConcurrency, 10), received 5',
    ],
    [
      'maxAttempts',
      { maxAttempts: 0, maxReceiveCount: 1000 },
      'expected an integer from 1 to 100, received 0',
    ],
    [
      'maxReceiveCount',
      { maxAttempts: 5, maxReceiveCount: 5 },
      'expected an integer above maxAttempts (5) and at most 1000, received 5',
    ],
    [
      'oldestMessageAgeThreshold',
      { oldestMessageAgeThreshold: Duration.seconds(30) },
      'expected an integer from 60 to 1209600 seconds, received 30',
    ],
  ])('rejects a bad %s, naming the value and what was expected', (path, props, message) => {
    const error = rejection(props);

    expect(error.issues.map((issue) => issue.path)).toEqual([path]);
    expect(error.issues[0]?.message).toContain(message);
    expect(error.message).toContain(`  - ${path}: expected `);
  });

  it('rejects a missing workerEntry, as a JavaScript caller can leave it out', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const props = {} as TaskExecutorProps;

    const act = () => new TaskExecutor(new Stack(app, 'NoEntry'), 'Executor', props);

    expect(act).toThrow(
      /workerEntry: expected the path of the worker module that exports `handler`, received undefined/,
    );
  });

  it('rejects a stack name that cannot prefix resource names, unless name is given', () => {
    const long = `S${'x'.repeat(64)}`;

    expect(rejection({}, long).issues[0]?.message).toContain(`received "${long}"`);
    expect(construct({ name: 'short' }, long).settings.table.name).toBe('short-tasks');
  });

  it('reports every failure in one message', () => {
    const error = rejection({
      name: 'bad name',
      workerEntry: 'nope.ts',
      batchSize: 20,
      maxConcurrency: 1,
      workerTimeout: Duration.seconds(0),
    });

    expect(error.issues.map((issue) => issue.path)).toEqual([
      'workerEntry',
      'batchSize',
      'maxConcurrency',
      'name',
      'workerTimeout',
    ]);
    expect(error.message).toMatch(/^Invalid TaskExecutor props:\n {2}- workerEntry: /);
  });

  it('skips values that are Tokens', () => {
    // Values that would fail if they were checked.
    const props: Partial<TaskExecutorProps> = {
      batchSize: Token.asNumber({ Ref: 'BatchSize' }),
      maxConcurrency: Token.asNumber({ Ref: 'MaxConcurrency' }),
      reservedConcurrency: Token.asNumber({ Ref: 'Reserved' }),
      maxReceiveCount: Token.asNumber({ Ref: 'MaxReceiveCount' }),
    };

    const executor = construct(props);

    expect(executor.settings.maxReceiveCount).toBe(props.maxReceiveCount);
  });
});
