import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError, ValidationError } from '../../src/core/errors.js';
import { taskMessage, unkeyedGroup } from '../../src/core/message.js';
import { payloadHash } from '../../src/store/record.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const schema = z.object({ n: z.number() });
const posting = defineTask('account.posting', {
  schema,
  retry: { maxAttempts: 1 },
  onDead: 'park',
  handler: () => {
    throw new PermanentError('posting rejected');
  },
});
const welcome = defineTask('mail.welcome', { schema, handler: () => undefined });

describe('message groups', () => {
  it('runs an unkeyed task whose id equals a parked ordering key, outside that key', async () => {
    const client = executor.client();
    await client.enqueue(posting, { n: 1 }, { orderingKey: 'acct-42' });
    const worker = executor.worker([posting, welcome]);
    await executor.drain(worker);

    await client.enqueue(welcome, { n: 2 }, { id: 'acct-42' });
    await executor.drain(worker);

    const welcomed = await client.get('acct-42');
    expect(welcomed?.status).toBe(TaskStatus.SUCCEEDED);
    expect(welcomed?.messageGroupId).toBe('~acct-42');
    expect((await client.parkedKeys()).map((p) => p.orderingKey)).toEqual(['acct-42']);
  });

  it('gives the longest id a group of at most 128 characters, outside every key', () => {
    const longest = 'i'.repeat(128);

    const group = unkeyedGroup(longest);

    expect(group.length).toBeLessThanOrEqual(128);
    expect(group.startsWith('~')).toBe(true);
    expect(unkeyedGroup('i'.repeat(127))).toBe(`~${'i'.repeat(127)}`);
  });

  it('refuses an ordering key in the namespace of unkeyed groups', async () => {
    const client = executor.client();

    const enqueue = client.enqueue(welcome, { n: 1 }, { orderingKey: '~acct-42' });

    await expect(enqueue).rejects.toBeInstanceOf(ValidationError);
  });

  it('still runs an unkeyed task that an older producer sent in its id group', async () => {
    // The record as an older producer wrote it: no stored group, read as the id's.
    const payloadJson = '{"n":3}';
    const { record } = await executor.store.feature(RecordWrites).create({
      id: 'legacy-1',
      type: welcome.type,
      payloadJson,
      payloadHash: payloadHash(welcome.type, payloadJson),
      maxAttempts: 3,
      timeoutMs: 30_000,
      messageGroupId: 'legacy-1',
    });
    await executor.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: executor.queueUrl, ...taskMessage(record) }),
    );

    await executor.drain(executor.worker([welcome]));

    expect(record.messageGroupId).toBe('legacy-1');
    expect((await executor.store.get('legacy-1'))?.status).toBe(TaskStatus.SUCCEEDED);
  });
});
