import { createHmac, timingSafeEqual } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { MacService } from '../../../src/integrity/kms-mac.js';
import { legacyMacInput, parseTag } from '../../../src/integrity/mac-input.js';
import {
  INTEGRITY_KEY_ENV,
  INTEGRITY_PREVIOUS_KEYS_ENV,
  IntegrityTag,
  macInput,
  resolveIntegrity,
  type TaggedFields,
} from '../../../src/integrity/tag.js';
import { locationFromStackOutputs } from '../../../src/settings/stack-outputs.js';
import { canonicalJson, payloadHash } from '../../../src/store/record.js';
import { taskRecord } from '../../helpers/task-record.js';

const fields: TaggedFields = {
  id: 'task-1',
  type: 'email.send',
  payloadHash: payloadHash('email.send', canonicalJson({ to: 'a@example.com' })),
  maxAttempts: 3,
  timeoutMs: 30_000,
  messageGroupId: 'task-1',
};

/** An in-process HMAC standing in for KMS: the unit under test is the encoding, not KMS. */
const localMac: MacService = {
  generateMac: async (keyId, message) => createHmac('sha256', keyId).update(message).digest(),
  verifyMac: async (keyId, message, mac) => {
    const expected = createHmac('sha256', keyId).update(message).digest();
    return expected.length === mac.length && timingSafeEqual(expected, mac);
  },
};

const ref = { bucket: 'payloads', key: 'payloads/task-1/h', size: 300, sha256: 'a'.repeat(64) };

