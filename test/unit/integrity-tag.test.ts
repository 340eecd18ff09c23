import { createHmac, timingSafeEqual } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { MacService } from '../../src/integrity/kms-mac.js';
import {
  INTEGRITY_KEY_ENV,
  IntegrityTag,
  macInput,
  resolveIntegrity,
  type TaggedFields,
} from '../../src/integrity/tag.js';
import { locationFromStackOutputs } from '../../src/stack-outputs.js';
import { canonicalJson, payloadHash } from '../../src/store/record.js';
import { taskRecord } from '../helpers/task-record.js';

const fields: TaggedFields = {
  id: 'task-1',
  type: 'email.send',
  payloadHash: payloadHash('email.send', canonicalJson({ to: 'a@example.com' })),
  maxAttempts: 3,
};

/** An in-process HMAC standing in for KMS: the unit under test is the encoding, not KMS. */
const localMac: MacService = {
  generateMac: async (keyId, message) => createHmac('sha256', keyId).update(message).digest(),
  verifyMac: async (keyId, message, mac) => {
    const expected = createHmac('sha256', keyId).update(message).digest();
    return expected.length === mac.length && timingSafeEqual(expected, mac);
  },
};

describe('macInput', () => {
  it('encodes the fields as the canonical JSON of a versioned array', () => {
    const text = Buffer.from(macInput(fields)).toString('utf8');

    expect(text).toBe(`["tasklane-integrity-v1","task-1","email.send","${fields.payloadHash}",3]`);
  });

  it('encodes field tuples that concatenate alike differently', () => {
    const a = macInput({ ...fields, id: 'ab', type: 'c' });
    const b = macInput({ ...fields, id: 'a', type: 'bc' });

    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('changes with each field', () => {
    const base = Buffer.from(macInput(fields));
    const variants = [
      { ...fields, id: 'task-2' },
      { ...fields, type: 'email.other' },
      { ...fields, payloadHash: payloadHash('email.send', '{"to":"b@example.com"}') },
      { ...fields, maxAttempts: 4 },
    ];

    for (const variant of variants) expect(base.equals(Buffer.from(macInput(variant)))).toBe(false);
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

  it('refuses a tag that is not 32 bytes without calling KMS', async () => {
    const refusing = new IntegrityTag('key', {
      generateMac: () => Promise.reject(new Error('not called')),
      verifyMac: () => Promise.reject(new Error('not called')),
    });

    const verdict = await refusing.verify(record({ integrityTag: 'AAAA' }));

    expect(verdict).toEqual({ ok: false, problem: 'mismatch' });
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
