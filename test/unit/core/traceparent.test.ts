import { describe, expect, it } from 'vitest';
import { taskMessage } from '../../../src/core/message.js';
import {
  formatTraceparent,
  parseTraceparent,
  traceparentIssue,
  validTraceparent,
} from '../../../src/core/traceparent.js';
import { fromItem } from '../../../src/store/record.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads a version-00 traceparent as a remote span context', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
      isRemote: true,
    });
  });

  it.each([
    ['another version', `01-${TRACE}-${SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['trailing text', `00-${TRACE}-${SPAN}-01-extra`],
    ['a number', 42],
  ])('refuses %s, saying what was expected', (_, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
    expect(validTraceparent(value)).toBeUndefined();
    expect(traceparentIssue(value)).toMatch(/^expected 00-<32 hex>-<16 hex>-<2 hex> in lower case/);
  });

  it('says what it received', () => {
    expect(traceparentIssue(`00-${TRACE}-${'0'.repeat(16)}-01`)).toContain(
      `with non-zero ids, received "00-${TRACE}-`,
    );
    expect(traceparentIssue(42)).toContain('received number');
  });

  it('formats a span context back to the traceparent it was read from', () => {
    const value = `00-${TRACE}-${SPAN}-01`;
    const parsed = parseTraceparent(value);

    expect(parsed && formatTraceparent(parsed)).toBe(value);
    expect(traceparentIssue(value)).toBeUndefined();
  });
});

describe('a task message', () => {
  it('carries the record’s traceparent as a message attribute, and nothing without one', () => {
    const record = { id: 't1', type: 'x', generation: 1, messageGroupId: 't1' };

    const traced = taskMessage({ ...record, traceparent: `00-${TRACE}-${SPAN}-01` });
    const plain = taskMessage(record);

    expect(traced.MessageAttributes).toEqual({
      traceparent: { DataType: 'String', StringValue: `00-${TRACE}-${SPAN}-01` },
    });
    expect(JSON.parse(traced.MessageBody)).toEqual({ tasklane: 1, id: 't1', type: 'x' });
    expect(plain.MessageAttributes).toBeUndefined();
  });

  it('carries no attribute for a record whose traceparent is not valid', () => {
    const record = { id: 't1', type: 'x', generation: 1, messageGroupId: 't1' };

    expect(taskMessage({ ...record, traceparent: 'x'.repeat(300) }).MessageAttributes).toBe(
      undefined,
    );
  });
});

describe('fromItem', () => {
  it('reads a stored traceparent as stored, and a record without one (an older one) as none', () => {
    const item = { pk: 't1', type: 'x', status: 'PENDING', createdAt: 1, updatedAt: 1 };

    expect(fromItem({ ...item, traceparent: `00-${TRACE}-${SPAN}-01` }).traceparent).toBe(
      `00-${TRACE}-${SPAN}-01`,
    );
    // The worker checks it where it links to it (test/integration/tracing.test.ts).
    expect(fromItem({ ...item, traceparent: 'not a traceparent' }).traceparent).toBe(
      'not a traceparent',
    );
    expect('traceparent' in fromItem(item)).toBe(false);
  });
});
