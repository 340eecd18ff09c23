import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { taskMessage, unkeyedGroup } from '../../src/core/message.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { legacyMacInput } from '../../src/integrity/mac-input.js';
import { INTEGRITY_FAILED } from '../../src/integrity/tag.js';
import { payloadHash } from '../../src/store/record.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { newIntegrityKey, type TestIntegrity, tamper } from '../helpers/integrity.js';
import { rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;
let integrity: TestIntegrity;
const runs: string[] = [];

const charge = defineTask('charge', {
  schema: z.object({ account: z.string() }),
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
  },
});

beforeAll(async () => {
  integrity = await newIntegrityKey(await setupExecutor(), 'coverage test');
});

beforeEach(async () => {
  executor = await setupExecutor();
  runs.length = 0;
});

describe('integrity tag: what it covers', () => {
  it.each([
    ['timeoutMs', { timeoutMs: 900_000 }, []],
    ['lane', { lane: 'bulk' }, []],
    ['onDead', { onDead: 'park' }, []],
    ['parents', { parents: ['some-parent'], onParentDead: 'run' }, []],
    // The message group stays the message's (the unkeyed group of its id), so the claim lets it through.
    [
      'ordering key',
      { orderingKey: 'account-9', messageGroupId: unkeyedGroup('tampered-ordering-key') },
      [],
    ],
    ['runAt (brought forward)', { runAt: Date.now() - 1_000 }, []],
  ] as const)(
    'never runs a task whose %s a table writer changed, and ends it DEAD with INTEGRITY_FAILED',
    async (what, set, remove) => {
      const client = executor.client({ integrity });
      const worker = executor.worker([charge], { integrity });
      const delayed = what.startsWith('runAt');
      const { id } = await client.enqueue(
        charge,
        { account: 'a-1' },
        { id: `tampered-${what.replaceAll(/\W/g, '-')}`, ...(delayed ? { delay: 4_000 } : {}) },
      );

      await tamper(executor, id, set, remove);
      await executor.drain(worker);

      const record = await client.get(id);
      expect(runs).toEqual([]);
      expect(record?.status).toBe(TaskStatus.DEAD);
      expect(record?.lastError?.name).toBe(INTEGRITY_FAILED);
    },
  );

  it('names the key that tagged the record', async () => {
    const { id } = await executor.client({ integrity }).enqueue(charge, { account: 'a-2' });

    const item = await rawItem(executor, id);

    expect(item.integrityTag).toMatch(/^v2:[A-Za-z0-9+/]{43}=:.+$/);
    expect(String(item.integrityTag).endsWith(`:${integrity.keyId}`)).toBe(true);
  });
});

describe('integrity tag: key rotation and older tags', () => {
  it('keeps running a task tagged under the previous key once the key is rotated', async () => {
    const next = await newIntegrityKey(executor, 'coverage test, rotated');
    const { id } = await executor.client({ integrity }).enqueue(charge, { account: 'a-3' });

    const rotated = { ...next, previousKeyIds: [integrity.keyId] };
    await executor.drain(executor.worker([charge], { integrity: rotated }));

    expect((await executor.store.get(id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toEqual([id]);
  });

  it('ends DEAD a task tagged under a key the worker does not trust', async () => {
    const foreign = await newIntegrityKey(executor, 'coverage test, foreign');
    const { id } = await executor
      .client({ integrity: foreign })
      .enqueue(charge, { account: 'a-4' });

    await executor.drain(executor.worker([charge], { integrity }));

    expect((await executor.store.get(id))?.lastError?.name).toBe(INTEGRITY_FAILED);
    expect(runs).toEqual([]);
  });

  it('still runs a task whose version-1 tag was written before the upgrade', async () => {
    const payloadJson = '{"account":"a-5"}';
    const kms = new KmsMacClient({
      credentialsFrom: executor.clients.dynamodb,
      endpoint: integrity.endpoint,
    });
    const fields = {
      id: 'tagged-v1',
      type: charge.type,
      payloadHash: payloadHash(charge.type, payloadJson),
      maxAttempts: 3,
    };
    const mac = await kms.generateMac(integrity.keyId, legacyMacInput(fields));
    const { record } = await executor.store.feature(RecordWrites).create({
      ...fields,
      payloadJson,
      timeoutMs: 30_000,
      messageGroupId: fields.id,
      integrityTag: Buffer.from(mac).toString('base64'),
    });
    await executor.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: executor.queueUrl, ...taskMessage(record) }),
    );

    await executor.drain(executor.worker([charge], { integrity }));

    expect((await executor.store.get('tagged-v1'))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toEqual(['tagged-v1']);
  });
});
