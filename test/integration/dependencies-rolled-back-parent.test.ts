/**
 * Dependents of a delayed parent whose enqueue was rolled back (its schedule could not be
 * created, docs/adr/0015-rollback-moves-instead-of-deleting.md): the parent was never
 * enqueued for its caller, so its dependents are cancelled and its id can be enqueued again
 * as a new task (docs/adr/0031-dependency-fences.md).
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { beforeAll, describe, expect, it } from 'vitest';
import { TaskStatus } from '../../src/core/constants.js';
import { DependencyError, ScheduleFailedError } from '../../src/core/errors.js';
import { crashingBefore, dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const HOUR = 60 * 60_000;
let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** A Scheduler client whose CreateSchedule waits for `fail()`, then throws. */
function failingLater() {
  let fail = (): void => undefined;
  let reached = (): void => undefined;
  const failed = new Promise<void>((resolve) => (fail = resolve));
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const client = new SchedulerClient({ region: 'us-east-1' });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'CreateScheduleCommand') return next(args);
      reached();
      await failed;
      throw Object.assign(new Error('Rate exceeded (injected)'), { name: 'ThrottlingException' });
    },
    { step: 'initialize', name: 'failing-create-schedule' },
  );
  return { client, fail, arrived };
}

/**
 * Enqueues `parentId` delayed through `producer`, and `register()` while it is SCHEDULED;
 * then its schedule fails. Returns the error the parent's enqueue threw.
 */
async function rolledBackAfter(
  parentId: string,
  register: () => Promise<unknown>,
  options: { dynamodb?: ReturnType<typeof crashingBefore> } = {},
): Promise<unknown> {
  const { step } = dependencyTasks(newRuns());
  const scheduler = failingLater();
  const producer = executor.client({ scheduler: scheduler.client, ...options });
  const enqueue = producer
    .enqueue(step, { name: parentId }, { id: parentId, runAt: new Date(Date.now() + HOUR) })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  await scheduler.arrived;
  await register();
  scheduler.fail();
  return enqueue;
}

describe('a dependent of a rolled-back parent', () => {
  it('is cancelled when the rollback is reported, whatever its onParentDead', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();

    const error = await rolledBackAfter('rb-parent', async () => {
      await client.enqueue(step, { name: 'cancel' }, { id: 'rb-cancel', dependsOn: ['rb-parent'] });
      await client.enqueue(
        step,
        { name: 'run' },
        { id: 'rb-run', dependsOn: ['rb-parent'], onParentDead: 'run' },
      );
    });
    await executor.drain(executor.worker(all));

    expect(error).toBeInstanceOf(ScheduleFailedError);
    expect((await client.get('rb-parent'))?.status).toBe(TaskStatus.ROLLED_BACK);
    for (const id of ['rb-cancel', 'rb-run']) {
      const child = await client.get(id);
      expect(child?.status).toBe(TaskStatus.CANCELLED);
      expect(child?.history.at(-1)?.detail).toContain("parent 'rb-parent' was rolled back");
    }
    expect(runs.order).toEqual([]);
  });

  it('does not wait for a new task enqueued under the parent id, so no cycle can form', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    await rolledBackAfter('cy-x', () =>
      client.enqueue(step, { name: 'y' }, { id: 'cy-y', dependsOn: ['cy-x'] }),
    );

    const cycle = await client
      .enqueue(step, { name: 'x' }, { id: 'cy-x', dependsOn: ['cy-y'] })
      .catch((err: unknown) => err);
    const again = await client.enqueue(step, { name: 'x' }, { id: 'cy-x' });
    await executor.drain(executor.worker(all));

    expect(cycle).toBeInstanceOf(DependencyError);
    expect((cycle as DependencyError).problem).toBe('parent-dead');
    expect(again.created).toBe(true);
    expect((await client.get('cy-x'))?.status).toBe(TaskStatus.SUCCEEDED);
    expect((await client.get('cy-y'))?.status).toBe(TaskStatus.CANCELLED);
    expect(runs.order).toEqual(['x']);
  });

  it('is cancelled by the next enqueue of the id when the rollback crashed before cancelling it', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    await rolledBackAfter(
      'crash-parent',
      () =>
        client.enqueue(step, { name: 'child' }, { id: 'crash-child', dependsOn: ['crash-parent'] }),
      { dynamodb: crashingBefore(() => 'crash-child') },
    );
    expect((await client.get('crash-child'))?.status).toBe(TaskStatus.WAITING);

    const revived = await client.enqueue(step, { name: 'parent' }, { id: 'crash-parent' });
    await executor.drain(executor.worker(all));

    expect(revived.created).toBe(true);
    expect((await client.get('crash-child'))?.status).toBe(TaskStatus.CANCELLED);
    expect((await client.get('crash-parent'))?.status).toBe(TaskStatus.SUCCEEDED);
    expect((await client.get('crash-parent'))?.dependents).toBeUndefined();
    expect(runs.order).toEqual(['parent']);
  });
});
