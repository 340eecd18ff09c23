/**
 * startEmulator with engine 'ministack': started like moto (free loopback port, health check,
 * stop), reset through MiniStack's own API, and the engine-firing mode refused on moto.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateQueueCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { resetEmulator, startEmulator } from '../../src/local/emulator.js';
import { emulatorConfig } from '../../src/local/emulator-clients.js';
import { startLocalExecutor } from '../../src/local/local-executor.js';

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startEmulator with MiniStack', () => {
  it('starts MiniStack on a free loopback port, resets it, and stop() leaves no process behind', async () => {
    const emulator = await startEmulator({ engine: 'ministack' });
    const sqs = new SQSClient({
      ...emulatorConfig(emulator.endpoint),
      useQueueUrlAsEndpoint: false,
    });

    await sqs.send(new CreateQueueCommand({ QueueName: 'before-reset' }));
    const reset = await resetEmulator(emulator.endpoint);
    const after = await sqs.send(new ListQueuesCommand({}));
    const health = await fetch(new URL('/_ministack/health', emulator.endpoint));
    sqs.destroy();
    await emulator.stop();

    expect(emulator.engine).toBe('ministack');
    expect(emulator.endpoint).toMatch(/^http:\/\/localhost:\d+$/);
    expect(health.ok).toBe(true);
    expect(reset).toBe(true);
    expect(after.QueueUrls ?? []).toEqual([]);
    expect(isAlive(emulator.pid)).toBe(false);
  });
});

describe('startLocalExecutor scheduleFiring', () => {
  it("refuses 'engine' on moto, which never fires schedules", async () => {
    const shared = process.env.AWS_ENDPOINT_URL;
    delete process.env.AWS_ENDPOINT_URL;

    const error = await startLocalExecutor({
      tasks: [],
      engine: 'moto',
      scheduleFiring: 'engine',
      log: 'silent',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-ministack-')),
    }).catch((err: unknown) => err);
    if (shared !== undefined) process.env.AWS_ENDPOINT_URL = shared;

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain(
      "scheduleFiring 'engine' needs an engine that fires schedules",
    );
  });
});
