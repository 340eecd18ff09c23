/**
 * Generators of bad inputs for scenario (k), with fast-check: what a careless or hostile
 * producer passes to `enqueue`, and what a forged, corrupt or foreign message (or record)
 * puts in front of a worker.
 */
import fc from 'fast-check';
import { MESSAGE_SCHEMA_VERSION } from '../../../src/core/constants.js';
import { FAULT_TASK_TYPE } from './fault-tasks.js';

/** Input to `enqueue` of the strict fault task (or the lax `blob` task, for sizes). */
export interface EnqueueCase {
  readonly surface: 'enqueue';
  readonly kind: string;
  readonly task: 'strict' | 'blob';
  readonly payload: () => unknown;
  readonly options?: Record<string, unknown>;
}

/** A task type name given to defineTask. */
export interface DefineCase {
  readonly surface: 'define';
  readonly kind: string;
  readonly type: unknown;
}

/** A raw SQS message body (and attributes) handed to the worker. */
export interface MessageCase {
  readonly surface: 'message';
  readonly kind: string;
  readonly body: string;
  readonly groupId: string | undefined;
  readonly receiveCount: string;
}

/** A task record written behind the SDK's back, then its message delivered. */
export interface RecordCase {
  readonly surface: 'record';
  readonly kind: string;
  readonly recordType: string;
  readonly envelopeType: string;
  readonly payloadJson: string;
}

export type BadInput = EnqueueCase | DefineCase | MessageCase | RecordCase;

const OVERSIZE_MIN = 256 * 1024 + 1;

export function nested(depth: number, kind: 'array' | 'object', leaf: unknown = 0): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

function nestedJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}0${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
}

const POLLUTERS = [
  '{"__proto__":{"polluted":"yes"}',
  '{"constructor":{"prototype":{"polluted":"yes"}}',
  '{"__proto__":{"toString":"polluted"}',
  '{"prototype":{"polluted":"yes"}',
];
const valid = '"seq":1,"mode":"ok","runMs":1';

const cyclic = () => {
  const o: Record<string, unknown> = { seq: 1, mode: 'ok', runMs: 1 };
  o.self = o;
  return o;
};

const enqueueCases: fc.Arbitrary<EnqueueCase> = fc.oneof(
  fc.integer({ min: OVERSIZE_MIN, max: OVERSIZE_MIN + 64 * 1024 }).map((n) => ({
    surface: 'enqueue' as const,
    kind: 'oversize payload',
    task: 'blob' as const,
    payload: () => ({ blob: 'x'.repeat(n) }),
  })),
  fc.tuple(fc.constantFrom(...POLLUTERS), fc.boolean()).map(([p, withValid]) => ({
    surface: 'enqueue' as const,
    kind: '__proto__/constructor keys',
    task: 'strict' as const,
    payload: () => JSON.parse(withValid ? `${p},${valid}}` : `${p}}`),
  })),
  fc
    .tuple(
      fc.integer({ min: 9_000, max: 10_000 }),
      fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
      fc.boolean(),
    )
    .map(([depth, kind, inside]) => ({
      surface: 'enqueue' as const,
      kind: 'nesting depth 10,000',
      task: 'strict' as const,
      payload: () =>
        inside ? { seq: 1, mode: 'ok', runMs: 1, key: nested(depth, kind) } : nested(depth, kind),
    })),
  fc
    .constantFrom<[string, () => unknown]>(
      ['bigint', () => ({ seq: 1n, mode: 'ok', runMs: 1 })],
      ['cycle', cyclic],
      ['function', () => () => 1],
      ['symbol', () => Symbol('x')],
      ['undefined', () => undefined],
      ['NaN', () => ({ seq: Number.NaN, mode: 'ok', runMs: 1 })],
      ['Infinity', () => ({ seq: 1, mode: 'ok', runMs: Number.POSITIVE_INFINITY })],
    )
    .map(([what, payload]) => ({
      surface: 'enqueue' as const,
      kind: `non-JSON payload (${what})`.replace(/ \(.*\)/, ''),
      task: 'strict' as const,
      payload,
    })),
  fc
    .record({
      seq: fc.oneof(fc.string(), fc.double(), fc.constant(-1), fc.constant(null)),
      mode: fc.oneof(fc.string(), fc.integer(), fc.constant('ok')),
      runMs: fc.oneof(fc.constant(-5), fc.double({ min: 0.1, max: 0.9 }), fc.string()),
    })
    .map((p) => ({
      surface: 'enqueue' as const,
      kind: 'wrong attribute types',
      task: 'strict' as const,
      payload: () => p,
    })),
  fc
    .record({
      id: fc.oneof(
        fc.constant(''),
        fc.constant('has space'),
        fc.constant('é-non-ascii'),
        fc.constant('x'.repeat(129)),
        fc.integer(),
        fc.constant({}),
      ),
    })
    .map((options) => ({
      surface: 'enqueue' as const,
      kind: 'wrong attribute types',
      task: 'strict' as const,
      payload: () => ({ seq: 1, mode: 'ok', runMs: 1 }),
      options,
    })),
);

