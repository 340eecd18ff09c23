import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../../src/core/constants.js';
import { SignalTokenError } from '../../../src/core/errors.js';
import { KmsMacClient } from '../../../src/integrity/kms-mac.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

/** A real HMAC_256 key in the emulator's KMS. */
let integrity: { keyId: string; endpoint: string | undefined };

beforeAll(async () => {
  const endpoint = process.env.AWS_ENDPOINT_URL;
  const kms = new KmsMacClient({ credentialsFrom: executor.clients.dynamodb, endpoint });
  integrity = { keyId: await kms.createHmacKey('signal tokens'), endpoint };
});

/** A task that hands out a token for its approval, then waits for it. */
const tokens = new Map<string, string>();
const approval = defineTask('durable.signal.token', {
  schema: z.object({}),
  handler: async (_payload, ctx) => {
    const token = await ctx.step('token', () => ctx.signalToken('approve'));
    tokens.set(ctx.taskId, token);
    return ctx.waitForSignal('approve', {
      timeoutMs: 60_000,
      schema: z.object({ by: z.string() }),
    });
  },
});

describe('ctx.signalToken and client.signalWithToken', () => {
  it('lets a holder of the token signal the task without knowing its id', async () => {
    runWorker(approval, { integrity });
    const client = executor.client({ integrity });

    const { id } = await client.enqueue(approval, {});
    await expect.poll(() => tokens.get(id), { timeout: 20_000 }).toBeDefined();
    const token = tokens.get(id) ?? '';
    const sent = await client.signalWithToken(token, { by: 'alice' });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(token).toMatch(/^st1\./);
    expect(token).not.toContain(id);
    expect(sent).toMatchObject({ taskId: id, name: 'approve', woke: expect.any(Boolean) });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: { by: 'alice' } });
  });

  it('refuses an altered token, naming why, and writes nothing', async () => {
    runWorker(approval, { integrity });
    const client = executor.client({ integrity });

    const { id } = await client.enqueue(approval, {});
    await expect.poll(() => tokens.get(id), { timeout: 20_000 }).toBeDefined();
    const [prefix, fields, mac, key] = (tokens.get(id) ?? '').split('.');
    const other = Buffer.from(JSON.stringify(['another-task', 1, 'approve'])).toString('base64url');
    const altered = [prefix, other, mac, key].join('.');

    await expect(client.signalWithToken(altered, { by: 'mallory' })).rejects.toThrow(
      SignalTokenError,
    );
    await expect(client.signalWithToken('not a token')).rejects.toThrow(
      /expected st1.<fields>.<mac>.<key>/,
    );
    expect(fields).toBeDefined();
    expect((await client.get(id))?.signals ?? 0).toBe(0);
  });
});
