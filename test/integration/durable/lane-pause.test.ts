/**
 * Pausing a whole lane (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane"):
 * the lane's poller (the local stand-in for its event source mapping) stops receiving, its
 * tasks wait unclaimed (PENDING or QUEUED) with their messages in the queue, another lane runs on, and after the resume every task runs
 * exactly once, a key's in order.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../../src/core/constants.js';
import { type LocalExecutor, startLocalExecutor } from '../../../src/local/local-executor.js';
import { UnknownLaneError } from '../../../src/settings/lanes.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { eventually, setupExecutor } from '../../helpers/executor.js';

const runs: number[] = [];
const schema = z.object({ n: z.number() });
const bulk = defineTask('lane-pause.bulk', {
  schema,
  lane: 'bulk',
  handler: async ({ n }) => {
    runs.push(n);
    if (n === 0) await new Promise((resolve) => setTimeout(resolve, 1_500));
    return n;
  },
});
const ping = defineTask('lane-pause.ping', { schema, handler: ({ n }) => n });

let running: LocalExecutor | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
  runs.length = 0;
});

const PERIOD_MS = 200;

describe('TaskClient.pauseLane and resumeLane, on a local executor', () => {
  it('holds a paused lane’s tasks waiting while the running one finishes, then runs each once in key order', async () => {
    running = await startLocalExecutor({
      tasks: [bulk, ping],
      name: 'lane-pause',
      log: 'silent',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-lane-pause-')),
      lanes: { bulk: { maxConcurrency: 2, batchSize: 1 } },
      laneControlPeriodMs: PERIOD_MS,
    });
    const { client } = running;
    // Task 0 runs for 1.5 s: the lane is paused while it holds it.
    const first = await client.enqueue(bulk, { n: 0 }, { orderingKey: 'k' });
    await eventually(
      async () => (await client.get(first.id))?.status === TaskStatus.RUNNING,
      15_000,
    );

    const paused = await client.pauseLane('bulk', { reason: 'maintenance' });
    // A pause takes effect within a period, plus a long poll already waiting (1 s here).
    await new Promise((resolve) => setTimeout(resolve, 1_000 + 3 * PERIOD_MS));
    const later = [];
    for (let n = 1; n <= 5; n++)
      later.push(await client.enqueue(bulk, { n }, { orderingKey: 'k' }));
    const unkeyed = await client.enqueue(bulk, { n: 6 });
    const other = await client.wait((await client.enqueue(ping, { n: 7 })).id, {
      timeoutMs: 15_000,
    });
    const firstDone = await client.wait(first.id, { timeoutMs: 15_000 });
    // Well past the period: a poller that ignored the pause would have run them by now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const held = await Promise.all([...later, unkeyed].map(({ id }) => client.get(id)));
    const ranWhilePaused = [...runs];
    const states = await client.laneStates();
    const again = await client.pauseLane('bulk');

    const resumed = await client.resumeLane('bulk');
    const done = await Promise.all(
      [...later, unkeyed].map(({ id }) => client.wait(id, { timeoutMs: 30_000 })),
    );
    const resumedAgain = await client.resumeLane('bulk');

    expect(paused).toMatchObject({
      lane: 'bulk',
      paused: true,
      changed: true,
      reason: 'maintenance',
    });
    expect(paused.principal).toEqual(expect.any(String));
    expect(other.status).toBe(TaskStatus.SUCCEEDED);
    expect(firstDone.status).toBe(TaskStatus.SUCCEEDED);
    // Waiting, never claimed: PENDING (sent, not yet received) is how an enqueued task waits.
    expect(held.map((r) => [r?.status, r?.attempt])).toEqual(
      held.map(() => [TaskStatus.PENDING, 0]),
    );
    expect(ranWhilePaused).toEqual([0]);
    expect(states.map((s) => [s.lane, s.paused])).toEqual([
      ['default', false],
      ['bulk', true],
    ]);
    expect(again).toMatchObject({ paused: true, changed: false });
    expect(resumed).toMatchObject({ lane: 'bulk', paused: false, changed: true });
    expect(done.map((r) => r.status)).toEqual(done.map(() => TaskStatus.SUCCEEDED));
    expect(done.map((r) => r.attempt)).toEqual(done.map(() => 1));
    // Each ran once; the key's tasks in enqueue order (the unkeyed one anywhere).
    expect([...runs].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(runs.filter((n) => n <= 5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(resumedAgain).toMatchObject({ paused: false, changed: false });
  }, 90_000);

  it('refuses an unknown lane with UnknownLaneError, writing nothing', async () => {
    running = await startLocalExecutor({
      tasks: [ping],
      name: 'lane-pause-unknown',
      log: 'silent',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-lane-pause-')),
      laneControlPeriodMs: PERIOD_MS,
    });
    const { client } = running;

    const error = await client.pauseLane('nope').catch((err: unknown) => err);
    const resumeError = await client.resumeLane('nope').catch((err: unknown) => err);

    expect(error).toBeInstanceOf(UnknownLaneError);
    expect((error as UnknownLaneError).known).toEqual(['default']);
    expect(resumeError).toBeInstanceOf(UnknownLaneError);
    expect(await client.laneStates()).toEqual([
      expect.objectContaining({ lane: 'default', paused: false }),
    ]);
  }, 60_000);

  it('stops and restarts a long-lived worker.poll() of the lane (the default lane here)', async () => {
    const executor = await setupExecutor();
    const client = executor.client();
    const stop = new AbortController();
    const worker = executor.worker([ping]);
    const polling = worker.poll({
      signal: stop.signal,
      waitTimeSeconds: 1,
      laneControlPeriodMs: PERIOD_MS,
    });
    try {
      const before = await client.wait((await client.enqueue(ping, { n: 1 })).id, {
        timeoutMs: 15_000,
      });
      await client.pauseLane('default', { mappings: false });
      // A pause takes effect within a period, plus the long poll already waiting (1 s here).
      await new Promise((resolve) => setTimeout(resolve, 1_000 + 3 * PERIOD_MS));
      const { id } = await client.enqueue(ping, { n: 2 });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const held = await client.get(id);
      await client.resumeLane('default');
      const after = await client.wait(id, { timeoutMs: 15_000 });

      expect(before.status).toBe(TaskStatus.SUCCEEDED);
      expect(held?.status).toBe(TaskStatus.PENDING);
      expect(after).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    } finally {
      stop.abort();
      await polling;
    }
  }, 60_000);
});
