/**
 * Lanes route each task to its lane's queue, on the emulator: enqueue, the sweeper's re-send,
 * redrive (from the lane's DLQ), delayed tasks' and recurring schedules' targets, and dlq
 * peek. No worker runs here except where a task must die, so each queue's depth shows where
 * the messages went.
 */
import { GetScheduleCommand } from '@aws-sdk/client-scheduler';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskClient } from '../../src/client/task-client.js';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { taskMessage } from '../../src/core/message.js';
import { provision } from '../../src/local/provision.js';
import { silentLogger } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { delayedScheduleName } from '../../src/scheduler/names.js';
import { executorSettings } from '../../src/settings/executor.js';
import {
  DEFAULT_LANE,
  type LaneLocation,
  laneEnvironment,
  UnknownLaneError,
} from '../../src/settings/lanes.js';
import { EnvVars } from '../../src/settings/location.js';
import { payloadHash } from '../../src/store/record.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { TaskStore } from '../../src/store/task-store.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { toSqsRecord } from '../../src/worker/sqs-poller.js';
import { REGION, testClients, uniqueName } from '../helpers/aws.js';
import { runCli } from '../helpers/cli.js';
import { recordingLogger } from '../helpers/executor.js';

const schema = z.object({ n: z.number() });
const plain = defineTask('plain', { schema, handler: ({ n }) => n });
const bulk = defineTask('bulk-job', { schema, handler: ({ n }) => n, lane: 'bulk' });
const doomed = defineTask('bulk-doomed', {
  schema,
  lane: 'bulk',
  retry: { maxAttempts: 1 },
  handler: () => {
    throw new Error('always fails');
  },
});
/** Runs of the urgent lane's tasks, by payload; n = 1 fails its first attempt. */
const urgentRuns = new Map<number, number>();
const urgentJob = defineTask('urgent-job', {
  schema,
  lane: 'urgent',
  retry: { maxAttempts: 3, baseDelayMs: 1 },
  handler: ({ n }) => {
    const run = (urgentRuns.get(n) ?? 0) + 1;
    urgentRuns.set(n, run);
    if (n === 1 && run === 1) throw new Error('first attempt fails');
    return n;
  },
});
/** The steps the urgent lane's sleeper ran, in order. */
const napSteps: string[] = [];
const urgentNap = defineTask('urgent-nap', {
  schema,
  lane: 'urgent',
  handler: async (_payload, ctx) => {
    await ctx.step('before', () => napSteps.push('before'));
    await ctx.sleep('nap', 1_000);
    await ctx.step('after', () => napSteps.push('after'));
    return 'woken';
  },
});
const astray = defineTask('astray', { schema, handler: ({ n }) => n, lane: 'nowhere' });

const clients = testClients();
let location: Awaited<ReturnType<typeof provisionLanes>>;
let client: TaskClient;

async function provisionLanes() {
  const settings = executorSettings({
    name: uniqueName('lanes'),
    workerTimeoutSeconds: 5,
    lanes: { bulk: { maxConcurrency: 2, batchSize: 10 }, urgent: { maxConcurrency: 50 } },
  });
  const provisioned = await provision(settings, clients);
  const { scheduler, ...rest } = provisioned;
  return { ...rest, ...scheduler };
}

function lane(name: string): LaneLocation {
  const found = location.lanes?.[name];
  if (found === undefined) throw new Error(`no lane ${name}`);
  return found;
}

async function depth(queueUrl: string | undefined): Promise<number> {
  const out = await clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const a = out.Attributes ?? {};
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
}

async function depths(): Promise<Record<string, number>> {
  const names = Object.keys(location.lanes ?? {});
  const values = await Promise.all(names.map((n) => depth(lane(n).queueUrl)));
  return Object.fromEntries(names.map((n, i) => [n, values[i] as number]));
}

/** Runs the worker over the bulk lane's visible messages once, deleting what succeeded. */
async function runBulkOnce(): Promise<void> {
  await runLaneOnce('bulk', [doomed]);
}

