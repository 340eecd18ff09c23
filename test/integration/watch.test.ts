/**
 * TaskClient.watch reads the table's stream: every transition of every task, once, in order
 * per task, however fast the tasks finish (docs/adr/0049-watch-reads-the-table-stream.md).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { TaskTransition } from '../../src/client/watch.js';
import { AuditEvent } from '../../src/core/constants.js';
import { TaskNotFoundError, ValidationError, WatchGapError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testStreams } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const quick = defineTask('quick', { schema: z.object({ n: z.number() }), handler: () => 'done' });

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Resolves once `done()` holds, checking every 20 ms; throws after `ms`. */
async function until(done: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts a watch of every task; resolves once it reads, with what it has seen so far. */
async function watchAll(options: { intervalMs?: number } = {}) {
  const controller = new AbortController();
  const seen: TaskTransition[] = [];
  let ready!: () => void;
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const done = (async () => {
    const watch = executor.client().watch({
      intervalMs: options.intervalMs ?? 100,
      signal: controller.signal,
      onReady: ready,
    });
    for await (const t of watch) seen.push(t);
  })();
  await started;
  return { seen, stop: () => controller.abort(), done };
}

/** The events seen per task, in the order they were yielded. */
function eventsByTask(seen: readonly TaskTransition[]): Map<string, string[]> {
  const byTask = new Map<string, string[]>();
  for (const t of seen) byTask.set(t.taskId, [...(byTask.get(t.taskId) ?? []), t.event]);
  return byTask;
}

describe('TaskClient.watch', () => {
  it('yields every transition of 200 tasks that each finish in milliseconds, once and in order per task', async () => {
    const watch = await watchAll();
    const client = executor.client();
    const worker = executor.worker([quick]);

    const results = await client.enqueueBatch(
      Array.from({ length: 200 }, (_, n) => ({ task: quick, payload: { n } })),
    );
    const started = Date.now();
    await executor.drain(worker);
    const drained = Date.now();
    await until(() => watch.seen.length >= 600);
    const caughtUp = Date.now();
    watch.stop();
    await watch.done;

    const ids = results.map((r) => (r.ok ? r.id : ''));
    const byTask = eventsByTask(watch.seen);
    expect(watch.seen).toHaveLength(600);
    expect([...byTask.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      expect(byTask.get(id)).toEqual([
        AuditEvent.SUBMITTED,
        AuditEvent.CLAIMED,
        AuditEvent.SUCCEEDED,
      ]);
    }
    // The figures of the run (each task's claim to its finish, the watch's lag) are logged,
    // not asserted: the machine's load decides them (docs/operations.md#following-transitions).
    const runMs = ids.map((id) => {
      const [claimed, succeeded] = watch.seen.filter(
        (t) => t.taskId === id && t.event !== 'submitted',
      );
      return (succeeded?.at ?? 0) - (claimed?.at ?? 0);
    });
    console.log(
      `[watch] 200 tasks, ${watch.seen.length} transitions; worker drained in ${drained - started} ms, ` +
        `watch caught up ${caughtUp - drained} ms later; longest claim-to-finish ${Math.max(...runMs)} ms`,
    );
  }, 180_000);

  it('yields retries, dead tasks and cancels with the status each entered', async () => {
    let calls = 0;
    const flaky = defineTask('flaky', {
      schema: z.object({}),
      retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
      handler: () => {
        calls += 1;
        throw new Error(`failure ${calls}`);
      },
    });
    const watch = await watchAll();
    const client = executor.client();

    const { id: failing } = await client.enqueue(flaky, {});
    const { id: cancelled } = await client.enqueue(quick, { n: 1 });
    await client.cancel(cancelled);
    const worker = executor.worker([flaky, quick]);
    await until(() => watch.seen.some((t) => t.taskId === cancelled && t.event === 'cancelled'));
    while ((await executor.store.get(failing))?.status !== 'DEAD') {
      await executor.drain(worker);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await until(() => watch.seen.some((t) => t.taskId === failing && t.event === 'dead'));
    watch.stop();
    await watch.done;

    const byTask = eventsByTask(watch.seen);
    expect(byTask.get(cancelled)).toEqual(['submitted', 'cancelled']);
    expect(byTask.get(failing)).toEqual([
      'submitted',
      'claimed',
      'retry-scheduled',
      'claimed',
      'dead',
    ]);
    expect(watch.seen.filter((t) => t.taskId === failing).map((t) => t.status)).toEqual([
      'PENDING',
      'RUNNING',
      'QUEUED',
      'RUNNING',
      'DEAD',
    ]);
  });

  it('keeps only the transitions into the statuses asked for', async () => {
    const controller = new AbortController();
    const seen: TaskTransition[] = [];
    let ready!: () => void;
    const started = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const client = executor.client();
    const done = (async () => {
      const watch = client.watch({
        statuses: ['SUCCEEDED'],
        intervalMs: 100,
        signal: controller.signal,
        onReady: ready,
      });
      for await (const t of watch) {
        seen.push(t);
        controller.abort();
      }
    })();
    await started;

    const { id } = await client.enqueue(quick, { n: 1 });
    await executor.drain(executor.worker([quick]));
    await done;

    expect(seen.map((t) => [t.taskId, t.event, t.status])).toEqual([
      [id, 'succeeded', 'SUCCEEDED'],
    ]);
  });

  it('reads what the stream holds from `since` on, leaving out older transitions', async () => {
    const client = executor.client();
    const worker = executor.worker([quick]);
    await client.enqueue(quick, { n: 1 });
    await executor.drain(worker);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const since = Date.now();
    const { id } = await client.enqueue(quick, { n: 2 });
    await executor.drain(worker);
    const seen: TaskTransition[] = [];
    const controller = new AbortController();

    for await (const t of client.watch({ since, intervalMs: 50, signal: controller.signal })) {
      seen.push(t);
      if (t.event === 'succeeded') controller.abort();
    }

    expect(seen.map((t) => [t.taskId, t.event])).toEqual([
      [id, 'submitted'],
      [id, 'claimed'],
      [id, 'succeeded'],
    ]);
  });
});

describe('TaskClient.watch of one task', () => {
  it('follows one task until it is terminal', async () => {
    const client = executor.client();
    const { id } = await client.enqueue(quick, { n: 1 });
    await executor.drain(executor.worker([quick]));
    const events: string[] = [];

    for await (const t of client.watch({ taskId: id, since: 0, intervalMs: 100 })) {
      events.push(t.event);
    }

    expect(events).toEqual(['submitted', 'claimed', 'succeeded']);
  });

  it('waits for a task enqueued after the watch started, and shows it from its first transition', async () => {
    const client = executor.client();
    const events: string[] = [];
    let ready!: () => void;
    const started = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const done = (async () => {
      const watch = client.watch({ taskId: 'late-task', since: 0, intervalMs: 50, onReady: ready });
      for await (const t of watch) events.push(t.event);
    })();
    await started;

    await client.enqueue(quick, { n: 1 }, { id: 'late-task' });
    await executor.drain(executor.worker([quick]));
    await done;

    expect(events).toEqual(['submitted', 'claimed', 'succeeded']);
  });

  it('throws TaskNotFoundError for a task that does not appear within appearWithinMs', async () => {
    const client = executor.client();

    const watching = (async () => {
      for await (const _ of client.watch({
        taskId: 'no-such-task',
        appearWithinMs: 300,
        intervalMs: 50,
      })) {
        // Nothing to see.
      }
    })();

    await expect(watching).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('refuses bad options with one ValidationError listing each', async () => {
    const client = executor.client();

    const error = await client
      .watch({ intervalMs: -1, statuses: ['DONE' as never], sinse: 0 } as never)
      .next()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
      'options.sinse',
      'statuses.0',
      'intervalMs',
    ]);
  });
});

/** A Streams client for the emulator whose GetRecords throws `failures`' next error, if any. */
function streamsFailing(failures: string[]) {
  const streams = testStreams();
  streams.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName === 'GetRecordsCommand' ? failures.shift() : undefined;
      if (name !== undefined) throw Object.assign(new Error(`injected ${name}`), { name });
      return next(args);
    },
    { step: 'initialize', name: 'injectStreamFault' },
  );
  return streams;
}

describe('TaskClient.watch when the stream fails it', () => {
  it('takes a new iterator after the last record read when its iterator expired: nothing lost or repeated', async () => {
    const failures: string[] = [];
    const client = executor.client({ dynamodbStreams: streamsFailing(failures) });
    const worker = executor.worker([quick]);
    const controller = new AbortController();
    const seen: TaskTransition[] = [];
    let ready!: () => void;
    const started = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const done = (async () => {
      const watch = client.watch({ intervalMs: 50, signal: controller.signal, onReady: ready });
      for await (const t of watch) seen.push(t);
    })();
    await started;
    const { id: first } = await client.enqueue(quick, { n: 1 });
    await until(() => seen.some((t) => t.taskId === first));

    failures.push('ExpiredIteratorException');
    const { id: second } = await client.enqueue(quick, { n: 2 });
    await executor.drain(worker);
    await until(() => seen.filter((t) => t.event === 'succeeded').length === 2);
    controller.abort();
    await done;

    expect(failures).toEqual([]);
    const byTask = eventsByTask(seen);
    expect(byTask.get(first)).toEqual(['submitted', 'claimed', 'succeeded']);
    expect(byTask.get(second)).toEqual(['submitted', 'claimed', 'succeeded']);
  });

  it('reads the writes made meanwhile, and none from before it started, when its first iterator expired unused', async () => {
    const failures = ['ExpiredIteratorException'];
    const client = executor.client({ dynamodbStreams: streamsFailing(failures) });
    await client.enqueue(quick, { n: 0 });
    await executor.drain(executor.worker([quick]));
    // The stream's record times are rounded down to the second on AWS: start a second later.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const controller = new AbortController();
    const seen: TaskTransition[] = [];

    const watch = client.watch({ intervalMs: 300, signal: controller.signal });
    const first = watch.next();
    const { id } = await client.enqueue(quick, { n: 1 });
    const done = (async () => {
      const head = await first;
      if (!head.done) seen.push(head.value);
      for await (const t of watch) seen.push(t);
    })();
    await executor.drain(executor.worker([quick]));
    await until(() => seen.some((t) => t.event === 'succeeded'));
    controller.abort();
    await done;

    expect(failures).toEqual([]);
    expect(seen.map((t) => [t.taskId, t.event])).toEqual([
      [id, 'submitted'],
      [id, 'claimed'],
      [id, 'succeeded'],
    ]);
  });

  it('throws WatchGapError when the records it had not read were trimmed', async () => {
    const client = executor.client({
      dynamodbStreams: streamsFailing(['TrimmedDataAccessException']),
    });

    const error = await client
      .watch({ intervalMs: 50 })
      .next()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(WatchGapError);
  });
});
