/**
 * Checkpoints and step results above 4 KB live in the payload bucket and are read back by a
 * later slice; an S3 outage while one is stored or read gives the claim back unspent, and
 * the run resumes from its stored steps (docs/durable-tasks.md, ADR 0047, ADR 0034).
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { provisionPayloadBucket } from '../../../src/local/payload-bucket.js';
import { StepStore } from '../../../src/store/steps.js';
import { defineTask, type TaskDefinition } from '../../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../../helpers/aws.js';
import { executor, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

let bucket: string;

beforeAll(async () => {
  bucket = await provisionPayloadBucket(testS3(), uniqueName('durable'), 45);
});

/** A JSON value of about 6 KB: above the 4 KB kept inline. */
const sixKb = (tag: string) => ({ tag, data: 'd'.repeat(6 * 1024) });

/** An S3 client that fails a command as an outage does, from `start` until `end`. */
function switchableS3(): { s3: S3Client; start(command: string): void; end(): void } {
  const s3 = testS3();
  const failing = new Set<string>();
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (failing.has(context.commandName ?? '')) {
        throw Object.assign(new Error('Service Unavailable (injected)'), {
          name: 'ServiceUnavailable',
          $metadata: { httpStatusCode: 503 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'injected-outage' },
  );
  return { s3, start: (command) => failing.add(command), end: () => failing.clear() };
}

/** The message once more, as SQS delivers it again (after a continuation or an outage hold). */
function again(message: SQSRecord, receive: number): SQSRecord {
  const attributes = { ...message.attributes, ApproximateReceiveCount: String(receive) };
  return { ...message, attributes };
}

/** The message of task `id` (another test's message, visible again, is passed over). */
async function messageOf(id: string): Promise<SQSRecord> {
  for (let tries = 0; tries < 10; tries++) {
    const found = (await executor.receive()).find((m) => m.body.includes(id));
    if (found !== undefined) return found;
  }
  throw new Error(`no message for ${id}`);
}

/**
 * Runs `task` through an S3 outage of `command`: enqueues it, delivers its message `before`
 * times with S3 up, once while `command` fails (`failed`, and the record it left, `returned`),
 * and once after S3 is back (`final`), each time as SQS delivers it again.
 */
async function throughOutage(
  task: TaskDefinition,
  command: 'PutObjectCommand' | 'GetObjectCommand',
  before: number,
) {
  const outage = switchableS3();
  const worker = executor.worker([task], { payloadBucket: bucket, s3: outage.s3 });
  const { id } = await executor.client().enqueue(task, {});
  const message = await messageOf(id);
  const delivery = (receive: number) => (receive === 1 ? message : again(message, receive));
  for (let receive = 1; receive <= before; receive++) {
    await executor.deliver(worker, [delivery(receive)]);
  }

  outage.start(command);
  const failed = await executor.deliver(worker, [delivery(before + 1)]);
  const returned = await executor.store.get(id);
  outage.end();
  await executor.deliver(worker, [delivery(before + 2)]);
  const final = await executor.store.get(id);
  return { id, message, failed, returned, final };
}

async function readObject(key: string): Promise<string> {
  const out = await testS3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await out.Body?.transformToString()) ?? '';
}

describe('durable values above 4 KB', () => {
  it('stores a large checkpoint in the bucket, and the next slice reads it back', async () => {
    const seen: unknown[] = [];
    const task = defineTask('durable.bucket.checkpoint', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        seen.push(ctx.checkpoint);
        if (ctx.checkpoint !== undefined) return (ctx.checkpoint as { tag: string }).tag;
        await ctx.saveCheckpoint(sixKb('cp'));
        return ctx.continue();
      },
    });
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const worker = executor.worker([task], { payloadBucket: bucket, s3: testS3() });
    const { id } = await client.enqueue(task, {});
    const message = await messageOf(id);

    await executor.deliver(worker, [message]);
    const continued = await executor.store.get(id);
    await executor.deliver(worker, [again(message, 2)]);
    const final = await executor.store.get(id);

    expect(continued?.checkpoint).toBeUndefined();
    expect(continued?.checkpointRef?.bucket).toBe(bucket);
    expect(JSON.parse(await readObject(continued?.checkpointRef?.key ?? ''))).toEqual(sixKb('cp'));
    expect(seen).toEqual([undefined, sixKb('cp')]);
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: 'cp' });
  });

  it('stores a large step result in the bucket, and a later slice replays it unrun', async () => {
    const results: unknown[] = [];
    let calls = 0;
    const task = defineTask('durable.bucket.step', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        const value = await ctx.step('export', () => {
          calls += 1;
          return sixKb('step');
        });
        results.push(value);
        if (ctx.checkpoint !== undefined) return value.tag;
        await ctx.saveCheckpoint(1);
        return ctx.continue();
      },
    });
    const worker = executor.worker([task], { payloadBucket: bucket, s3: testS3() });
    const { id } = await executor.client().enqueue(task, {});
    const message = await messageOf(id);

    await executor.deliver(worker, [message]);
    await executor.deliver(worker, [again(message, 2)]);
    const final = await executor.store.get(id);
    const step = (await executor.store.feature(StepStore).window(id, 0, 0, 1)).get(0);

    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: 'step' });
    expect(calls).toBe(1);
    expect(results).toEqual([sixKb('step'), sixKb('step')]);
    expect(step?.resultJson).toBeUndefined();
    expect(step?.resultRef?.bucket).toBe(bucket);
    expect(step?.sizeBytes).toBe(Buffer.byteLength(JSON.stringify(sixKb('step'))));
    expect(JSON.parse(await readObject(step?.resultRef?.key ?? ''))).toEqual(sixKb('step'));
  });
});

