import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, Defaults, TaskStatus } from '../../src/core/constants.js';
import { DependencyError } from '../../src/core/errors.js';
import { dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

// Each test sees only its own tasks: whatever one leaves in the queue is run out here.
afterEach(async () => {
  await executor.drain(executor.worker(dependencyTasks(newRuns()).all));
});

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

describe('TaskClient.enqueue with dependsOn', () => {
  it('creates a chain WAITING and runs it in order, each released by its parent', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    const a = await client.enqueue(step, { name: 'a' });
    const b = await client.enqueue(step, { name: 'b' }, { dependsOn: [a.id] });
    const c = await client.enqueue(step, { name: 'c' }, { dependsOn: [b.id] });

    const waiting = await client.list({ status: TaskStatus.WAITING, limit: 1000 });
    const counts = await client.counts({ statuses: [TaskStatus.WAITING] });
    await executor.drain(executor.worker(all));

    expect([b.record.status, c.record.status]).toEqual([TaskStatus.WAITING, TaskStatus.WAITING]);
    expect(waiting.items.map((r) => r.id)).toEqual(expect.arrayContaining([b.id, c.id]));
    expect(counts.byStatus[TaskStatus.WAITING]).toBeGreaterThanOrEqual(2);
    expect(runs.order).toEqual(['a', 'b', 'c']);
    const finalC = await client.get(c.id);
    expect(finalC?.status).toBe(TaskStatus.SUCCEEDED);
    expect(finalC?.history.map((h) => h.event)).toContain(AuditEvent.RELEASED);
    expect(runs.parents.get('c')).toEqual([
      { id: b.id, type: 'step', status: TaskStatus.SUCCEEDED, result: { name: 'b', done: true } },
    ]);
  });

  it('counts a parent that already SUCCEEDED: the task is created PENDING and runs', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    const worker = executor.worker(all);
    const a = await client.enqueue(step, { name: 'a' });
    await executor.drain(worker);

    const b = await client.enqueue(step, { name: 'b' }, { dependsOn: [a.id] });
    await executor.drain(worker);

    expect(b.record.status).toBe(TaskStatus.PENDING);
    expect((await client.get(b.id))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('is idempotent: the same id again returns the waiting task and adds nothing', async () => {
    const { step } = dependencyTasks(newRuns());
    const client = executor.client();
    const a = await client.enqueue(step, { name: 'a' });
    const id = unique('child');

    const first = await client.enqueue(step, { name: 'b' }, { id, dependsOn: [a.id] });
    const again = await client.enqueue(step, { name: 'b' }, { id, dependsOn: [a.id] });

    expect([first.created, again.created]).toEqual([true, false]);
    expect((await client.get(a.id))?.dependents).toEqual([id]);
  });

  it('rejects an unknown parent, a self-dependency, too many parents and a delay, writing nothing', async () => {
    const { step } = dependencyTasks(newRuns());
    const client = executor.client();
    const a = await client.enqueue(step, { name: 'a' });
    const id = unique('refused');
    const many = Array.from({ length: Defaults.MAX_PARENTS + 1 }, (_, n) => `p${n}`);
    const attempt = (options: Parameters<typeof client.enqueue>[2]) =>
      client.enqueue(step, { name: 'x' }, { id, ...options }).then(
        () => undefined,
        (err: unknown) => err,
      );

    const unknown = await attempt({ dependsOn: [a.id, 'no-such-task'] });
    const self = await attempt({ dependsOn: [id] });
    const tooMany = await attempt({ dependsOn: many });
    const delayed = await attempt({ dependsOn: [a.id], delay: 120_000 });

    expect(unknown).toBeInstanceOf(DependencyError);
    expect(unknown).toMatchObject({ problem: 'unknown-parent', parentIds: ['no-such-task'] });
    expect(self).toMatchObject({ problem: 'cycle', parentIds: [id] });
    expect(tooMany).toMatchObject({ problem: 'too-many-parents' });
    expect(delayed).toMatchObject({ problem: 'delayed' });
    expect(await client.get(id)).toBeUndefined();
    expect((await client.get(a.id))?.dependents).toBeUndefined();
  });
});

describe('dependsOn with an ordering key', () => {
  it("sends the task into its key's group on release: after the key's tasks sent before", async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    const key = unique('key');
    const parent = await client.enqueue(step, { name: 'parent' });
    const waiting = await client.enqueue(
      step,
      { name: 'waiting' },
      { orderingKey: key, dependsOn: [parent.id] },
    );
    await client.enqueue(step, { name: 'later' }, { orderingKey: key });

    await executor.drain(executor.worker(all));

    expect(waiting.record.status).toBe(TaskStatus.WAITING);
    expect(runs.order.indexOf('later')).toBeLessThan(runs.order.indexOf('waiting'));
    expect(runs.order.indexOf('parent')).toBeLessThan(runs.order.indexOf('waiting'));
    expect((await client.get(waiting.id))?.messageGroupId).toBe(key);
  });
});

describe('onParentDead', () => {
  it("'cancel' cancels the child when a parent dies, and its own dependents in turn", async () => {
    const runs = newRuns();
    const { step, fail, all } = dependencyTasks(runs);
    const client = executor.client();
    const a = await client.enqueue(fail, { name: 'a' });
    const b = await client.enqueue(step, { name: 'b' }, { dependsOn: [a.id] });
    const c = await client.enqueue(step, { name: 'c' }, { dependsOn: [b.id] });

    await executor.drain(executor.worker(all));

    expect(runs.order).toEqual(['a']);
    expect((await client.get(b.id))?.status).toBe(TaskStatus.CANCELLED);
    expect((await client.get(c.id))?.status).toBe(TaskStatus.CANCELLED);
    expect((await client.get(b.id))?.history.at(-1)?.detail).toContain(`parent '${a.id}' DEAD`);
  });

  it("'run' counts a DEAD parent as finished, and ctx.parents() shows it DEAD", async () => {
    const runs = newRuns();
    const { step, fail, all } = dependencyTasks(runs);
    const client = executor.client();
    const a = await client.enqueue(fail, { name: 'a' });
    const ok = await client.enqueue(step, { name: 'ok' });
    const b = await client.enqueue(
      step,
      { name: 'b' },
      { dependsOn: [a.id, ok.id], onParentDead: 'run' },
    );

    await executor.drain(executor.worker(all));

    expect((await client.get(b.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs.parents.get('b')?.map((p) => [p.id, p.status])).toEqual([
      [a.id, TaskStatus.DEAD],
      [ok.id, TaskStatus.SUCCEEDED],
    ]);
  });

  it("rejects a parent already DEAD under 'cancel', and counts it under 'run'", async () => {
    const { step, fail, all } = dependencyTasks(newRuns());
    const client = executor.client();
    const a = await client.enqueue(fail, { name: 'a' });
    await executor.drain(executor.worker(all));

    const refused = await client
      .enqueue(step, { name: 'b' }, { dependsOn: [a.id] })
      .catch((e) => e);
    const counted = await client.enqueue(
      step,
      { name: 'c' },
      { dependsOn: [a.id], onParentDead: 'run' },
    );

    expect(refused).toMatchObject({ problem: 'parent-dead', parentIds: [a.id] });
    expect(counted.record.status).toBe(TaskStatus.PENDING);
  });
});

describe('TaskClient.cancel of a WAITING task', () => {
  it('cancels it and its dependents; a run dependent is released instead', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    const root = await client.enqueue(step, { name: 'root' });
    const waiting = await client.enqueue(step, { name: 'w' }, { dependsOn: [root.id] });
    const cancels = await client.enqueue(step, { name: 'x' }, { dependsOn: [waiting.id] });
    const runs2 = await client.enqueue(
      step,
      { name: 'y' },
      { dependsOn: [waiting.id], onParentDead: 'run' },
    );

    const cancelled = await client.cancel(waiting.id, 'not needed');
    await executor.drain(executor.worker(all));

    expect(cancelled.status).toBe(TaskStatus.CANCELLED);
    expect((await client.get(cancels.id))?.status).toBe(TaskStatus.CANCELLED);
    expect((await client.get(runs2.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs.order).not.toContain('w');
  });
});
