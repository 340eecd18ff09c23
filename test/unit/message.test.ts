import { describe, expect, it } from 'vitest';
import { MESSAGE_SCHEMA_VERSION } from '../../src/core/constants.js';
import {
  bodyHash,
  firingTemplate,
  parseEnvelope,
  parseMessage,
  taskMessage,
} from '../../src/core/message.js';

const MAX_ENVELOPE_BYTES = 16 * 1024;

const task = { id: 'task-1', type: 'email.send', generation: 1, messageGroupId: 'customer-42' };
const validBody = JSON.stringify({ tasklane: MESSAGE_SCHEMA_VERSION, id: 'task-1', type: 'x' });

/** Asserts the body is refused, with a reason, and returns the reason. */
function expectRejected(body: string): string {
  const parsed = parseEnvelope(body);
  expect(parsed.ok).toBe(false);
  if (parsed.ok) throw new Error('unreachable');
  expect(parsed.reason).toEqual(expect.any(String));
  expect(parsed.reason.length).toBeGreaterThan(0);
  return parsed.reason;
}

describe('taskMessage', () => {
  it('uses the record’s message group id as MessageGroupId', () => {
    expect(taskMessage(task).MessageGroupId).toBe('customer-42');
  });

  it('carries only the task’s identity in the body, tagged with the schema version', () => {
    expect(JSON.parse(taskMessage(task).MessageBody)).toEqual({
      tasklane: MESSAGE_SCHEMA_VERSION,
      id: 'task-1',
      type: 'email.send',
    });
  });

  it('builds a body that parseEnvelope accepts', () => {
    expect(parseEnvelope(taskMessage(task).MessageBody)).toEqual({
      ok: true,
      envelope: { tasklane: MESSAGE_SCHEMA_VERSION, id: 'task-1', type: 'email.send' },
    });
  });

  it('uses a deduplication id of 64 hex characters', () => {
    expect(taskMessage(task).MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the deduplication id within SQS’s 128 characters for a 128-character task id', () => {
    const longId = 'x'.repeat(128);

    expect(taskMessage({ ...task, id: longId }).MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the same deduplication id to the same id and generation', () => {
    expect(taskMessage(task).MessageDeduplicationId).toBe(
      taskMessage({ ...task, type: 'other', messageGroupId: 'other' }).MessageDeduplicationId,
    );
  });

  it('gives every generation of a task its own deduplication id', () => {
    const dedupIds = [1, 2, 3, 4].map(
      (generation) => taskMessage({ ...task, generation }).MessageDeduplicationId,
    );

    expect(new Set(dedupIds).size).toBe(4);
  });

  it('gives different tasks different deduplication ids', () => {
    expect(taskMessage(task).MessageDeduplicationId).not.toBe(
      taskMessage({ ...task, id: 'task-2' }).MessageDeduplicationId,
    );
  });

  it('names the task it was sent for by its record’s creation time, and parses it back', () => {
    const body = taskMessage({ ...task, createdAt: 1_700_000_000_123 }).MessageBody;

    expect(parseEnvelope(body)).toEqual({
      ok: true,
      envelope: {
        tasklane: MESSAGE_SCHEMA_VERSION,
        id: 'task-1',
        type: 'email.send',
        createdAt: 1_700_000_000_123,
      },
    });
  });

  it('gives a task enqueued again under a purged id another deduplication id than the purged one', () => {
    const purged = taskMessage({ ...task, createdAt: 1_000 }).MessageDeduplicationId;
    const again = taskMessage({ ...task, createdAt: 2_000 }).MessageDeduplicationId;

    expect(again).not.toBe(purged);
    expect(again).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not confuse id and generation boundaries (a#1 vs a#11 style collisions)', () => {
    const a = taskMessage({ ...task, id: 'a', generation: 11 }).MessageDeduplicationId;
    const b = taskMessage({ ...task, id: 'a#1', generation: 1 }).MessageDeduplicationId;

    expect(a).not.toBe(b);
  });
});

describe('parseEnvelope', () => {
  it('returns the envelope for a valid body', () => {
    expect(parseEnvelope(validBody)).toEqual({
      ok: true,
      envelope: { tasklane: MESSAGE_SCHEMA_VERSION, id: 'task-1', type: 'x' },
    });
  });

  it.each([
    ['a string', '"1700000000000"'],
    ['a fraction', '1.5'],
    ['a negative number', '-1'],
    ['null', 'null'],
  ])('refuses a createdAt that is %s', (_name, value) => {
    const body = `{"tasklane":${MESSAGE_SCHEMA_VERSION},"id":"t","type":"x","createdAt":${value}}`;

    expect(expectRejected(body)).toContain('createdAt');
  });

  it('accepts ids and types of 128 characters', () => {
    const body = JSON.stringify({ tasklane: 1, id: 'i'.repeat(128), type: 't'.repeat(128) });

    expect(parseEnvelope(body).ok).toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['whitespace', '   \n'],
    ['plain text', 'hello'],
    ['truncated JSON', '{"tasklane":1,"id":"a"'],
    ['single-quoted JSON', "{'tasklane':1}"],
    ['a NUL byte', '\u0000'],
    ['a lone surrogate', '\ud800'],
  ])('rejects %s as not JSON', (_label, body) => {
    expect(expectRejected(body)).toMatch(/not JSON/);
  });

  it.each([
    ['null', 'null'],
    ['a number', '42'],
    ['a boolean', 'true'],
    ['a JSON string', '"task-1"'],
    ['an empty array', '[]'],
    ['an array holding a valid envelope', `[${validBody}]`],
    ['an empty object', '{}'],
  ])('rejects %s as not an envelope', (_label, body) => {
    expect(expectRejected(body)).toMatch(/not a Tasklane envelope/);
  });

  it('rejects array nesting 10,000 deep without throwing', () => {
    const depth = 10_000;
    const body = '['.repeat(depth) + ']'.repeat(depth);

    expect(() => parseEnvelope(body)).not.toThrow();
    expectRejected(body);
  });

  it('rejects object nesting 10,000 deep without throwing', () => {
    const depth = 10_000;
    const body = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

    expect(() => parseEnvelope(body)).not.toThrow();
    expectRejected(body);
  });

  it('rejects nesting that fits under the size limit without throwing', () => {
    // 8,000 levels is 16,000 bytes: it reaches JSON.parse and the schema.
    const depth = 8_000;
    const body = '['.repeat(depth) + ']'.repeat(depth);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_ENVELOPE_BYTES);

    expect(expectRejected(body)).toMatch(/not a Tasklane envelope/);
  });

  it('rejects a body over 16 KB before parsing it', () => {
    // A valid envelope padded with JSON whitespace past the limit.
    const body = validBody + ' '.repeat(MAX_ENVELOPE_BYTES);

    expect(expectRejected(body)).toMatch(/larger than 16384 bytes/);
  });

  it('accepts a valid envelope of exactly 16 KB', () => {
    const body = validBody + ' '.repeat(MAX_ENVELOPE_BYTES - validBody.length);
    expect(Buffer.byteLength(body)).toBe(MAX_ENVELOPE_BYTES);

    expect(parseEnvelope(body).ok).toBe(true);
  });

  it('measures the size limit in UTF-8 bytes, not characters', () => {
    // 6,000 characters, 18,000 bytes.
    const body = JSON.stringify({ tasklane: 1, id: 'a', type: '€'.repeat(6_000) });

    expect(expectRejected(body)).toMatch(/larger than/);
  });

  it('rejects extra keys (a message cannot smuggle a payload)', () => {
    const body = JSON.stringify({ tasklane: 1, id: 'a', type: 't', payload: { admin: true } });

    expect(expectRejected(body)).toMatch(/unrecognized_keys/);
  });

  it.each([
    ['version 2', { tasklane: 2, id: 'a', type: 't' }],
    ['version 0', { tasklane: 0, id: 'a', type: 't' }],
    ['the version as a string', { tasklane: '1', id: 'a', type: 't' }],
    ['no version', { id: 'a', type: 't' }],
  ])('rejects %s', (_label, envelope) => {
    expect(expectRejected(JSON.stringify(envelope))).toMatch(/tasklane/);
  });

  it.each([
    ['a numeric id', { tasklane: 1, id: 7, type: 't' }, 'id'],
    ['a null type', { tasklane: 1, id: 'a', type: null }, 'type'],
    ['an empty id', { tasklane: 1, id: '', type: 't' }, 'id'],
    ['an empty type', { tasklane: 1, id: 'a', type: '' }, 'type'],
    ['an id of 129 characters', { tasklane: 1, id: 'i'.repeat(129), type: 't' }, 'id'],
    ['a type of 129 characters', { tasklane: 1, id: 'a', type: 't'.repeat(129) }, 'type'],
    ['an object as id', { tasklane: 1, id: { toString: 'a' }, type: 't' }, 'id'],
    ['an array as type', { tasklane: 1, id: 'a', type: ['t'] }, 'type'],
    ['no id', { tasklane: 1, type: 't' }, 'id'],
  ])('rejects %s, naming the field', (_label, envelope, field) => {
    expect(expectRejected(JSON.stringify(envelope))).toContain(`${field}:`);
  });

  it('rejects a __proto__ key and pollutes no prototype', () => {
    // Written by hand, because JSON.stringify would drop __proto__.
    const body = '{"tasklane":1,"id":"a","type":"t","__proto__":{"polluted":true}}';

    const reason = expectRejected(body);

    expect(reason).toContain('unrecognized_keys');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it.each([
    ['not JSON', 'SECRET-42 {'],
    ['an unknown key', '{"tasklane":1,"id":"a","type":"t","SECRET-42":1}'],
    ['a wrong value', '{"tasklane":1,"id":"a","type":["SECRET-42"]}'],
    ['a value too long', `{"tasklane":1,"id":"a","type":"SECRET-42${'x'.repeat(200)}"}`],
    ['a bad firing', '{"tasklane":1,"kind":"firing","schedule":"SECRET-42!"}'],
  ])('never quotes the body in the reason (%s), only its hash', (_label, body) => {
    const reason = expectRejected(body);
    const viaMessage = parseMessage(body);

    expect(reason).not.toContain('SECRET');
    expect(reason).toContain(`body sha256 ${bodyHash(body)}`);
    expect(viaMessage.ok ? 'accepted' : viaMessage.reason).not.toMatch(/SECRET|accepted/);
  });

  it('rejects an envelope hidden under __proto__', () => {
    const body = '{"__proto__":{"tasklane":1,"id":"a","type":"t"}}';

    expectRejected(body);
    expect(Object.prototype).not.toHaveProperty('tasklane');
  });

  it('rejects a constructor key', () => {
    expectRejected('{"tasklane":1,"id":"a","type":"t","constructor":{"prototype":{}}}');
  });
});

describe('parseMessage', () => {
  const firing = {
    tasklane: MESSAGE_SCHEMA_VERSION,
    kind: 'firing',
    schedule: 'nightly-report',
    scheduledTime: '2026-03-22T18:59:00Z',
    execution: { id: 'd32c5kddcf5bb8c3', attempt: '1' },
    type: 'report',
    payload: { day: 'today' },
  };

  it('reads a task envelope as a task', () => {
    expect(parseMessage(validBody)).toEqual({
      ok: true,
      kind: 'task',
      envelope: { tasklane: MESSAGE_SCHEMA_VERSION, id: 'task-1', type: 'x' },
    });
  });

  it('reads a recurring schedule’s firing', () => {
    expect(parseMessage(JSON.stringify(firing))).toEqual({ ok: true, kind: 'firing', firing });
  });

  it('reads what firingTemplate produces once Scheduler has substituted it', () => {
    const template = firingTemplate({
      schedule: 'nightly-report',
      type: 'report',
      payload: { day: 'today' },
    });
    const body = template
      .replace('<aws.scheduler.scheduled-time>', '2026-03-22T18:59:00Z')
      .replace('<aws.scheduler.execution-id>', 'd32c5kddcf5bb8c3')
      .replace('<aws.scheduler.attempt-number>', '1');

    expect(parseMessage(body)).toEqual({ ok: true, kind: 'firing', firing });
  });

  it.each([
    ['an unsubstituted scheduled time', { scheduledTime: '<aws.scheduler.scheduled-time>' }],
    ['a scheduled time with milliseconds', { scheduledTime: '2026-03-22T18:59:00.000Z' }],
    ['an impossible scheduled time', { scheduledTime: '2026-02-30T18:59:00Z' }],
    ['a schedule name Scheduler would refuse', { schedule: 'has space' }],
    ['a missing execution', { execution: undefined }],
    ['an attempt that is not a number', { execution: { id: 'x', attempt: 'one' } }],
    ['an unknown field', { extra: true }],
    ['another kind', { kind: 'task' }],
    ['an empty type', { type: '' }],
  ])('rejects a firing with %s, never throwing', (_, change) => {
    const parsed = parseMessage(JSON.stringify({ ...firing, ...change }));

    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain('not a Tasklane firing');
  });

  it.each([
    'not json',
    'null',
    '[]',
    '"firing"',
    '{"kind":null}',
    'x'.repeat(MAX_ENVELOPE_BYTES + 1),
  ])('rejects %j without throwing', (body) => {
    expect(parseMessage(body).ok).toBe(false);
  });

  it('leaves parseEnvelope refusing firings, as before', () => {
    expect(parseEnvelope(JSON.stringify(firing)).ok).toBe(false);
  });
});
