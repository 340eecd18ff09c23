/**
 * A debounced task whose claim was given back (a dependency outage at the start, ADR 0034)
 * has been taken: its attempt is back at 0, but a later enqueue of its debounce key makes a
 * new task instead of folding into it
 * (docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { deliverOnceAfterWindow } from '../helpers/debounce.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let keyId: string;
let kms: KmsMacClient;
/** The `rev` of every run, in start order. */
const runs: number[] = [];

const publish = defineTask('debounce-unclaimed.publish', {
  schema: z.object({ rev: z.number() }),
  retry: { maxAttempts: 1 },
  handler: ({ rev }) => {
    runs.push(rev);
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
  kms = new KmsMacClient({
    credentialsFrom: executor.clients.dynamodb,
    endpoint: process.env.AWS_ENDPOINT_URL,
  });
  keyId = await kms.createHmacKey('debounce unclaimed');
});

/** KMS whose first VerifyMac call fails as an outage does. */
function kmsDownOnce() {
  let down = true;
  return {
    generateMac: (key: string, message: Uint8Array) => kms.generateMac(key, message),
    verifyMac: async (key: string, message: Uint8Array, mac: Uint8Array) => {
      if (down) {
        down = false;
        throw Object.assign(new Error('KMS unavailable (injected)'), {
          name: 'KMSInternalException',
        });
      }
      return kms.verifyMac(key, message, mac);
    },
  };
}

describe('TaskClient.enqueue with debounce, after the task was claimed and given back', () => {
  it('opens a new task, and the given-back one runs its own payload first', async () => {
    const client = executor.client({ integrity: { keyId, mac: kms } });
    const worker = executor.worker([publish], { integrity: { keyId, mac: kmsDownOnce() } });
    const options = {
      orderingKey: 'site-9',
      debounce: { key: 'site-9', windowMs: 200, mode: 'last' },
    } as const;
    const first = await client.enqueue(publish, { rev: 1 }, options);
    await deliverOnceAfterWindow(executor, worker, options.debounce.windowMs);
    const given = await client.get(first.id);
    const next = await client.enqueue(publish, { rev: 2 }, options);

    expect(given).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0 });
    expect(given?.history.at(-1)?.event).toBe(AuditEvent.UNCLAIMED);
    expect(next.id).not.toBe(first.id);
    expect([next.created, next.absorbed]).toEqual([true, false]);

    await eventually(async () => {
      await executor.drain(worker);
      return (await client.get(next.id))?.status === TaskStatus.SUCCEEDED;
    });
    expect(runs).toEqual([1, 2]);
    const ran = await client.get(first.id);
    expect(ran).toMatchObject({ status: TaskStatus.SUCCEEDED, payload: { rev: 1 } });
    expect(ran?.debounce?.absorbed).toBe(0);
  });
});