describe('macInput', () => {
  it('encodes the fields as the canonical JSON of the version and an object of named fields', () => {
    const text = Buffer.from(macInput(fields)).toString('utf8');

    expect(JSON.parse(text)).toEqual([
      'tasklane-integrity-v2',
      {
        id: 'task-1',
        type: 'email.send',
        payloadHash: fields.payloadHash,
        payloadRef: null,
        maxAttempts: 3,
        timeoutMs: 30_000,
        orderingKey: null,
        messageGroupId: 'task-1',
        lane: null,
        onDead: null,
        runAt: null,
        parents: null,
        onParentDead: null,
      },
    ]);
  });

  it('encodes field tuples that concatenate alike differently', () => {
    const a = macInput({ ...fields, id: 'ab', type: 'c' });
    const b = macInput({ ...fields, id: 'a', type: 'bc' });

    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('changes with each field that decides what runs, or where and how', () => {
    const base = Buffer.from(macInput(fields));
    const variants: TaggedFields[] = [
      { ...fields, id: 'task-2' },
      { ...fields, type: 'email.other' },
      { ...fields, payloadHash: payloadHash('email.send', '{"to":"b@example.com"}') },
      { ...fields, payloadRef: ref },
      { ...fields, maxAttempts: 4 },
      { ...fields, timeoutMs: 900_000 },
      { ...fields, orderingKey: 'account-1' },
      { ...fields, messageGroupId: 'other-group' },
      { ...fields, lane: 'bulk' },
      { ...fields, onDead: 'park' },
      { ...fields, runAt: 1_700_000_000_000 },
      { ...fields, parents: ['parent-1'] },
      { ...fields, onParentDead: 'run' },
    ];

    for (const variant of variants) expect(base.equals(Buffer.from(macInput(variant)))).toBe(false);
  });

  it("changes with each part of a claim-checked payload's reference", () => {
    const base = Buffer.from(macInput({ ...fields, payloadRef: ref }));
    const variants = [
      { ...ref, bucket: 'other' },
      { ...ref, key: 'payloads/task-2/h' },
      { ...ref, size: 301 },
      { ...ref, sha256: 'b'.repeat(64) },
    ];

    for (const variant of variants) {
      expect(base.equals(Buffer.from(macInput({ ...fields, payloadRef: variant })))).toBe(false);
    }
  });

  it('reads the parents as a set', () => {
    const a = macInput({ ...fields, parents: ['p-1', 'p-2'] });
    const b = macInput({ ...fields, parents: ['p-2', 'p-1'] });

    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });
});

describe('IntegrityTag.tag', () => {
  it('names its version and the key id of the key ARN it was made with', async () => {
    const arn = 'arn:aws:kms:eu-west-1:111122223333:key/0f1e2d3c-aaaa-bbbb-cccc-123456789abc';
    const integrity = new IntegrityTag(arn, localMac);

    const tag = await integrity.tag(fields);

    expect(tag).toMatch(/^v2:[A-Za-z0-9+/]{43}=:0f1e2d3c-aaaa-bbbb-cccc-123456789abc$/);
    expect(parseTag(tag)).toMatchObject({
      version: 2,
      key: '0f1e2d3c-aaaa-bbbb-cccc-123456789abc',
    });
  });
});

describe('IntegrityTag.verify', () => {
  const integrity = new IntegrityTag('key', localMac);
  const record = (overrides: Parameters<typeof taskRecord>[0]) =>
    taskRecord({
      id: 'task-1',
      type: 'email.send',
      payload: { to: 'a@example.com' },
      ...overrides,
    });

  it('accepts the tag made over the same fields, whatever the key order of the payload', async () => {
    const tag = await integrity.tag(fields);

    const verdict = await integrity.verify(
      record({ integrityTag: tag, payload: { to: 'a@example.com' } }),
    );

    expect(verdict).toEqual({ ok: true });
  });

  it('recomputes the payload hash from the stored payload, ignoring the stored hash', async () => {
    const tag = await integrity.tag(fields);

    const verdict = await integrity.verify(
      record({
        integrityTag: tag,
        payload: { to: 'evil@example.com' },
        payloadHash: fields.payloadHash,
      }),
    );

    expect(verdict).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('refuses a record with both an inline payload and a payloadRef without calling KMS', async () => {
    const refusing = new IntegrityTag('key', {
      generateMac: () => Promise.reject(new Error('not called')),
      verifyMac: () => Promise.reject(new Error('not called')),
    });

    const verdict = await refusing.verify(
      record({ integrityTag: await integrity.tag(fields), payloadRef: ref }),
    );

    expect(verdict).toEqual({ ok: false, problem: 'ambiguous-payload' });
  });

  it('refuses a claim-checked record whose payloadRef names another object', async () => {
    const hash = payloadHash('email.send', '{"big":true}');
    const tag = await integrity.tag({ ...fields, payloadHash: hash, payloadRef: ref });

    const moved = await integrity.verify(
      record({
        integrityTag: tag,
        payload: undefined,
        payloadHash: hash,
        payloadRef: { ...ref, key: 'payloads/task-2/h' },
      }),
    );
    const intact = await integrity.verify(
      record({ integrityTag: tag, payload: undefined, payloadHash: hash, payloadRef: ref }),
    );

    expect(moved).toEqual({ ok: false, problem: 'mismatch' });
    expect(intact).toEqual({ ok: true });
  });

  it('verifies a tag made by a previous key with that key, and one of the current key with it', async () => {
    const previous = new IntegrityTag('key-old', localMac);
    const rotated = new IntegrityTag('key-new', localMac, ['key-old']);

    const old = await rotated.verify(record({ integrityTag: await previous.tag(fields) }));
    const current = await rotated.verify(record({ integrityTag: await rotated.tag(fields) }));

    expect(old).toEqual({ ok: true });
    expect(current).toEqual({ ok: true });
  });

  it('verifies only with a configured key, whatever key the tag names', async () => {
    const used: string[] = [];
    const watching = new IntegrityTag('key-new', {
      ...localMac,
      verifyMac: (keyId, message, mac) => {
        used.push(keyId);
        return localMac.verifyMac(keyId, message, mac);
      },
    });
    const foreign = await new IntegrityTag('key-foreign', localMac).tag(fields);

    const verdict = await watching.verify(record({ integrityTag: foreign }));

    expect(verdict).toEqual({ ok: false, problem: 'mismatch' });
    expect(used).toEqual(['key-new']);
  });

  it('still accepts a version-1 tag over id, type, payload hash and maxAttempts', async () => {
    const mac = await localMac.generateMac('key', legacyMacInput(fields));

    const verdict = await integrity.verify(
      record({ integrityTag: Buffer.from(mac).toString('base64'), timeoutMs: 1 }),
    );

    expect(verdict).toEqual({ ok: true });
  });

  it('refuses a tag that is not 32 bytes without calling KMS', async () => {
    const refusing = new IntegrityTag('key', {
      generateMac: () => Promise.reject(new Error('not called')),
      verifyMac: () => Promise.reject(new Error('not called')),
    });

    const v1 = await refusing.verify(record({ integrityTag: 'AAAA' }));
    const v2 = await refusing.verify(record({ integrityTag: 'v2:AAAA:key' }));

    expect(v1).toEqual({ ok: false, problem: 'mismatch' });
    expect(v2).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('reports a missing tag without calling KMS', async () => {
    const counting = new IntegrityTag('key', {
      generateMac: () => Promise.reject(new Error('not called')),
      verifyMac: () => Promise.reject(new Error('not called')),
    });

    const verdict = await counting.verify(record({ integrityTag: undefined }));

    expect(verdict).toEqual({ ok: false, problem: 'missing' });
  });
});

describe('resolveIntegrity', () => {
  const dynamodb = new DynamoDBClient({ region: 'us-east-1' });

  it('is off without a key id', () => {
    expect(resolveIntegrity(undefined, dynamodb, {})).toBeUndefined();
  });

  it('takes the previous keys from the environment, comma-separated', () => {
    const env = { [INTEGRITY_KEY_ENV]: 'k-2', [INTEGRITY_PREVIOUS_KEYS_ENV]: 'k-1, k-0,' };

    expect(resolveIntegrity(undefined, dynamodb, env)?.previousKeyIds).toEqual(['k-1', 'k-0']);
  });

  it('takes the key id from the environment', () => {
    expect(resolveIntegrity(undefined, dynamodb, { [INTEGRITY_KEY_ENV]: 'k-1' })?.keyId).toBe(
      'k-1',
    );
  });
});

describe('locationFromStackOutputs', () => {
  const outputs = {
    ExTableName: 't',
    ExWorkQueueUrl: 'q',
    ExWorkQueueArn: 'qa',
    ExDeadLetterQueueUrl: 'd',
    ExScheduleGroupName: 'g',
    ExSchedulerRoleArn: 'r',
    ExScheduleDeadLetterQueueArn: 'sd',
    ExWorkerFunctionName: 'w',
  };

  it('reads the integrity key id when the executor has one', () => {
    const location = locationFromStackOutputs({ ...outputs, ExIntegrityKeyId: 'key-1' });

    expect(location.integrity).toEqual({ keyId: 'key-1' });
  });

  it('leaves integrity off when there is no such output', () => {
    expect(locationFromStackOutputs(outputs).integrity).toBeUndefined();
  });
});
