import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import { progressJson } from '../../../src/tasks/progress.js';
import { cancelledDetail, progressFlushDelay } from '../../../src/worker/run-decisions.js';

describe('progressJson', () => {
  it('returns the JSON of a value within the limit', () => {
    const json = progressJson({ step: 3, of: 10 });

    expect(JSON.parse(json)).toEqual({ step: 3, of: 10 });
  });

  it('accepts exactly the limit and refuses one byte more, quoting both sizes', () => {
    const atLimit = 'x'.repeat(4094);

    expect(progressJson(atLimit)).toHaveLength(4096);
    expect(() => progressJson(`${atLimit}x`)).toThrow(
      'expected at most 4096 bytes of JSON, received 4097 bytes',
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(() => progressJson('é'.repeat(2100))).toThrow('received 4202 bytes');
  });

  it.each([
    ['undefined', undefined],
    ['a function', () => 1],
    ['a BigInt', 1n],
    [
      'a cycle',
      (() => {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      })(),
    ],
  ])('refuses %s with a ValidationError', (_name, details) => {
    expect(() => progressJson(details)).toThrow(ValidationError);
    expect(() => progressJson(details)).toThrow('expected a JSON value');
  });
});

describe('progressFlushDelay', () => {
  it('writes at once when nothing was written yet', () => {
    expect(progressFlushDelay(1000, Number.NEGATIVE_INFINITY, 500)).toBe(0);
  });

  it('writes at once when the last write is an interval old', () => {
    expect(progressFlushDelay(1500, 1000, 500)).toBe(0);
  });

  it('waits for the rest of the interval after a recent write', () => {
    expect(progressFlushDelay(1200, 1000, 500)).toBe(300);
  });
});

describe('cancelledDetail', () => {
  it('says the handler stopped, with the error it stopped with', () => {
    const error = new Error('aborted');
    error.name = 'TaskCancelledError';

    expect(cancelledDetail({ ok: false, error, timedOut: false })).toBe(
      'cancelled while running: the handler stopped (TaskCancelledError: aborted)',
    );
  });

  it('says a handler that ignored the request was cut off at its timeout', () => {
    expect(cancelledDetail({ ok: false, error: new Error('t'), timedOut: true })).toContain(
      'cut off at its timeout',
    );
  });

  it('says the result of a handler that returned after the request is not stored', () => {
    expect(cancelledDetail({ ok: true, value: 1 })).toContain('its result is not stored');
  });
});