describe('an S3 outage while a large durable value is stored', () => {
  /**
   * Step `a`, a checkpoint, step `b`, done; the effects are noted with the handler run they ran
   * in. The handler swallows what the checkpoint throws: the outage is the worker's to
   * handle, whatever the handler does.
   */
  function resumable(type: string, effects: string[], large: { checkpoint: boolean; b: boolean }) {
    let run = 0;
    return defineTask(type, {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: async (_payload, ctx) => {
        run += 1;
        await ctx.step('a', () => effects.push(`a@${run}`));
        await ctx.saveCheckpoint(large.checkpoint ? sixKb('cp') : 'cp').catch(() => undefined);
        const b = await ctx.step('b', () => {
          effects.push(`b@${run}`);
          return large.b ? sixKb('b') : { tag: 'b' };
        });
        return b.tag;
      },
    });
  }

  it('gives the claim back unspent when a checkpoint cannot be stored, and starts no step after it', async () => {
    const effects: string[] = [];
    const task = resumable('durable.outage.checkpoint-put', effects, {
      checkpoint: true,
      b: false,
    });

    const { message, failed, returned, final } = await throughOutage(task, 'PutObjectCommand', 0);

    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(returned).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0 });
    expect(returned?.checkpointRef).toBeUndefined();
    expect(returned?.history.at(-1)).toMatchObject({
      event: AuditEvent.UNCLAIMED,
      detail: expect.stringMatching(/^S3 unavailable \(ServiceUnavailable: .*attempt 1 not spent$/),
    });
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: 'b' });
    expect(final?.checkpointRef?.bucket).toBe(bucket);
    // a was stored before the outage and is replayed; b did not start in the given-back slice.
    expect(effects).toEqual(['a@1', 'b@2']);
  });

  it('gives the claim back unspent when a step result cannot be stored; the step runs once more', async () => {
    const effects: string[] = [];
    const task = resumable('durable.outage.step-put', effects, { checkpoint: false, b: true });

    const { id, message, failed, returned, final } = await throughOutage(
      task,
      'PutObjectCommand',
      0,
    );
    const steps = await executor.store.feature(StepStore).window(id, 0, 0);

    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(returned).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0 });
    expect(returned?.history.at(-1)?.event).toBe(AuditEvent.UNCLAIMED);
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: 'b' });
    // b's effect happened but its result was never stored: the next slice runs it again.
    expect(effects).toEqual(['a@1', 'b@1', 'b@2']);
    expect([...steps.values()].map((s) => [s.name, s.resultRef === undefined])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });
});

describe('an S3 outage while a large durable value is read by a later slice', () => {
  /** Step `a` (large with `largeA`), then a checkpoint and a continuation; then step `b`. */
  function continuing(type: string, effects: string[], large: { checkpoint: boolean; a: boolean }) {
    let run = 0;
    return defineTask(type, {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: async (_payload, ctx) => {
        run += 1;
        const a = await ctx.step('a', () => {
          effects.push(`a@${run}`);
          return large.a ? sixKb('a') : { tag: 'a' };
        });
        if (ctx.checkpoint === undefined) {
          await ctx.saveCheckpoint(large.checkpoint ? sixKb('cp') : 'cp');
          return ctx.continue();
        }
        await ctx.step('b', () => effects.push(`b@${run}`));
        return `${a.tag}+${typeof ctx.checkpoint === 'string' ? ctx.checkpoint : 'large'}`;
      },
    });
  }

  it('gives the claim back unspent, not run, when the checkpoint cannot be read', async () => {
    const effects: string[] = [];
    const task = continuing('durable.outage.checkpoint-get', effects, {
      checkpoint: true,
      a: false,
    });

    const { message, failed, returned, final } = await throughOutage(task, 'GetObjectCommand', 1);

    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(returned).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0, continuations: 1 });
    expect(returned?.history.at(-1)).toMatchObject({
      event: AuditEvent.UNCLAIMED,
      detail: expect.stringMatching(/attempt 1 not spent, not run$/),
    });
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: 'a+large' });
    // The handler did not run in the slice given back: its second run is the third slice.
    expect(effects).toEqual(['a@1', 'b@2']);
  });

  it('gives the claim back unspent when a stored step result cannot be read, and replays it after', async () => {
    const effects: string[] = [];
    const task = continuing('durable.outage.step-get', effects, { checkpoint: false, a: true });

    const { message, failed, returned, final } = await throughOutage(task, 'GetObjectCommand', 1);

    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(returned).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0, continuations: 1 });
    expect(returned?.history.at(-1)).toMatchObject({
      event: AuditEvent.UNCLAIMED,
      detail: expect.stringMatching(/attempt 1 not spent$/),
    });
    expect(final).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, result: 'a+cp' });
    // Each effect once: a's stored result is read by the handler's third run, not run again.
    expect(effects).toEqual(['a@1', 'b@3']);
  });
});
