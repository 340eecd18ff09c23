import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Defaults } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import {
  defineTask,
  type TaskDefinitionOptions,
  validatePayload,
} from '../../../src/tasks/task-definition.js';

const MAX_MS = 43_200_000;
const schema = z.object({ to: z.string() });
const handler = () => 'ok';

/** Runs `fn`, expects a ValidationError, and returns it. */
function catchValidation(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

async function rejectsValidation(promise: Promise<unknown>): Promise<ValidationError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

/** A hand-written Standard Schema, to exercise object path segments and async validation. */
function customSchema(
  issues: readonly StandardSchemaV1.Issue[] | undefined,
  value: unknown = 'out',
): StandardSchemaV1<unknown, unknown> {
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: async () => (issues === undefined ? { value } : { issues }),
    },
  };
}

describe('defineTask', () => {
  it('applies the documented defaults', () => {
    const definition = defineTask('email.send', { schema, handler });

    expect(definition.type).toBe('email.send');
    expect(definition.schema).toBe(schema);
    expect(definition.handler).toBe(handler);
    expect(definition.retry).toEqual({
      maxAttempts: Defaults.MAX_ATTEMPTS,
      baseDelayMs: Defaults.RETRY_BASE_DELAY_MS,
      maxDelayMs: Defaults.RETRY_MAX_DELAY_MS,
    });
    expect(definition.timeoutMs).toBe(Defaults.TASK_TIMEOUT_MS);
    expect(definition.onDead).toBe('release');
  });

  it("keeps onDead: 'park' and rejects any other value, naming what it expected", () => {
    const parking = defineTask('t', { schema, handler, onDead: 'park' });
    const wrong = { schema, handler, onDead: 'hold' } as unknown as Parameters<
      typeof defineTask
    >[1];

    const error = catchValidation(() => defineTask('t', wrong));

    expect(parking.onDead).toBe('park');
    expect(error.issues).toEqual([
      { path: 'onDead', message: `expected 'release' or 'park', received "hold"` },
    ]);
  });

  it('keeps given options and fills in only the missing retry fields', () => {
    const definition = defineTask('t', { schema, handler, retry: { maxAttempts: 7 }, timeout: 5 });

    expect(definition.retry).toEqual({
      maxAttempts: 7,
      baseDelayMs: Defaults.RETRY_BASE_DELAY_MS,
      maxDelayMs: Defaults.RETRY_MAX_DELAY_MS,
    });
    expect(definition.timeoutMs).toBe(5);
  });

  it('accepts every bound of every numeric option', () => {
    const low = { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };
    // Each upper bound with the others small enough for a retry horizon within 7 days.
    const mostAttempts = { maxAttempts: Defaults.MAX_ATTEMPTS_LIMIT, maxDelayMs: 60_000 };
    const longestDelays = { maxAttempts: 13, baseDelayMs: MAX_MS, maxDelayMs: MAX_MS };
    const longestTimeout = { maxAttempts: 13, maxDelayMs: 0 };

    expect(() => defineTask('t', { schema, handler, retry: low, timeout: 1 })).not.toThrow();
    expect(() => defineTask('t', { schema, handler, retry: mostAttempts })).not.toThrow();
    expect(() => defineTask('t', { schema, handler, retry: longestDelays })).not.toThrow();
    expect(() =>
      defineTask('t', { schema, handler, retry: longestTimeout, timeout: MAX_MS }),
    ).not.toThrow();
  });

  it.each(['a', 'a'.repeat(128), 'Email.send_v2:urgent-1'])('accepts the type %j', (type) => {
    expect(defineTask(type, { schema, handler }).type).toBe(type);
  });

  it.each([
    ['an empty type', ''],
    ['a type of 129 characters', 'a'.repeat(129)],
    ['a type with a space', 'email send'],
    ['a type with a slash', 'email/send'],
    ['a non-ASCII type', 'émail'],
  ])('rejects %s', (_label, type) => {
    const error = catchValidation(() => defineTask(type, { schema, handler }));

    expect(error.issues.map((i) => i.path)).toEqual(['type']);
    expect(error.issues[0]?.message).toContain(JSON.stringify(type));
  });

  it.each([
    ['retry.maxAttempts', { retry: { maxAttempts: 0 } }],
    ['retry.maxAttempts', { retry: { maxAttempts: Defaults.MAX_ATTEMPTS_LIMIT + 1 } }],
    ['retry.maxAttempts', { retry: { maxAttempts: 2.5 } }],
    ['retry.baseDelayMs', { retry: { baseDelayMs: -1 } }],
    ['retry.baseDelayMs', { retry: { baseDelayMs: MAX_MS + 1 } }],
    ['retry.maxDelayMs', { retry: { maxDelayMs: Number.POSITIVE_INFINITY } }],
    ['retry.maxDelayMs', { retry: { maxDelayMs: Number.NaN } }],
    ['timeout', { timeout: 0 }],
    ['timeout', { timeout: MAX_MS + 1 }],
  ])('rejects an out-of-range %s (%j)', (path, options) => {
    const error = catchValidation(() => defineTask('t', { schema, handler, ...options }));

    expect(error.issues.map((i) => i.path)).toEqual([path]);
    expect(error.issues[0]?.message).toMatch(/expected an integer from \d+ to \d+, received/);
  });

  it('reports every invalid option at once in one ValidationError', () => {
    // Every option wrong at the same time.
    const options = {
      schema: { not: 'a schema' },
      handler: 'not a function',
      retry: { maxAttempts: 0, baseDelayMs: -5, maxDelayMs: 1.5 },
      timeout: -1,
    } as unknown as TaskDefinitionOptions<StandardSchemaV1, unknown>;

    const error = catchValidation(() => defineTask('bad type', options));

    expect(error.issues.map((i) => i.path)).toEqual([
      'type',
      'schema',
      'handler',
      'retry.maxAttempts',
      'retry.baseDelayMs',
      'retry.maxDelayMs',
      'timeout',
    ]);
    for (const issue of error.issues) expect(error.message).toContain(issue.path);
    expect(error.message).toContain("definition of task type 'bad type'");
    expect(error.message).toContain('received -5');
    expect(error.message).toContain('received string');
  });

  it('rejects a missing schema and handler', () => {
    const options = {} as TaskDefinitionOptions<StandardSchemaV1, unknown>;

    const error = catchValidation(() => defineTask('t', options));

    expect(error.issues.map((i) => i.path)).toEqual(['schema', 'handler']);
  });
});

