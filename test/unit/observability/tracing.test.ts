/**
 * The `tracing` option (docs/tracing.md): true or false, refused otherwise with a
 * ValidationError that says what was expected; and without a registered tracer provider,
 * no tracing and no stored trace context.
 */
import { describe, expect, it } from 'vitest';
import { checkClientOptions } from '../../../src/client/options.js';
import { ValidationError } from '../../../src/core/errors.js';
import { activeTraceparent, registeredTracing } from '../../../src/observability/tracing.js';
import { createWorker } from '../../../src/worker/create-worker.js';

const location = { tableName: 't', queueUrl: 'https://sqs.local/q.fifo' };

describe('the tracing option', () => {
  it.each([['auto'], [1], ['yes']])('refuses %j for a worker and a client', (value) => {
    const worker = () => createWorker([], { ...location, tracing: value as never });
    const client = () => checkClientOptions({ ...location, tracing: value });

    expect(worker).toThrow(ValidationError);
    expect(worker).toThrow(/tracing: expected true or false/);
    expect(client).toThrow(/options\.tracing: expected true or false/);
  });

  it('accepts true, false and none', () => {
    for (const tracing of [true, false, undefined]) {
      const options = tracing === undefined ? location : { ...location, tracing };
      expect(() => createWorker([], options)).not.toThrow();
      expect(() => checkClientOptions({ ...location, tracing })).not.toThrow();
    }
  });
});

describe('without a registered tracer provider', () => {
  it('traces nothing and stores no trace context', () => {
    expect(registeredTracing(true)).toBeUndefined();
    expect(activeTraceparent(true)).toBeUndefined();
  });
});