/** Runs a worker of `tasks` over `name`'s visible messages once; the count of messages. */
async function runLaneOnce(
  name: string,
  tasks: Parameters<typeof createWorker>[0],
): Promise<number> {
  const worker = createWorker(tasks, {
    ...location,
    ...clients,
    logger: silentLogger,
    metrics: noopMetrics,
  });
  const { queueUrl, queueArn } = lane(name);
  const out = await clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  const records = (out.Messages ?? []).map((m) => toSqsRecord(m, queueArn ?? '', REGION));
  if (records.length > 0) await worker.processBatch(records);
  return records.length;
}

beforeAll(async () => {
  location = await provisionLanes();
  client = new TaskClient({ ...location, ...clients, logger: silentLogger });
});

describe('TaskClient.enqueue with lanes', () => {
  it("sends a task to its type's lane and records the lane; a type without one goes to the default lane", async () => {
    const before = await depths();

    const routed = await client.enqueue(bulk, { n: 1 });
    const unrouted = await client.enqueue(plain, { n: 2 });

    const after = await depths();
    expect(after.bulk).toBe((before.bulk ?? 0) + 1);
    expect(after[DEFAULT_LANE]).toBe((before[DEFAULT_LANE] ?? 0) + 1);
    expect(after.urgent).toBe(before.urgent);
    expect((await client.get(routed.id))?.lane).toBe('bulk');
    expect((await client.get(unrouted.id))?.lane).toBeUndefined();
  });

  it('refuses a type of an unknown lane with an UnknownLaneError, writing nothing', async () => {
    const attempt = client.enqueue(astray, { n: 1 }, { id: 'astray-1' });

    await expect(attempt).rejects.toBeInstanceOf(UnknownLaneError);
    await expect(attempt).rejects.toMatchObject({
      lane: 'nowhere',
      known: ['default', 'bulk', 'urgent'],
    });
    expect(await client.get('astray-1')).toBeUndefined();
  });

  it("creates a delayed task's schedule with its lane's queue as the target", async () => {
    const { id } = await client.enqueue(bulk, { n: 3 }, { delay: 3_600_000 });

    const schedule = await clients.scheduler.send(
      new GetScheduleCommand({
        Name: delayedScheduleName(id),
        GroupName: location.delayedScheduleGroup,
      }),
    );

    expect(schedule.Target?.Arn).toBe(lane('bulk').queueArn);
    expect((await client.get(id))?.status).toBe(TaskStatus.SCHEDULED);
  });

  it("creates a recurring schedule of a lane's type with the lane's queue as the target", async () => {
    await client.schedules.set('bulk-hourly', { task: bulk, payload: { n: 4 }, rate: '1 hour' });

    const schedule = await clients.scheduler.send(
      new GetScheduleCommand({ Name: 'bulk-hourly', GroupName: location.scheduleGroup }),
    );

    expect(schedule.Target?.Arn).toBe(lane('bulk').queueArn);
  });
});

describe('createSweeper with lanes', () => {
  it("re-sends a PENDING task whose message was never sent to its lane's queue", async () => {
    const store = new TaskStore({
      tableName: location.tableName,
      dynamodb: clients.dynamodb,
      logger: silentLogger,
    });
    const payloadJson = JSON.stringify({ n: 5 });
    await store.feature(RecordWrites).create({
      id: 'never-sent',
      type: bulk.type,
      payloadJson,
      payloadHash: payloadHash(bulk.type, payloadJson),
      maxAttempts: 3,
      timeoutMs: 30_000,
      messageGroupId: 'never-sent',
      lane: 'bulk',
    });
    const before = await depths();
    await new Promise((resolve) => setTimeout(resolve, 50));

    const report = await createSweeper({
      ...location,
      ...clients,
      logger: silentLogger,
      metrics: noopMetrics,
      pendingAgeMs: 0,
    }).run();

    const after = await depths();
    expect(report.sent).toBeGreaterThanOrEqual(1);
    expect(after.bulk).toBeGreaterThan(before.bulk ?? 0);
    expect(after[DEFAULT_LANE]).toBe(before[DEFAULT_LANE]);
    expect(after.urgent).toBe(before.urgent);
  });
});