describe('validatePayload', () => {
  const definition = defineTask('user.create', {
    schema: z.object({
      name: z.string(),
      address: z.object({ zip: z.string().length(5), lines: z.array(z.string()) }),
      age: z.number().int(),
    }),
    handler,
  });

  it('returns the schema’s output for a valid payload', async () => {
    const transforming = defineTask('t', {
      schema: z.object({ n: z.string().transform(Number) }),
      handler,
    });

    await expect(validatePayload(transforming, { n: '42' })).resolves.toEqual({ n: 42 });
  });

  it('maps every zod issue to one issue with a dotted path', async () => {
    const payload = { name: 1, address: { zip: '123', lines: ['ok', 2] }, age: 1.5 };

    const error = await rejectsValidation(validatePayload(definition, payload));

    expect(error.issues.map((i) => i.path)).toEqual([
      'name',
      'address.zip',
      'address.lines.1',
      'age',
    ]);
    for (const issue of error.issues) expect(issue.message).not.toBe('');
    expect(error.message).toContain("payload for task type 'user.create'");
    expect(error.message).toContain('address.lines.1:');
  });

  it('reports a root-level issue with an empty path', async () => {
    const error = await rejectsValidation(validatePayload(definition, 'not an object'));

    expect(error.issues).toEqual([{ path: '', message: expect.any(String) }]);
    expect(error.message).toContain('(root):');
  });

  it('maps object path segments ({ key }) and issues without a path', async () => {
    const custom = defineTask('t', {
      schema: customSchema([
        { message: 'bad deep', path: [{ key: 'a' }, { key: 0 }, 'b'] },
        { message: 'bad root' },
      ]),
      handler,
    });

    const error = await rejectsValidation(validatePayload(custom, {}));

    expect(error.issues).toEqual([
      { path: 'a.0.b', message: 'bad deep' },
      { path: '', message: 'bad root' },
    ]);
  });

  it('awaits asynchronous schemas', async () => {
    const custom = defineTask('t', { schema: customSchema(undefined, { parsed: true }), handler });

    await expect(validatePayload(custom, 'anything')).resolves.toEqual({ parsed: true });
  });
});