const defineCases: fc.Arbitrary<DefineCase> = fc
  .oneof(
    fc.constant(''),
    fc.constant('has space'),
    fc.constant('x'.repeat(129)),
    fc.string().filter((t) => !/^[A-Za-z0-9._:-]{1,128}$/.test(t)),
    fc.integer(),
    fc.constant(null),
  )
  .map((type) => ({ surface: 'define' as const, kind: 'unknown types', type }));

const envelope = (fields: Record<string, unknown>) =>
  JSON.stringify({ tasklane: MESSAGE_SCHEMA_VERSION, ...fields });

const messageCases: fc.Arbitrary<MessageCase> = fc
  .tuple(
    fc.oneof(
      fc.string({ maxLength: 200 }).map((body) => ['non-JSON bodies', body] as const),
      fc
        .constantFrom('{', '{"tasklane":1,"id":"x"', 'null', '[]', '""', '1e999', 'true')
        .map((b) => ['non-JSON bodies', b] as const),
      fc
        .constantFrom(...POLLUTERS)
        .map(
          (p) => ['__proto__/constructor keys', `${p},"tasklane":1,"id":"x","type":"y"}`] as const,
        ),
      fc
        .record({
          tasklane: fc.oneof(
            fc.constant('1'),
            fc.constant(2),
            fc.constant(null),
            fc.constant(true),
          ),
          id: fc.oneof(
            fc.integer(),
            fc.constant(''),
            fc.constant('x'.repeat(200)),
            fc.constant([]),
          ),
          type: fc.oneof(fc.constant({}), fc.constant(''), fc.integer()),
        })
        .map((e) => ['wrong attribute types', JSON.stringify(e)] as const),
      fc
        .integer({ min: 17 * 1024, max: 300 * 1024 })
        .map(
          (n) => ['oversize body', envelope({ id: 'x', type: 'y', pad: 'x'.repeat(n) })] as const,
        ),
      fc
        .tuple(
          fc.integer({ min: 2_000, max: 10_000 }),
          fc.constantFrom<'array' | 'object'>('array', 'object'),
        )
        .map(([d, k]) => ['nesting depth 10,000', nestedJson(d, k)] as const),
      fc.uuid().map((id) => ['unknown types', envelope({ id, type: 'no.such.type' })] as const),
    ),
    fc.oneof(fc.constant(undefined), fc.string({ minLength: 1, maxLength: 20 })),
    fc.constantFrom('1', '0', 'abc', '', '-3'),
  )
  .map(([[kind, body], groupId, receiveCount]) => ({
    surface: 'message' as const,
    kind,
    body,
    groupId,
    receiveCount,
  }));

const recordCases: fc.Arbitrary<RecordCase> = fc.oneof(
  fc.stringMatching(/^[a-z]{3,10}\.[a-z]{3,10}$/).map((type) => ({
    surface: 'record' as const,
    kind: 'unknown types',
    recordType: `unknown.${type}`,
    envelopeType: `unknown.${type}`,
    payloadJson: '{}',
  })),
  fc
    .constantFrom(
      ...POLLUTERS.map((p) => `${p},${valid}}`),
      `{${valid},"key":${nestedJson(5_000, 'array')}}`,
      '{"seq":"1","mode":"ok","runMs":1}',
      '[]',
      'null',
    )
    .map((payloadJson) => ({
      surface: 'record' as const,
      kind:
        payloadJson.includes('__proto__') || payloadJson.includes('constructor')
          ? '__proto__/constructor keys'
          : payloadJson.length > 5000
            ? 'nesting depth 10,000'
            : 'wrong attribute types',
      recordType: FAULT_TASK_TYPE,
      envelopeType: FAULT_TASK_TYPE,
      payloadJson,
    })),
  fc.constant({
    surface: 'record' as const,
    kind: 'unknown types',
    recordType: FAULT_TASK_TYPE,
    envelopeType: 'fault.other',
    payloadJson: `{${valid}}`,
  }),
);

/** All bad inputs; record cases (which cost emulator writes) are the rarest. */
export const badInputs: fc.Arbitrary<BadInput> = fc.oneof(
  { arbitrary: enqueueCases, weight: 10 },
  { arbitrary: defineCases, weight: 2 },
  { arbitrary: messageCases, weight: 8 },
  { arbitrary: recordCases, weight: 2 },
);

/** Own property names of the built-in prototypes, to detect pollution. */
export function prototypeSnapshot(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((p) => Object.getOwnPropertyNames(p).sort().join(','))
    .join('|');
}

/** True when a plain new object shows no polluted property. */
export function looksPolluted(): boolean {
  const probe = {} as Record<string, unknown>;
  return probe.polluted !== undefined || typeof probe.toString !== 'function';
}
