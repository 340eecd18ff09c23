import { describe, expect, it } from 'vitest';
import { Defaults } from '../../src/core/constants.js';
import { ValidationError } from '../../src/core/errors.js';
import {
  type ExecutorSettingsProps,
  executorSettings,
  settingsIssues,
} from '../../src/settings/executor.js';

function validationError(props: ExecutorSettingsProps): ValidationError {
  try {
    executorSettings(props);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('executorSettings', () => {
  it('names every resource after the prefix, with explicit .fifo queue names', () => {
    const settings = executorSettings({ name: 'jobs' });

    expect(settings.workQueue.name).toBe('jobs-work.fifo');
    expect(settings.deadLetterQueue.name).toBe('jobs-dlq.fifo');
    expect(settings.table.name).toBe('jobs-tasks');
  });

  it('uses the prefix "tasklane" by default', () => {
    const settings = executorSettings();

    expect(settings.workQueue.name).toBe('tasklane-work.fifo');
    expect(settings.deadLetterQueue.name).toBe('tasklane-dlq.fifo');
    expect(settings.table.name).toBe('tasklane-tasks');
  });

  it('makes the work queue a high-throughput FIFO queue with content-based deduplication', () => {
    const { attributes } = executorSettings().workQueue;

    expect(attributes).toMatchObject({
      FifoQueue: 'true',
      ContentBasedDeduplication: 'true',
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
    });
  });

  it('makes the dead-letter queue FIFO too', () => {
    expect(executorSettings().deadLetterQueue.attributes.FifoQueue).toBe('true');
  });

  it('turns on SSE for both queues', () => {
    const settings = executorSettings();

    expect(settings.workQueue.attributes.SqsManagedSseEnabled).toBe('true');
    expect(settings.deadLetterQueue.attributes.SqsManagedSseEnabled).toBe('true');
  });

  it('keeps messages for the 14 days SQS allows', () => {
    const settings = executorSettings();

    expect(settings.workQueue.attributes.MessageRetentionPeriod).toBe('1209600');
    expect(settings.deadLetterQueue.attributes.MessageRetentionPeriod).toBe('1209600');
  });

  it.each([
    [1, 6],
    [60, 360],
    [900, 5_400],
  ])('sets visibility to 6 × a worker timeout of %i s (%i s)', (timeout, visibility) => {
    const settings = executorSettings({ workerTimeoutSeconds: timeout });

    expect(settings.visibilityTimeoutSeconds).toBe(visibility);
    expect(settings.workQueue.attributes.VisibilityTimeout).toBe(String(visibility));
  });

  it('defaults to a 60 s worker timeout (360 s visibility)', () => {
    expect(executorSettings().visibilityTimeoutSeconds).toBe(360);
  });

  it('defaults maxReceiveCount to 50 and accepts any value above maxAttempts up to 1000', () => {
    expect(executorSettings().maxReceiveCount).toBe(50);
    expect(executorSettings({ maxAttempts: 5, maxReceiveCount: 6 }).maxReceiveCount).toBe(6);
    expect(executorSettings({ maxReceiveCount: 1_000 }).maxReceiveCount).toBe(1_000);
  });

  it('describes the table keys, TTL attribute, stream and sharded status index', () => {
    expect(executorSettings().table).toEqual({
      name: 'tasklane-tasks',
      partitionKey: 'pk',
      ttlAttribute: 'expiresAt',
      streamViewType: 'NEW_AND_OLD_IMAGES',
      statusIndex: {
        name: 'byStatus',
        partitionKey: 'statusShard',
        sortKey: 'statusAt',
        projection: ['type', 'orderingKey', 'updatedAt', 'lane'],
      },
    });
  });

  it.each(['a', 'A_b-9', 'n'.repeat(60)])('accepts the name %j', (name) => {
    expect(executorSettings({ name }).workQueue.name).toBe(`${name}-work.fifo`);
  });

  it('names the schedule group after the executor and gives it a standard dead-letter queue', () => {
    const { scheduler } = executorSettings({ name: 'jobs' });

    expect(scheduler).toEqual({
      groupName: 'jobs',
      delayedGroupName: 'jobs.at',
      deadLetterQueue: {
        name: 'jobs-schedule-dlq',
        attributes: { MessageRetentionPeriod: '1209600', SqsManagedSseEnabled: 'true' },
      },
      maximumEventAgeSeconds: 86_400,
      maximumRetryAttempts: 185,
    });
  });

  it('keeps the longest schedule group and schedule DLQ names within their limits', () => {
    const { scheduler } = executorSettings({ name: 'x'.repeat(60) });

    expect(scheduler.groupName).toMatch(/^[0-9a-zA-Z_.-]{1,64}$/);
    expect(scheduler.deadLetterQueue.name.length).toBeLessThanOrEqual(80);
  });

  it('keeps the longest work queue name within SQS’s 80 characters', () => {
    expect(executorSettings({ name: 'n'.repeat(60) }).workQueue.name.length).toBeLessThanOrEqual(
      80,
    );
  });

  it.each([
    ['name', { name: '' }],
    ['name', { name: 'n'.repeat(61) }],
    ['name', { name: 'has space' }],
    ['name', { name: 'dots.not.allowed' }],
    ['workerTimeoutSeconds', { workerTimeoutSeconds: 0 }],
    ['workerTimeoutSeconds', { workerTimeoutSeconds: 901 }],
    ['workerTimeoutSeconds', { workerTimeoutSeconds: 1.5 }],
    ['maxReceiveCount', { maxReceiveCount: 3 }],
    ['maxReceiveCount', { maxReceiveCount: 2 }],
    ['maxReceiveCount', { maxAttempts: 10, maxReceiveCount: 10 }],
    ['maxReceiveCount', { maxReceiveCount: 1_001 }],
    ['maxReceiveCount', { maxReceiveCount: 4.5 }],
  ])('rejects an invalid %s (%j)', (path, props) => {
    const error = validationError(props);

    expect(error.issues.map((i) => i.path)).toEqual([path]);
  });

  it.each([Number.NaN, 0, -1, 2.5, 101])('rejects maxAttempts %s with a maxAttempts issue', (n) => {
    // A maxReceiveCount that would exceed any valid maxAttempts.
    const props = { maxAttempts: n, maxReceiveCount: 1_000 };

    const error = validationError(props);

    expect(error.issues).toEqual([
      { path: 'maxAttempts', message: `expected an integer from 1 to 100, received ${n}` },
    ]);
  });

  it('accepts maxAttempts up to Defaults.MAX_ATTEMPTS_LIMIT, with maxReceiveCount above it', () => {
    const settings = executorSettings({
      maxAttempts: Defaults.MAX_ATTEMPTS_LIMIT,
      maxReceiveCount: Defaults.MAX_ATTEMPTS_LIMIT + 1,
    });

    expect(settings.maxReceiveCount).toBe(Defaults.MAX_ATTEMPTS_LIMIT + 1);
  });

  it('requires maxReceiveCount to exceed even the largest maxAttempts', () => {
    const error = validationError({
      maxAttempts: Defaults.MAX_ATTEMPTS_LIMIT,
      maxReceiveCount: Defaults.MAX_ATTEMPTS_LIMIT,
    });

    expect(error.issues.map((i) => i.path)).toEqual(['maxReceiveCount']);
    expect(error.message).toContain('above maxAttempts (100)');
  });

  it('reports every invalid prop at once, quoting what it received', () => {
    const error = validationError({
      name: 'bad name!',
      workerTimeoutSeconds: 0,
      maxAttempts: 5,
      maxReceiveCount: 5,
    });

    expect(error.issues.map((i) => i.path)).toEqual([
      'name',
      'workerTimeoutSeconds',
      'maxReceiveCount',
    ]);
    expect(error.message).toContain('received "bad name!"');
    expect(error.message).toContain('received 0');
    expect(error.message).toContain('above maxAttempts (5)');
    expect(error.message).toContain('executor settings');
  });

  it('accepts a visibility timeout from 6 × the worker timeout up to 12 hours', () => {
    expect(
      executorSettings({ workerTimeoutSeconds: 30, visibilityTimeoutSeconds: 180 })
        .visibilityTimeoutSeconds,
    ).toBe(180);
    expect(
      executorSettings({ visibilityTimeoutSeconds: 43_200 }).workQueue.attributes.VisibilityTimeout,
    ).toBe('43200');
  });

  it.each([179, 43_201, 200.5])('rejects a visibility timeout of %s s for a 30 s worker', (v) => {
    const error = validationError({ workerTimeoutSeconds: 30, visibilityTimeoutSeconds: v });

    expect(error.issues).toEqual([
      {
        path: 'visibilityTimeoutSeconds',
        message: `expected an integer from 180 (6 × the worker timeout of 30 s) to 43200, received ${v}`,
      },
    ]);
  });

  it('names the schedule group after the prefix', () => {
    expect(executorSettings({ name: 'jobs' }).scheduler.groupName).toBe('jobs');
  });

  it('makes the schedule DLQ a standard queue, as EventBridge Scheduler requires', () => {
    const scheduleDeadLetterQueue = executorSettings({ name: 'jobs' }).scheduler.deadLetterQueue;

    expect(scheduleDeadLetterQueue.name).toBe('jobs-schedule-dlq');
    expect(scheduleDeadLetterQueue.attributes.FifoQueue).toBeUndefined();
    expect(scheduleDeadLetterQueue.attributes.SqsManagedSseEnabled).toBe('true');
  });

  it('skips the values that isUnresolved flags (CDK Tokens)', () => {
    // Values that would fail, marked as not yet known.
    const token = 'TOKEN[name]';
    const props = { name: token, maxReceiveCount: -1 };
    const isUnresolved = (value: unknown) => value === token || value === -1;

    const issues = settingsIssues(props, { isUnresolved });

    expect(issues).toEqual([]);
    expect(executorSettings(props, { isUnresolved }).workQueue.name).toBe(`${token}-work.fifo`);
  });
});