describe('TaskClient.redrive with lanes', () => {
  it("sends a DEAD task back to its lane's queue and drains its dead letter from the lane's DLQ", async () => {
    const { id } = await client.enqueue(doomed, { n: 6 }, { id: 'doomed-1' });
    await runBulkOnce();
    const dead = await client.get(id);
    expect(dead?.status).toBe(TaskStatus.DEAD);
    // SQS's own safety net put a copy in the bulk lane's DLQ.
    await clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: lane('bulk').deadLetterQueueUrl,
        ...taskMessage(dead as never),
      }),
    );
    const before = await depths();

    const result = await client.redrive({ ids: [id] });

    const after = await depths();
    expect(result.redriven).toEqual([id]);
    expect(result.dlq.deleted).toBe(1);
    expect(await depth(lane('bulk').deadLetterQueueUrl)).toBe(0);
    expect(after.bulk).toBe((before.bulk ?? 0) + 1);
    expect(after[DEFAULT_LANE]).toBe(before[DEFAULT_LANE]);
  });
});

describe('TaskClient.deadLetters.peek with lanes', () => {
  it("reads every lane's DLQ and says which lane each message is in", async () => {
    await clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: lane('urgent').deadLetterQueueUrl,
        MessageBody: JSON.stringify({ tasklane: 1, id: 'urgent-dead', type: 'u' }),
        MessageGroupId: 'urgent-dead',
        MessageDeduplicationId: 'urgent-dead',
      }),
    );

    const letters = await client.deadLetters.peek({ limit: 10 });
    const stats = await client.deadLetters.stats();

    expect(letters.map((l) => [l.taskId, l.lane])).toContainEqual(['urgent-dead', 'urgent']);
    expect(stats.byLane?.urgent?.visible).toBe(1);
    expect(stats.visible).toBeGreaterThanOrEqual(1);
  });
});

describe('tasklane status with lanes', () => {
  it('counts by lane and shows each lane’s DLQ depth and oldest message', async () => {
    const env = {
      [EnvVars.TABLE_NAME]: location.tableName,
      [EnvVars.QUEUE_URL]: location.queueUrl,
      [EnvVars.DLQ_URL]: location.deadLetterQueueUrl,
      ...laneEnvironment(location.lanes ?? {}),
    };

    const json = await runCli(['status', '--by-lane', '--json'], env);
    const text = await runCli(['status'], env);

    const parsed = JSON.parse(json.stdout);
    expect(json.code).toBe(0);
    expect(parsed.counts.byLane.bulk.PENDING).toBeGreaterThanOrEqual(1);
    expect(parsed.counts.byLane.default.PENDING).toBeGreaterThanOrEqual(1);
    expect(parsed.deadLetters.byLane.urgent.visible).toBe(1);
    expect(parsed.deadLetters.byLane.bulk.visible).toBe(0);
    expect(text.stdout).toMatch(/urgent\s*│\s*1/);
  });
});

