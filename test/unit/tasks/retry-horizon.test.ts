import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Defaults } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import {
  maxRetryHorizonMs,
  retryHorizonIssue,
  retryHorizonMs,
} from '../../../src/tasks/retry-horizon.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { createWorker } from '../../../src/worker/create-worker.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SQS_MAX_RETENTION_MS = 14 * DAY_MS;

describe('retryHorizonMs', () => {
  it('is maxAttempts × (maxDelayMs + timeoutMs)', () => {
    expect(retryHorizonMs({ maxAttempts: 100, maxDelayMs: 12 * HOUR_MS, timeoutMs: 30_000 })).toBe(
      100 * (12 * HOUR_MS + 30_000),
    );
  });
});

describe('maxRetryHorizonMs', () => {
  it('is half the queue retention: 7 days for SQS maximum of 14', () => {
    expect(maxRetryHorizonMs(SQS_MAX_RETENTION_MS)).toBe(7 * DAY_MS);
    expect(Defaults.QUEUE_RETENTION_SECONDS * 1000).toBe(SQS_MAX_RETENTION_MS);
  });
});

describe('retryHorizonIssue', () => {
  it('accepts a horizon of exactly half the retention', () => {
    const bounds = { maxAttempts: 7, maxDelayMs: DAY_MS - 1_000, timeoutMs: 1_000 };

    expect(retryHorizonIssue(bounds, SQS_MAX_RETENTION_MS)).toBeUndefined();
  });

  it('rejects a horizon one millisecond over half the retention', () => {
    const bounds = { maxAttempts: 1, maxDelayMs: 7 * DAY_MS - 1_000, timeoutMs: 1_001 };

    expect(retryHorizonIssue(bounds, SQS_MAX_RETENTION_MS)).toBeDefined();
  });

  it('names the horizon, the retention and the limit in its message', () => {
    const bounds = { maxAttempts: 100, maxDelayMs: 12 * HOUR_MS, timeoutMs: 30_000 };

    const message = retryHorizonIssue(bounds, SQS_MAX_RETENTION_MS);

    expect(message).toBe(
      'expected the retry horizon, maxAttempts × (maxDelayMs + timeout) = ' +
        '100 × (43200000 + 30000) ms = 4323000000 ms (50.03 days), to be at most 50% of ' +
        "the queue's message retention of 1209600000 ms (14.00 days), 604800000 ms: " +
        'lower maxAttempts, maxDelayMs or timeout',
    );
  });

  it('checks against a shorter queue retention when given one', () => {
    const bounds = { maxAttempts: 3, maxDelayMs: 300_000, timeoutMs: 30_000 };

    expect(retryHorizonIssue(bounds, 4 * DAY_MS)).toBeUndefined();
    expect(retryHorizonIssue(bounds, 60_000)).toContain('message retention of 60000 ms');
  });

  it('uses the caller names of the figures', () => {
    const bounds = { maxAttempts: 100, maxDelayMs: 12 * HOUR_MS, timeoutMs: 900_000 };

    const message = retryHorizonIssue(bounds, SQS_MAX_RETENTION_MS, {
      maxDelay: 'maxRetryDelay',
      timeout: 'workerTimeout',
    });

    expect(message).toContain('maxAttempts × (maxRetryDelay + workerTimeout)');
    expect(message).toContain('lower maxAttempts, maxRetryDelay or workerTimeout');
  });
});

describe('defineTask retry horizon', () => {
  const schema = z.object({});
  const handler = () => undefined;

  it('rejects 100 attempts with 12-hour delays, naming the horizon and the retention', () => {
    let error: unknown;

    try {
      defineTask('slow', {
        schema,
        handler,
        retry: { maxAttempts: 100, maxDelayMs: 12 * HOUR_MS },
      });
    } catch (err) {
      error = err;
    }

    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues;
    expect(issues.map((i) => i.path)).toEqual(['retry']);
    expect(issues[0]?.message).toContain('= 4323000000 ms (50.03 days)');
    expect(issues[0]?.message).toContain('retention of 1209600000 ms (14.00 days)');
  });

  it('accepts the defaults and the largest horizon that fits', () => {
    expect(() => defineTask('plain', { schema, handler })).not.toThrow();
    expect(() =>
      defineTask('edge', {
        schema,
        handler,
        retry: { maxAttempts: 14, maxDelayMs: 12 * HOUR_MS - 1_000 },
        timeout: 1_000,
      }),
    ).not.toThrow();
  });

  it('reports no horizon issue while a figure is itself out of range', () => {
    let error: unknown;

    try {
      defineTask('bad', { schema, handler, retry: { maxAttempts: 101, maxDelayMs: 12 * HOUR_MS } });
    } catch (err) {
      error = err;
    }

    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(['retry.maxAttempts']);
  });
});

describe('createWorker queueRetentionMs', () => {
  const location = { tableName: 't', queueUrl: 'https://sqs.local/q.fifo' };
  const schema = z.object({});
  const handler = () => undefined;
  const quick = defineTask('quick', { schema, handler, retry: { maxAttempts: 3 } });
  const slow = defineTask('slow', {
    schema,
    handler,
    retry: { maxAttempts: 10, maxDelayMs: HOUR_MS },
  });

  it('accepts task types whose horizon fits half the given retention', () => {
    expect(() =>
      createWorker([quick, slow], { ...location, queueRetentionMs: DAY_MS }),
    ).not.toThrow();
  });

  it('names each task type whose horizon is over half the given retention', () => {
    let error: unknown;

    try {
      createWorker([quick, slow], { ...location, queueRetentionMs: 4 * HOUR_MS });
    } catch (err) {
      error = err;
    }

    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues;
    expect(issues.map((i) => i.path)).toEqual(['slow.retry']);
    expect(issues[0]?.message).toContain('10 × (3600000 + 30000) ms = 36300000 ms');
    expect(issues[0]?.message).toContain('message retention of 14400000 ms');
  });

  it('rejects a retention below SQS minimum of 60 seconds', () => {
    expect(() => createWorker([quick], { ...location, queueRetentionMs: 59_999 })).toThrow(
      'queueRetentionMs: expected an integer number of milliseconds of at least 60000',
    );
  });
});
