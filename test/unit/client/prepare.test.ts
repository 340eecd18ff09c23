import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type EnqueueOptions, prepareTask } from '../../../src/client/prepare.js';
import { PayloadTooLargeError, ValidationError } from '../../../src/core/errors.js';
import { canonicalJson } from '../../../src/store/record.js';
import { defineTask, validatePayload } from '../../../src/tasks/task-definition.js';

const LIMIT = 1_024;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const handler = () => undefined;

const email = defineTask('email.send', {
  schema: z.object({ to: z.string().email(), subject: z.string().min(1) }),
  handler,
  retry: { maxAttempts: 5 },
  timeout: 12_000,
});
const anything = defineTask('anything', { schema: z.any(), handler });
const validEmail = { to: 'a@example.com', subject: 'hi' };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

async function validationError(promise: Promise<unknown>): Promise<ValidationError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe('prepareTask', () => {
  describe('ids and ordering keys', () => {
    it.each([
      ['one character', '!'],
      ['the last printable character but one', '}'],
      ['128 characters', 'k'.repeat(128)],
      ['punctuation', 'order#42/item:7?x=1&y="z"'],
    ])('accepts %s', async (_label, key) => {
      const task = await prepareTask(email, validEmail, { id: key, orderingKey: key }, LIMIT);

      expect(task.id).toBe(key);
      expect(task.orderingKey).toBe(key);
    });

    it.each([
      ['an empty string', ''],
      ['a space inside', 'a b'],
      ['a leading space', ' a'],
      ['a tab', 'a\tb'],
      ['a newline', 'a\n'],
      ['DEL (0x7f)', 'a\u007f'],
      ['129 characters', 'k'.repeat(129)],
      ['non-ASCII letters', 'café'],
      ['an emoji', 'task-🚀'],
      ['a number', 42],
      ['null', null],
      ['an object', { id: 'x' }],
    ])('rejects %s as id and as ordering key', async (_label, key) => {
      const options = { id: key, orderingKey: key } as unknown as { id: string };

      const error = await validationError(prepareTask(email, validEmail, options, LIMIT));

      expect(error.issues.map((i) => i.path)).toEqual(['options.id', 'options.orderingKey']);
      expect(error.issues[0]?.message).toMatch(/printable ASCII/);
    });

    it('quotes the received value in the message, shortened', async () => {
      const error = await validationError(
        prepareTask(email, validEmail, { id: 'x'.repeat(500) }, LIMIT),
      );

      expect(error.issues[0]?.message).toContain('received "xxxx');
      expect(error.message.length).toBeLessThan(300);
    });

    it('rejects a BigInt id and ordering key with a ValidationError naming the type', async () => {
      // JSON.stringify would throw a TypeError on these.
      const options = { id: 42n, orderingKey: 7n } as unknown as EnqueueOptions;

      const error = await validationError(prepareTask(email, validEmail, options, LIMIT));

      expect(error.issues).toEqual([
        { path: 'options.id', message: expect.stringMatching(/received bigint$/) },
        { path: 'options.orderingKey', message: expect.stringMatching(/received bigint$/) },
      ]);
    });
  });

  describe('the firing id namespace', () => {
    it("rejects an id with '@', which only recurring schedules' firings use", async () => {
      const error = await validationError(
        prepareTask(email, validEmail, { id: 'nightly@2026-11-30T01:00:00Z' }, LIMIT),
      );

      expect(error.issues).toEqual([
        { path: 'options.id', message: expect.stringMatching(/reserved for recurring schedules/) },
      ]);
    });

    it("still accepts '@' in an ordering key", async () => {
      const task = await prepareTask(email, validEmail, { orderingKey: 'a@example.com' }, LIMIT);

      expect(task.orderingKey).toBe('a@example.com');
    });
  });

  describe('validation', () => {
    it('reports option and payload issues together in one ValidationError', async () => {
      const payload = { to: 'not-an-email', subject: '' };
      const options = { id: 'has space', orderingKey: '' };

      const error = await validationError(prepareTask(email, payload, options, LIMIT));

      expect(error.issues.map((i) => i.path)).toEqual([
        'options.id',
        'options.orderingKey',
        'payload.to',
        'payload.subject',
      ]);
      expect(error.message).toContain("enqueue of task type 'email.send'");
    });

    it('reports a root payload issue under the path "payload"', async () => {
      const error = await validationError(prepareTask(email, 'a string', {}, LIMIT));

      expect(error.issues.map((i) => i.path)).toEqual(['payload']);
    });

    it('reports nested payload paths with dots', async () => {
      const nested = defineTask('nested', {
        schema: z.object({ items: z.array(z.object({ qty: z.number() })) }),
        handler,
      });

      const error = await validationError(
        prepareTask(nested, { items: [{ qty: 1 }, { qty: 'x' }] }, {}, LIMIT),
      );

      expect(error.issues.map((i) => i.path)).toEqual(['payload.items.1.qty']);
    });

    it('reports a BigInt payload as a ValidationError, not a crash', async () => {
      const error = await validationError(prepareTask(anything, { n: 10n }, {}, LIMIT));

      expect(error.issues).toEqual([
        { path: 'payload', message: expect.stringMatching(/not JSON-serializable.*BigInt/) },
      ]);
    });

    it('reports a cyclic payload as a ValidationError, not a crash', async () => {
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic.self = cyclic;

      const error = await validationError(prepareTask(anything, cyclic, {}, LIMIT));

      expect(error.issues.map((i) => i.path)).toEqual(['payload']);
      expect(error.issues[0]?.message).toMatch(/not JSON-serializable/);
    });

    it('says "circular" when a payload refers back to itself through nested objects', async () => {
      // Objects only; the sorting replacer used to hide such a cycle from JSON.stringify.
      const order: Record<string, unknown> = { id: 'o-1' };
      order.customer = { name: 'Ada', lastOrder: order };

      const error = await validationError(prepareTask(anything, order, {}, LIMIT));

      expect(error.issues).toEqual([
        { path: 'payload', message: expect.stringMatching(/circular/i) },
      ]);
      expect(error.message).toMatch(/circular/i);
    });

    it('reports a payload nested past the depth cap as a ValidationError, not a crash', async () => {
      const deep = JSON.parse(`${'['.repeat(5_000)}${']'.repeat(5_000)}`) as unknown;

      const error = await validationError(prepareTask(anything, deep, {}, LIMIT));

      expect(error.issues).toEqual([
        { path: 'payload', message: expect.stringMatching(/nested deeper than 64 levels/) },
      ]);
    });

    it('reports a cyclic array payload as a ValidationError', async () => {
      const cyclic: unknown[] = [];
      cyclic.push(cyclic);

      const error = await validationError(prepareTask(anything, cyclic, {}, LIMIT));

      expect(error.issues.map((i) => i.path)).toEqual(['payload']);
    });

    it.each([
      ['undefined', undefined],
      ['a function', () => 1],
      ['a symbol', Symbol('s')],
    ])('rejects %s as a payload that has no JSON form', async (_label, payload) => {
      const error = await validationError(prepareTask(anything, payload, {}, LIMIT));

      expect(error.issues).toEqual([
        { path: 'payload', message: 'expected a JSON-serializable value' },
      ]);
    });

    it('reports option issues alongside an unserializable payload', async () => {
      const error = await validationError(prepareTask(anything, 1n, { id: '' }, LIMIT));

      expect(error.issues.map((i) => i.path)).toEqual(['options.id', 'payload']);
    });
  });

  describe('JSON round trip', () => {
    const at = new Date(Date.UTC(2030, 0, 1, 12, 30));

    it('rejects a Date where the schema wants z.date(): the worker would receive a string', async () => {
      const reminder = defineTask('reminder', { schema: z.object({ when: z.date() }), handler });

      const error = await validationError(prepareTask(reminder, { when: at }, {}, LIMIT));

      expect(error.issues).toEqual([
        { path: 'payload.when', message: expect.stringMatching(/expected date, received string/) },
      ]);
    });

    it('accepts a Date where the schema wants z.string(), stored as its ISO string', async () => {
      const reminder = defineTask('reminder', { schema: z.object({ when: z.string() }), handler });

      const task = await prepareTask(reminder, { when: at }, {}, LIMIT);

      const stored = JSON.parse(task.payloadJson);
      expect(stored).toEqual({ when: '2030-01-01T12:30:00.000Z' });
      await expect(validatePayload(reminder, stored)).resolves.toEqual(stored);
    });
  });

  describe('payload size', () => {
    /** A z.any() payload whose JSON form is exactly `bytes` long (a quoted string). */
    const payloadOfBytes = (bytes: number) => 'x'.repeat(bytes - 2);

    it('accepts a payload of exactly the limit', async () => {
      const task = await prepareTask(anything, payloadOfBytes(LIMIT), {}, LIMIT);

      expect(Buffer.byteLength(task.payloadJson)).toBe(LIMIT);
    });

    it('rejects a payload one byte above the limit with PayloadTooLargeError', async () => {
      const err = await rejection(prepareTask(anything, payloadOfBytes(LIMIT + 1), {}, LIMIT));

      expect(err).toBeInstanceOf(PayloadTooLargeError);
      expect(err).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        sizeBytes: LIMIT + 1,
        limitBytes: LIMIT,
      });
      expect((err as Error).message).toContain("'anything'");
    });

    it('measures the payload in UTF-8 bytes', async () => {
      // 400 characters of 3 bytes each, plus quotes: 1,202 bytes.
      const err = await rejection(prepareTask(anything, '€'.repeat(400), {}, LIMIT));

      expect(err).toMatchObject({ sizeBytes: 1_202, limitBytes: LIMIT });
    });
  });

  describe('identity', () => {
    it('generates a ULID when no id is given', async () => {
      const task = await prepareTask(email, validEmail, {}, LIMIT);

      expect(task.id).toMatch(ULID);
    });

    it('generates strictly increasing ids, even within one millisecond', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 500; i++) ids.push((await prepareTask(email, validEmail, {}, LIMIT)).id);

      for (const id of ids) expect(id).toMatch(ULID);
      for (let i = 1; i < ids.length; i++) {
        expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
      }
    });

    it('uses the ordering key as the message group', async () => {
      const task = await prepareTask(
        email,
        validEmail,
        { id: 'i-1', orderingKey: 'cust-9' },
        LIMIT,
      );

      expect(task.messageGroupId).toBe('cust-9');
      expect(task.orderingKey).toBe('cust-9');
    });

    it('gives a task without an ordering key a group of its own, outside every key', async () => {
      const given = await prepareTask(email, validEmail, { id: 'i-1' }, LIMIT);
      const generated = await prepareTask(email, validEmail, {}, LIMIT);

      expect(given.messageGroupId).toBe('~i-1');
      expect(given.orderingKey).toBeUndefined();
      expect(generated.messageGroupId).toBe(`~${generated.id}`);
    });

    it("accepts '~' in an id and refuses it at the start of an ordering key", async () => {
      const id = await prepareTask(email, validEmail, { id: '~i-1' }, LIMIT);
      const key = prepareTask(email, validEmail, { orderingKey: '~k' }, LIMIT);

      expect(id.messageGroupId).toBe('~~i-1');
      await expect(key).rejects.toThrow(/does not start with '~'/);
    });

    it('copies type, maxAttempts and timeout from the definition', async () => {
      const task = await prepareTask(email, validEmail, { id: 'i-1' }, LIMIT);

      expect(task).toMatchObject({ type: 'email.send', maxAttempts: 5, timeoutMs: 12_000 });
    });
  });

  describe('canonical JSON and hashing', () => {
    it('serializes and hashes {a, b} and {b, a} identically', async () => {
      const ab = await prepareTask(
        anything,
        { a: 1, b: { c: 2, d: [3, { e: 4, f: 5 }] } },
        {},
        LIMIT,
      );
      const ba = await prepareTask(
        anything,
        { b: { d: [3, { f: 5, e: 4 }], c: 2 }, a: 1 },
        {},
        LIMIT,
      );

      expect(ab.payloadJson).toBe('{"a":1,"b":{"c":2,"d":[3,{"e":4,"f":5}]}}');
      expect(ba.payloadJson).toBe(ab.payloadJson);
      expect(ba.payloadHash).toBe(ab.payloadHash);
    });

    it('keeps array order significant', async () => {
      const one = await prepareTask(anything, [1, 2], {}, LIMIT);
      const two = await prepareTask(anything, [2, 1], {}, LIMIT);

      expect(one.payloadHash).not.toBe(two.payloadHash);
    });

    it('hashes the type together with the payload', async () => {
      const other = defineTask('other', { schema: z.any(), handler });

      const a = await prepareTask(anything, { x: 1 }, {}, LIMIT);
      const b = await prepareTask(other, { x: 1 }, {}, LIMIT);

      expect(a.payloadJson).toBe(b.payloadJson);
      expect(a.payloadHash).not.toBe(b.payloadHash);
      expect(a.payloadHash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('stores the payload as enqueued, before schema transforms', async () => {
      const transforming = defineTask('tr', {
        schema: z.object({ n: z.string().transform(Number) }),
        handler,
      });

      const task = await prepareTask(transforming, { n: '42' }, {}, LIMIT);

      expect(task.payloadJson).toBe('{"n":"42"}');
    });
  });
});

describe('canonicalJson', () => {
  it('throws an error that says "circular" for a cyclic object, not a stack overflow', () => {
    const node: Record<string, unknown> = { name: 'loop' };
    node.next = { back: node };

    const act = () => canonicalJson(node);

    expect(act).toThrow(TypeError);
    expect(act).toThrow(/circular/i);
  });

  it('serializes a value referenced twice without a cycle', () => {
    const shared = { b: 1, a: 2 };

    expect(canonicalJson({ y: shared, x: shared })).toBe('{"x":{"a":2,"b":1},"y":{"a":2,"b":1}}');
  });

  it('gives the same JSON for the same keys in any order, at every depth', () => {
    const one = canonicalJson({ z: [{ q: 1, p: 2 }], a: { c: null, b: 'x' } });
    const other = canonicalJson({ a: { b: 'x', c: null }, z: [{ p: 2, q: 1 }] });

    expect(one).toBe('{"a":{"b":"x","c":null},"z":[{"p":2,"q":1}]}');
    expect(other).toBe(one);
  });
});

describe('prepareTask with runAt and delay', () => {
  const NOW = 1_700_000_000_000;

  it.each([
    ['a future runAt', { runAt: new Date(NOW + 5_000) }, NOW + 5_000],
    ['a delay', { delay: 90_000 }, NOW + 90_000],
    ['a runAt in the past (enqueued now)', { runAt: new Date(NOW - 1) }, undefined],
    ['a runAt of exactly now', { runAt: new Date(NOW) }, undefined],
    ['a zero delay', { delay: 0 }, undefined],
  ])('turns %s into runAt %s', async (_, options, runAt) => {
    const prepared = await prepareTask(email, validEmail, options, LIMIT, NOW);

    expect(prepared.runAt).toBe(runAt);
  });

  it.each([
    [
      'a string',
      { runAt: '2030-01-01' },
      'options.runAt',
      'expected a valid Date, received string "2030-01-01"',
    ],
    ['a number', { runAt: NOW }, 'options.runAt', `expected a valid Date, received number ${NOW}`],
    ['an invalid Date', { runAt: new Date('nope') }, 'options.runAt', 'received an invalid Date'],
    ['a negative delay', { delay: -5 }, 'options.delay', 'received -5'],
    ['a string delay', { delay: '5' }, 'options.delay', 'received "5"'],
    ['an infinite delay', { delay: Number.POSITIVE_INFINITY }, 'options.delay', 'received null'],
    [
      'both',
      { delay: 5, runAt: new Date(NOW) },
      'options.delay',
      'expected runAt or delay, not both',
    ],
  ])('rejects %s, saying what was expected', async (_, options, path, message) => {
    const error = await validationError(
      prepareTask(email, validEmail, options as unknown as EnqueueOptions, LIMIT, NOW),
    );

    expect(error.issues).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it('reports a bad runAt together with payload problems', async () => {
    const error = await validationError(
      prepareTask(
        email,
        { to: 'nope', subject: '' },
        { runAt: 'x' as unknown as Date },
        LIMIT,
        NOW,
      ),
    );

    expect(error.issues.map((i) => i.path).sort()).toEqual([
      'options.runAt',
      'payload.subject',
      'payload.to',
    ]);
  });
});