describe('createSweeper with a paused lane', () => {
  it('sends none of a paused lane’s old PENDING or overdue QUEUED tasks; the first sweep after the resume does, and each runs once', async () => {
    // Task 1 fails its first attempt before the pause: QUEUED, its message held for the retry.
    // The lane's queue keeps messages 12 hours here, shorter than the delay and a day, so the
    // retry stays in the status index (docs/adr/0068-a-retry-stays-off-the-index.md) and the
    // index's overdue pass is the one that must leave it alone while the lane is paused.
    const retention = (seconds: number) =>
      clients.sqs.send(
        new SetQueueAttributesCommand({
          QueueUrl: lane('urgent').queueUrl,
          Attributes: { MessageRetentionPeriod: String(seconds) },
        }),
      );
    await retention(12 * 60 * 60);
    const retrying = await client.enqueue(urgentJob, { n: 1 }, { id: 'urgent-retrying' });
    await runLaneOnce('urgent', [urgentJob]).finally(() => retention(1_209_600));
    const queued = await client.get(retrying.id);
    expect(queued?.status).toBe(TaskStatus.QUEUED);
    await client.pauseLane('urgent', { mappings: false, reason: 'sweeper test' });
    // Task 2 is enqueued to the paused lane: PENDING, its message waiting in the queue.
    const fresh = await client.enqueue(urgentJob, { n: 2 }, { id: 'urgent-fresh' });
    const held = await depth(lane('urgent').queueUrl);
    // Seven hours on: task 2 is long past the PENDING grace, task 1 past the QUEUED overdue (6 h).
    const later = () => Date.now() + 7 * 3_600_000;
    const sweeper = createSweeper({
      ...location,
      ...clients,
      logger: silentLogger,
      metrics: noopMetrics,
      clock: later,
    });

    const whilePaused = [await sweeper.run(), await sweeper.run()];

    expect(await depth(lane('urgent').queueUrl)).toBe(held);
    expect(await client.get(retrying.id)).toMatchObject({
      status: TaskStatus.QUEUED,
      generation: queued?.generation,
    });
    expect(await client.get(fresh.id)).toMatchObject({ status: TaskStatus.PENDING, resends: 0 });
    expect(whilePaused.map((r) => r.lanePaused)).toEqual([2, 2]);

    await client.resumeLane('urgent', { mappings: false });
    const afterResume = await sweeper.run();

    expect(afterResume.lanePaused).toBe(0);
    expect(await depth(lane('urgent').queueUrl)).toBe(held + 1);
    expect((await client.get(retrying.id))?.generation).toBe((queued?.generation ?? 0) + 1);
    expect((await client.get(fresh.id))?.resends).toBe(1);
    // The worker takes the lane's messages: each task runs once more, the stale one is ignored.
    const done = async () =>
      (await client.get(retrying.id))?.status === TaskStatus.SUCCEEDED &&
      (await client.get(fresh.id))?.status === TaskStatus.SUCCEEDED;
    for (let round = 0; round < 10 && !(await done()); round++) {
      await runLaneOnce('urgent', [urgentJob]);
    }
    await runLaneOnce('urgent', [urgentJob]);
    expect((await client.get(retrying.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect((await client.get(fresh.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(Object.fromEntries(urgentRuns)).toEqual({ 1: 2, 2: 1 });
  });

  it('wakes none of a paused lane’s due suspended tasks, its held message left as it is; the first sweep after the resume does, and the task completes once', async () => {
    const { id } = await client.enqueue(urgentNap, { n: 0 }, { id: 'urgent-nap' });
    await runLaneOnce('urgent', [urgentNap]);
    const sleeping = await client.get(id);
    expect(sleeping?.status).toBe(TaskStatus.SUSPENDED);
    expect(sleeping?.heldMessage).toBeDefined();
    await client.pauseLane('urgent', { mappings: false, reason: 'wake test' });
    // The nap ends while the lane is paused: its held message comes back, received by nobody.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const held = await depth(lane('urgent').queueUrl);
    // A minute on: the task is due and unclaimed past the wake grace (30 s).
    const { sqs } = testClients();
    const shows = { count: 0 };
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ChangeMessageVisibilityCommand') shows.count += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countShows' },
    );
    const sweeper = createSweeper({
      ...location,
      ...clients,
      sqs,
      logger: silentLogger,
      metrics: noopMetrics,
      clock: () => Date.now() + 60_000,
    });

    const whilePaused = [await sweeper.run(), await sweeper.run()];

    // No new message, and no write: the wake is not noted (same generation), the hold kept.
    expect(await depth(lane('urgent').queueUrl)).toBe(held);
    expect(await client.get(id)).toMatchObject({
      status: TaskStatus.SUSPENDED,
      generation: sleeping?.generation,
      heldMessage: sleeping?.heldMessage,
    });
    expect(whilePaused.map((r) => [r.woken, r.lanePaused])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(napSteps).toEqual(['before']);
    expect(shows.count).toBe(0);

    await client.resumeLane('urgent', { mappings: false });
    const afterResume = await sweeper.run();

    expect(afterResume).toMatchObject({ woken: 1, lanePaused: 0 });
    // The repair shows the held message (its handle may be stale) besides sending a new one.
    expect(shows.count).toBe(1);
    expect(await depth(lane('urgent').queueUrl)).toBe(held + 1);
    expect((await client.get(id))?.generation).toBe((sleeping?.generation ?? 0) + 1);
    // The worker takes the lane's messages: the new one runs the task, the held one is stale.
    for (let round = 0; round < 10; round++) {
      if ((await client.get(id))?.status === TaskStatus.SUCCEEDED) break;
      await runLaneOnce('urgent', [urgentNap]);
    }
    await runLaneOnce('urgent', [urgentNap]);
    expect(await client.get(id)).toMatchObject({ status: TaskStatus.SUCCEEDED, result: 'woken' });
    expect(napSteps).toEqual(['before', 'after']);
  });
});

describe('createSweeper and the lanes’ control items', () => {
  /** A DynamoDB client that counts the BatchGetItem requests of lane control items. */
  function countingControlReads() {
    const { dynamodb } = testClients();
    const counted = { reads: 0 };
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { RequestItems?: Record<string, { Keys?: unknown[] }> };
        const keys = Object.values(input.RequestItems ?? {}).flatMap((t) => t.Keys ?? []);
        const ids = keys.map((k) =>
          JSON.stringify((k as Record<string, unknown>)[TableSchema.PARTITION_KEY]),
        );
        if (
          context.commandName === 'BatchGetCommand' ||
          context.commandName === 'BatchGetItemCommand'
        ) {
          if (ids.some((id) => id.includes('lane-control '))) counted.reads += 1;
        }
        return next(args);
      },
      { step: 'initialize', name: 'countControlReads' },
    );
    return { dynamodb, counted };
  }

  it('reads them with one BatchGetItem per sweep, and not at all when no task is old enough', async () => {
    const store = new TaskStore({
      tableName: location.tableName,
      dynamodb: clients.dynamodb,
      logger: silentLogger,
    });
    for (const id of ['old-1', 'old-2']) {
      const payloadJson = JSON.stringify({ n: 7 });
      await store.feature(RecordWrites).create({
        id,
        type: urgentJob.type,
        payloadJson,
        payloadHash: payloadHash(urgentJob.type, payloadJson),
        maxAttempts: 3,
        timeoutMs: 30_000,
        messageGroupId: id,
        lane: 'urgent',
      });
    }
    const sweeperAt = (clock: () => number) => {
      const { dynamodb, counted } = countingControlReads();
      const sweeper = createSweeper({
        ...location,
        ...clients,
        dynamodb,
        logger: silentLogger,
        metrics: noopMetrics,
        clock,
      });
      return { sweeper, counted };
    };
    // Now: both tasks are younger than the PENDING grace (60 s), so nothing is a candidate.
    const fresh = sweeperAt(Date.now);
    // Two days on: both are candidates, and so is every other task of the file left unsent.
    const later = sweeperAt(() => Date.now() + 2 * 86_400_000);

    const none = await fresh.sweeper.run();
    const some = await later.sweeper.run();

    expect(none.sent).toBe(0);
    expect(fresh.counted.reads).toBe(0);
    expect(some.sent).toBeGreaterThanOrEqual(2);
    expect(later.counted.reads).toBe(1);
  });

  it('sends as if no lane were paused when the read fails, and logs it', async () => {
    const { dynamodb } = testClients();
    const failed = { reads: 0 };
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { RequestItems?: Record<string, { Keys?: unknown[] }> };
        const keys = Object.values(input.RequestItems ?? {}).flatMap((t) => t.Keys ?? []);
        const control = keys.some((k) =>
          JSON.stringify((k as Record<string, unknown>)[TableSchema.PARTITION_KEY]).includes(
            'lane-control ',
          ),
        );
        if ((context.commandName ?? '').startsWith('BatchGet') && control) {
          failed.reads += 1;
          throw Object.assign(new Error('injected: the lanes’ control items are unreadable'), {
            name: 'InternalServerError',
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'failControlReads' },
    );
    const logger = recordingLogger();
    await client.pauseLane('urgent', { mappings: false, reason: 'read failure test' });
    try {
      const { id } = await client.enqueue(urgentJob, { n: 3 }, { id: 'urgent-unread' });
      const sweeper = createSweeper({
        ...location,
        ...clients,
        dynamodb,
        logger,
        metrics: noopMetrics,
        clock: () => Date.now() + 120_000,
      });

      const report = await sweeper.run();

      // The paused lane's old task is sent again: a message's cost, never a repair held back.
      expect(failed.reads).toBe(1);
      expect(report).toMatchObject({ lanePaused: 0, failed: 0 });
      // Sent and noted (SQS drops the copy as a duplicate of the enqueue's message, < 5 min).
      expect((await client.get(id))?.resends).toBe(1);
      expect(logger.lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message: expect.stringContaining('could not read the lanes'),
        }),
      );
    } finally {
      await client.resumeLane('urgent', { mappings: false });
    }
  });
});
