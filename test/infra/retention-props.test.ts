import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/task-executor.js';
import { ValidationError } from '../../src/core/errors.js';

/** The props under test; the worker entry is the example app's. */
type Props = Omit<TaskExecutorProps, 'workerEntry'>;

function template(props: Props): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Retention');
  new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts', ...props });
  return Template.fromStack(stack);
}

function rejection(props: Props): ValidationError {
  try {
    template(props);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

/** Asserts that both functions get `value` as TASKLANE_RETENTION_MS. */
function expectRetentionEnv(t: Template, value: string): void {
  for (const role of ['worker', 'sweeper']) {
    t.hasResourceProperties('AWS::Lambda::Function', {
      Description: `the Tasklane ${role} of Retention`,
      Environment: { Variables: Match.objectLike({ TASKLANE_RETENTION_MS: value }) },
    });
  }
}

describe('TaskExecutor retention', () => {
  it('passes 30 days to both functions by default', () => {
    expectRetentionEnv(template({}), String(30 * 24 * 3_600_000));
  });

  it('passes a Duration in milliseconds', () => {
    expectRetentionEnv(template({ retention: Duration.days(400) }), String(400 * 24 * 3_600_000));
  });

  it("passes 'forever' as it is", () => {
    expectRetentionEnv(template({ retention: 'forever' }), 'forever');
  });

  it.each([
    [Duration.seconds(30), 'received 30000'],
    [Duration.days(3651), `received ${3651 * 24 * 3_600_000}`],
    [Duration.millis(60_000.5), 'received 60000.5'],
  ])('rejects a retention of %s', (retention, received) => {
    const error = rejection({ retention });

    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe('retention');
    expect(error.issues[0]?.message).toContain(
      "expected 'forever' or an integer number of milliseconds from 60000 (1 minute)",
    );
    expect(error.issues[0]?.message).toContain(received);
  });
});

describe('TaskExecutor retry horizon', () => {
  it('accepts the most attempts with the default delay and the longest worker timeout', () => {
    expect(() =>
      template({ maxAttempts: 100, maxReceiveCount: 101, workerTimeout: Duration.minutes(15) }),
    ).not.toThrow();
  });

  it("rejects a horizon over half the queue's retention, naming both figures", () => {
    const error = rejection({
      maxAttempts: 100,
      maxReceiveCount: 101,
      maxRetryDelay: Duration.hours(12),
    });

    expect(error.issues).toEqual([
      {
        path: 'maxAttempts',
        message:
          'expected the retry horizon, maxAttempts × (maxRetryDelay + workerTimeout) = ' +
          '100 × (43200000 + 60000) ms = 4326000000 ms (50.07 days), to be at most 50% of ' +
          "the queue's message retention of 1209600000 ms (14.00 days), 604800000 ms: " +
          'lower maxAttempts, maxRetryDelay or workerTimeout',
      },
    ]);
  });

  it('rejects a maxRetryDelay over 12 hours', () => {
    const error = rejection({ maxAttempts: 1, maxRetryDelay: Duration.hours(13) });

    expect(error.issues.map((i) => i.path)).toEqual(['maxRetryDelay']);
    expect(error.issues[0]?.message).toBe(
      'expected an integer from 0 to 43200 seconds, received 46800',
    );
  });
});
