/**
 * TaskStore against the emulator: every transition is one conditional write that touches only
 * its own task and only from the states it allows. Most tests seed one task in each status
 * (graphile's makeSelectionOfJobs) and show what a transition does to each of them.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { prepareTask } from '../../src/client/prepare.js';
import { AuditEvent, Defaults, TaskStatus } from '../../src/constants.js';
import {
  ErrorCode,
  LeaseLostError,
  TransitionRejectedError,
  ValidationError,
} from '../../src/errors.js';
import { provision } from '../../src/local/provision.js';
import { silentLogger } from '../../src/observability/logger.js';
import { executorSettings } from '../../src/resources.js';
import { historyBytes } from '../../src/store/history.js';
import { statusShard, type TaskErrorInfo, type TaskRecord } from '../../src/store/record.js';
import { type Lease, type NewTask, TaskStore } from '../../src/store/task-store.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { decideClaim } from '../../src/worker/claim-decision.js';
import { testClients, uniqueName } from '../helpers/aws.js';

const T0 = Date.UTC(2030, 0, 1);
const LEASE_MS = 60_000;
const SHARDS = 8;
const RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** Statuses the store can produce today; SCHEDULED has no store path yet. */
const SEEDED_STATUSES = [
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.RUNNING,
  TaskStatus.SUCCEEDED,
  TaskStatus.DEAD,
  TaskStatus.CANCELLED,
] as const;
type SeededStatus = (typeof SEEDED_STATUSES)[number];

interface Seeded {
  readonly record: TaskRecord;
  /** The lease that claimed the task, for RUNNING and the states reached from it. */
  readonly lease: Lease | undefined;
}
type Selection = Record<SeededStatus, Seeded>;
/** What a transition did to one seeded task: accepted, or the code of the refusal. */
type Outcome = 'accepted' | ErrorCode;

const { sqs, dynamodb } = testClients();
/** Names of every DynamoDB command sent, recorded by a middleware on the shared client. */
const sentCommands: string[] = [];
dynamodb.middlewareStack.add(
  (next, context) => async (args) => {
    sentCommands.push(context.commandName ?? 'unknown');
    return next(args);
  },
  { step: 'initialize', name: 'recordCommandNames' },
);

let now = T0;
let tableName: string;
let store: TaskStore;

beforeAll(async () => {
  const executor = await provision(executorSettings({ name: uniqueName('store') }), {
    sqs,
    dynamodb,
  });
  tableName = executor.tableName;
  store = storeFor(tableName);
});

afterAll(() => {
  sqs.destroy();
  dynamodb.destroy();
});

beforeEach(() => {
  now = T0;
});

function storeFor(table: string): TaskStore {
  return new TaskStore({ tableName: table, dynamodb, logger: silentLogger, clock: () => now });
}

/**
 * A client whose requests reach the emulator one at a time: DynamoDB's per-item write
 * serialization, which moto_server's threaded request handling does not provide.
 */
function serializedClient(): DynamoDBClient {
  const client = testClients().dynamodb;
  let queue: Promise<unknown> = Promise.resolve();
  client.middlewareStack.add(
    (next) => (args) => {
      const turn = queue.then(() => next(args));
      queue = turn.catch(() => undefined);
      return turn;
    },
    { step: 'build', name: 'serializeRequests' },
  );
  return client;
}

function newTask(id: string, overrides: Partial<NewTask> = {}): NewTask {
  return {
    id,
    type: 'report.build',
    payloadJson: '{"month":"2030-01"}',
    payloadHash: 'hash-1',
    maxAttempts: 3,
    timeoutMs: 30_000,
    messageGroupId: id,
    ...overrides,
  };
}

/** The item exactly as stored, read with the low-level client. */
async function rawItem(id: string, table = tableName): Promise<Record<string, unknown>> {
  const out = await dynamodb.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: id } }, ConsistentRead: true }),
  );
  if (out.Item === undefined) throw new Error(`no item ${id}`);
  return unmarshall(out.Item);
}

async function current(id: string): Promise<TaskRecord> {
  const record = await store.get(id);
  if (record === undefined) throw new Error(`no task ${id}`);
  return record;
}

async function createQueued(id: string, overrides: Partial<NewTask> = {}): Promise<TaskRecord> {
  const { record } = await store.create(newTask(id, overrides));
  return store.markSent(record);
}

async function createRunning(
  id: string,
  workerId = 'worker-a',
  overrides: Partial<NewTask> = {},
): Promise<{ record: TaskRecord; lease: Lease }> {
  return store.claim(await createQueued(id, overrides), { workerId, leaseMs: LEASE_MS });
}

/** One task in each status the store can reach, ids `<prefix>-seed-<status>`. */
async function seedSelection(prefix: string): Promise<Selection> {
  const id = (status: string) => `${prefix}-seed-${status.toLowerCase()}`;
  const pending = (await store.create(newTask(id('PENDING')))).record;
  const queued = await createQueued(id('QUEUED'));
  const running = await createRunning(id('RUNNING'));
  const toSucceed = await createRunning(id('SUCCEEDED'));
  const succeeded = await store.complete(toSucceed.lease, 'report.build', '{"rows":3}');
  const toKill = await createRunning(id('DEAD'));
  const dead = await store.kill(toKill.lease, 'report.build', 'permanent error: bad month');
  const toCancel = (await store.create(newTask(id('CANCELLED')))).record;
  const cancelled = await store.cancel(toCancel, 'no longer needed');
  return {
    PENDING: { record: pending, lease: undefined },
    QUEUED: { record: queued, lease: undefined },
    RUNNING: running,
    SUCCEEDED: { record: succeeded, lease: toSucceed.lease },
    DEAD: { record: dead, lease: toKill.lease },
    CANCELLED: { record: cancelled, lease: undefined },
  };
}

async function snapshot(selection: Selection): Promise<Map<string, Record<string, unknown>>> {
  const items = new Map<string, Record<string, unknown>>();
  for (const { record } of Object.values(selection)) items.set(record.id, await rawItem(record.id));
  return items;
}

/** Ids of the seeded tasks whose stored item differs from the snapshot. */
async function changedSince(before: Map<string, Record<string, unknown>>): Promise<string[]> {
  const changed: string[] = [];
  for (const [id, item] of before) {
    const after = await rawItem(id);
    if (JSON.stringify(after) !== JSON.stringify(item)) changed.push(id);
  }
  return changed;
}

/**
 * Applies a transition to every seeded task. A refusal must be the store's domain error and
 * must explain itself with the record as DynamoDB saw it.
 */
async function attemptOnEach(
  selection: Selection,
  transition: (seeded: Seeded) => Promise<unknown>,
): Promise<Record<SeededStatus, Outcome>> {
  const outcomes = {} as Record<SeededStatus, Outcome>;
  for (const status of SEEDED_STATUSES) {
    try {
      await transition(selection[status]);
      outcomes[status] = 'accepted';
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      expect(err.current?.id).toBe(selection[status].record.id);
      expect(err.current?.status).toBe(status);
      outcomes[status] = err.code;
    }
  }
  return outcomes;
}

/** The lease of a RUNNING record as another worker sees it: the token it read, its own id. */
function leaseSeenBy(record: TaskRecord, workerId: string): Lease {
  return {
    taskId: record.id,
    attempt: record.attempt,
    leaseToken: record.leaseToken ?? '',
    workerId,
  };
}

/** A lease that was never granted, for tasks that have none. */
function forgedLease(record: TaskRecord): Lease {
  return { taskId: record.id, attempt: record.attempt, leaseToken: 'forged', workerId: 'intruder' };
}

async function rejection(promise: Promise<unknown>): Promise<TransitionRejectedError> {
  const err = await promise.then(
    () => {
      throw new Error('expected the transition to be refused');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TransitionRejectedError);
  return err as TransitionRejectedError;
}

/** The outcome table of a transition that accepts `allowed` and refuses the rest with `refusal`. */
function expectedOutcomes(
  allowed: readonly SeededStatus[],
  refusal: ErrorCode,
): Record<SeededStatus, Outcome> {
  const outcomes = {} as Record<SeededStatus, Outcome>;
  for (const status of SEEDED_STATUSES) {
    outcomes[status] = allowed.includes(status) ? 'accepted' : refusal;
  }
  return outcomes;
}

describe('TaskStore.create', () => {
  it('writes a PENDING task at attempt 0 with a submitted history entry', async () => {
    // Arrange
    const task = newTask('create-1', { orderingKey: 'customer-7', messageGroupId: 'customer-7' });

    // Act
    const { record, created } = await store.create(task);

    // Assert
    expect(created).toBe(true);
    expect(record).toMatchObject({
      id: 'create-1',
      type: 'report.build',
      status: TaskStatus.PENDING,
      payload: { month: '2030-01' },
      payloadHash: 'hash-1',
      attempt: 0,
      maxAttempts: 3,
      orderingKey: 'customer-7',
      messageGroupId: 'customer-7',
      generation: 1,
      timeoutMs: 30_000,
      createdAt: T0,
      updatedAt: T0,
      leaseToken: undefined,
    });
    expect(record.history).toEqual([
      { event: AuditEvent.SUBMITTED, at: T0, attempt: 0, status: TaskStatus.PENDING },
    ]);
    expect(await current('create-1')).toEqual(record);
  });

  it('is idempotent: a second create returns the existing record and overwrites nothing', async () => {
    // Arrange
    const first = await store.create(newTask('create-2'));
    const before = await rawItem('create-2');
    now += 5_000;

    // Act
    const second = await store.create(
      newTask('create-2', { type: 'other.type', payloadJson: '{"x":1}', payloadHash: 'hash-2' }),
    );

    // Assert
    expect(second.created).toBe(false);
    expect(second.record).toEqual(first.record);
    expect(await rawItem('create-2')).toEqual(before);
  });

  it('returns the existing record in its current state, not as first created', async () => {
    // Arrange
    const { record } = await createRunning('create-3');

    // Act
    const again = await store.create(newTask('create-3'));

    // Assert
    expect(again.created).toBe(false);
    expect(again.record.status).toBe(TaskStatus.RUNNING);
    expect(again.record.leaseToken).toBe(record.leaseToken);
  });
});

describe('TaskStore.markSent', () => {
  it('moves only the PENDING task to QUEUED, and refuses every other status', async () => {
    // Arrange
    const selection = await seedSelection('sent');
    const before = await snapshot(selection);
    now += 1_000;

    // Act
    const outcomes = await attemptOnEach(selection, ({ record }) => store.markSent(record));

    // Assert
    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.PENDING], ErrorCode.TRANSITION_REJECTED));
    expect(await changedSince(before)).toEqual([selection.PENDING.record.id]);
    const queued = await current(selection.PENDING.record.id);
    expect(queued.status).toBe(TaskStatus.QUEUED);
    expect(queued.history.at(-1)).toEqual({
      event: AuditEvent.SENT,
      at: T0 + 1_000,
      attempt: 0,
      status: TaskStatus.QUEUED,
    });
  });

  it('refuses a generation that is not the current one', async () => {
    // Arrange
    const { record } = await store.create(newTask('sent-stale'));

    // Act
    const err = await rejection(store.markSent({ ...record, generation: 2 }));

    // Assert
    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current?.status).toBe(TaskStatus.PENDING);
    expect((await current('sent-stale')).status).toBe(TaskStatus.PENDING);
  });

  it('refuses a task that does not exist, with no current record', async () => {
    const err = await rejection(
      store.markSent({ id: 'sent-ghost', type: 'report.build', generation: 1, attempt: 0 }),
    );

    expect(err.current).toBeUndefined();
    expect(await store.get('sent-ghost')).toBeUndefined();
  });
});

describe('TaskStore.claim', () => {
  it('claims only PENDING and QUEUED tasks, and refuses every other status', async () => {
    // Arrange
    const selection = await seedSelection('claim');
    const before = await snapshot(selection);

    // Act
    const outcomes = await attemptOnEach(selection, ({ record }) =>
      store.claim(record, { workerId: 'worker-b', leaseMs: LEASE_MS }),
    );

    // Assert
    expect(outcomes).toEqual(
      expectedOutcomes([TaskStatus.PENDING, TaskStatus.QUEUED], ErrorCode.TRANSITION_REJECTED),
    );
    expect((await changedSince(before)).sort()).toEqual(
      [selection.PENDING.record.id, selection.QUEUED.record.id].sort(),
    );
  });

  it('starts attempt 1 of a QUEUED task under a fresh lease', async () => {
    // Arrange
    const queued = await createQueued('claim-queued');
    now += 2_000;

    // Act
    const { record, lease } = await store.claim(queued, {
      workerId: 'worker-a',
      leaseMs: LEASE_MS,
      detail: 'message m-1, receive 1',
    });

    // Assert
    expect(lease).toEqual({
      taskId: 'claim-queued',
      attempt: 1,
      leaseToken: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workerId: 'worker-a',
      history: record.history,
    });
    expect(record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 1,
      leaseToken: lease.leaseToken,
      leaseExpiresAt: T0 + 2_000 + LEASE_MS,
      workerId: 'worker-a',
      updatedAt: T0 + 2_000,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.CLAIMED,
      at: T0 + 2_000,
      attempt: 1,
      status: TaskStatus.RUNNING,
      workerId: 'worker-a',
      detail: 'message m-1, receive 1',
    });
    expect(await current('claim-queued')).toEqual(record);
  });

  it('claims a PENDING task whose message arrived before markSent', async () => {
    // Arrange
    const { record: pending } = await store.create(newTask('claim-pending'));

    // Act
    const { record, lease } = await store.claim(pending, { workerId: 'w', leaseMs: LEASE_MS });

    // Assert
    expect(record.status).toBe(TaskStatus.RUNNING);
    expect(lease.attempt).toBe(1);
    expect(record.history.at(-1)).toMatchObject({ event: AuditEvent.CLAIMED, attempt: 1 });
  });

  it('rejects a claim while another lease is live', async () => {
    // Arrange
    const { record: running } = await createRunning('claim-live', 'worker-a');
    now += LEASE_MS - 1;

    // Act
    const err = await rejection(store.claim(running, { workerId: 'worker-b', leaseMs: LEASE_MS }));

    // Assert
    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current).toEqual(running);
    expect(await current('claim-live')).toEqual(running);
  });

  it('takes over an expired lease as a new attempt with a new token', async () => {
    // Arrange
    const first = await createRunning('claim-expired', 'worker-a');
    now += LEASE_MS + 1;

    // Act
    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    // Assert
    expect(second.lease.attempt).toBe(2);
    expect(second.lease.leaseToken).not.toBe(first.lease.leaseToken);
    expect(second.record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 2,
      workerId: 'worker-b',
      leaseToken: second.lease.leaseToken,
      leaseExpiresAt: now + LEASE_MS,
    });
    expect(second.record.history.filter((h) => h.event === AuditEvent.CLAIMED)).toEqual([
      expect.objectContaining({ attempt: 1, workerId: 'worker-a' }),
      expect.objectContaining({ attempt: 2, workerId: 'worker-b' }),
    ]);
  });

  it('takes over a lease at the very millisecond it expires, as decideClaim does', async () => {
    // Arrange
    const first = await createRunning('claim-at-expiry', 'worker-a');
    now = T0 + LEASE_MS;
    expect(first.record.leaseExpiresAt).toBe(now);

    // Act
    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    // Assert
    expect(decideClaim(first.record, now)).toEqual({ kind: 'claim' });
    expect(second.lease.attempt).toBe(2);
    expect(second.record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 2,
      workerId: 'worker-b',
      leaseToken: second.lease.leaseToken,
      leaseExpiresAt: now + LEASE_MS,
    });
  });

  it('refuses a takeover one millisecond before the lease expires, as decideClaim does', async () => {
    // Arrange
    const first = await createRunning('claim-before-expiry', 'worker-a');
    now = T0 + LEASE_MS - 1;

    // Act
    const err = await rejection(
      store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS }),
    );

    // Assert
    expect(decideClaim(first.record, now)).toMatchObject({ kind: 'defer', delayMs: 1 });
    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current).toEqual(first.record);
    expect(await current('claim-before-expiry')).toEqual(first.record);
  });

  it('lets exactly one of several concurrent claims from the same read win', async () => {
    // moto_server evaluates a condition and applies the update without a per-item lock, so
    // two truly simultaneous requests can both pass it; DynamoDB serializes writes to an item.
    // The gated client reproduces that serialization in whatever order the requests arrive;
    // which claim wins is still decided by the store's condition alone.
    const gated = serializedClient();
    onTestFinished(() => gated.destroy());
    const racingStore = new TaskStore({
      tableName,
      dynamodb: gated,
      logger: silentLogger,
      clock: () => now,
    });
    for (let round = 0; round < 5; round++) {
      // Arrange
      const seen = await createQueued(`claim-race-${round}`);

      // Act
      const results = await Promise.allSettled(
        ['w1', 'w2', 'w3', 'w4'].map((workerId) =>
          racingStore.claim(seen, { workerId, leaseMs: LEASE_MS }),
        ),
      );

      // Assert
      const winners = results.filter((r) => r.status === 'fulfilled');
      const losers = results.filter((r) => r.status === 'rejected');
      expect(winners).toHaveLength(1);
      const winner = winners[0]?.status === 'fulfilled' ? winners[0].value : undefined;
      for (const loser of losers) {
        expect(loser.reason).toBeInstanceOf(TransitionRejectedError);
        expect(loser.reason).not.toBeInstanceOf(LeaseLostError);
        expect(loser.reason.current).toMatchObject({ status: TaskStatus.RUNNING, attempt: 1 });
      }
      const stored = await current(seen.id);
      expect(stored.leaseToken).toBe(winner?.lease.leaseToken);
      expect(stored.history.filter((h) => h.event === AuditEvent.CLAIMED)).toHaveLength(1);
    }
  });

  it('lets only the first of two claims made from the same read win', async () => {
    // Arrange
    const seen = await createQueued('claim-same-read');
    const first = await store.claim(seen, { workerId: 'w1', leaseMs: LEASE_MS });

    // Act
    const err = await rejection(store.claim(seen, { workerId: 'w2', leaseMs: LEASE_MS }));

    // Assert
    expect(err.current).toEqual(first.record);
  });

  it('refuses a claim from a stale read once the task has moved on', async () => {
    // Arrange
    const seen = await createQueued('claim-stale');
    const { lease } = await store.claim(seen, { workerId: 'w1', leaseMs: LEASE_MS });
    await store.retry(lease, 'report.build', { name: 'Error', message: 'boom' }, 0);

    // Act: the task is QUEUED again, but at attempt 1, not the attempt 0 that was read.
    const err = await rejection(store.claim(seen, { workerId: 'w2', leaseMs: LEASE_MS }));

    // Assert
    expect(err.current).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1 });
  });

  it('refuses a claim when the attempt has reached maxAttempts', async () => {
    // Arrange: a one-attempt task whose only attempt failed back to QUEUED.
    const first = await createRunning('claim-exhausted', 'w1', { maxAttempts: 1 });
    const requeued = await store.retry(
      first.lease,
      'report.build',
      { name: 'Error', message: 'x' },
      0,
    );
    expect(requeued).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1, maxAttempts: 1 });

    // Act
    const err = await rejection(store.claim(requeued, { workerId: 'w2', leaseMs: LEASE_MS }));

    // Assert
    expect(err.current).toEqual(requeued);
    expect(await current('claim-exhausted')).toEqual(requeued);
  });

  it('refuses to take over an expired lease on the final attempt', async () => {
    // Arrange
    const { record } = await createRunning('claim-final', 'w1', { maxAttempts: 1 });
    now += LEASE_MS + 1;

    // Act
    const err = await rejection(store.claim(record, { workerId: 'w2', leaseMs: LEASE_MS }));

    // Assert
    expect(err.current).toEqual(record);
  });
});

describe('TaskStore.complete', () => {
  it('completes only the RUNNING task under its own lease; every other status loses', async () => {
    // Arrange
    const selection = await seedSelection('complete');
    const before = await snapshot(selection);

    // Act
    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.complete(lease ?? forgedLease(record), record.type, '{"ok":true}'),
    );

    // Assert
    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('writes SUCCEEDED with the result, finish time and TTL, and drops the lease', async () => {
    // Arrange
    const { lease } = await createRunning('complete-ok', 'worker-a');
    now += 4_000;

    // Act
    const record = await store.complete(lease, 'report.build', '{"rows":42}');

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      result: { rows: 42 },
      finishedAt: now,
      leaseToken: undefined,
      leaseExpiresAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.SUCCEEDED,
      at: now,
      attempt: 1,
      status: TaskStatus.SUCCEEDED,
      workerId: 'worker-a',
    });
    const item = await rawItem('complete-ok');
    expect(item).not.toHaveProperty('leaseToken');
    expect(item).not.toHaveProperty('leaseExpiresAt');
  });

  it('stores no result when the handler returned none', async () => {
    const { lease } = await createRunning('complete-void');

    const record = await store.complete(lease, 'report.build', undefined);

    expect(record.result).toBeUndefined();
    expect(await rawItem('complete-void')).not.toHaveProperty('result');
  });

  it('refuses a wrong lease token with LeaseLostError carrying the current record', async () => {
    // Arrange
    const { record, lease } = await createRunning('complete-token');

    // Act
    const err = await rejection(
      store.complete({ ...lease, leaseToken: 'someone-else' }, 'report.build', '{}'),
    );

    // Assert
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.code).toBe(ErrorCode.LEASE_LOST);
    expect(err.current).toEqual(record);
    expect(await current('complete-token')).toEqual(record);
  });

  it('refuses a stale attempt number with LeaseLostError', async () => {
    const { record, lease } = await createRunning('complete-attempt');

    const err = await rejection(store.complete({ ...lease, attempt: 0 }, 'report.build', '{}'));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(await current('complete-attempt')).toEqual(record);
  });

  it('writes the terminal record exactly once', async () => {
    // Arrange
    const { lease } = await createRunning('complete-twice');
    const done = await store.complete(lease, 'report.build', '{"n":1}');

    // Act
    const err = await rejection(store.complete(lease, 'report.build', '{"n":2}'));

    // Assert
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(done);
    expect(await current('complete-twice')).toEqual(done);
  });

  it('after a takeover, refuses the first lease and keeps the second attempt’s outcome', async () => {
    // Arrange: attempt 1 stalls past its lease; attempt 2 takes over.
    const first = await createRunning('complete-takeover', 'worker-a');
    now += LEASE_MS + 1;
    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    // Act: the stale worker finishes first, then the new one.
    const stale = await rejection(store.complete(first.lease, 'report.build', '{"by":"a"}'));
    const done = await store.complete(second.lease, 'report.build', '{"by":"b"}');
    const lateRetry = await rejection(
      store.retry(first.lease, 'report.build', { name: 'Error', message: 'late' }, 0),
    );

    // Assert
    expect(stale).toBeInstanceOf(LeaseLostError);
    expect(stale.current).toMatchObject({ status: TaskStatus.RUNNING, attempt: 2 });
    expect(lateRetry).toBeInstanceOf(LeaseLostError);
    expect(lateRetry.current).toEqual(done);
    const final = await current('complete-takeover');
    expect(final).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      result: { by: 'b' },
      workerId: 'worker-b',
    });
    expect(final.history.map((h) => [h.event, h.attempt, h.workerId])).toEqual([
      [AuditEvent.SUBMITTED, 0, undefined],
      [AuditEvent.SENT, 0, undefined],
      [AuditEvent.CLAIMED, 1, 'worker-a'],
      [AuditEvent.CLAIMED, 2, 'worker-b'],
      [AuditEvent.SUCCEEDED, 2, 'worker-b'],
    ]);
  });
});

describe('TaskStore.retry', () => {
  it('retries only the RUNNING task under its own lease; every other status loses', async () => {
    // Arrange
    const selection = await seedSelection('retry');
    const before = await snapshot(selection);

    // Act
    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.retry(lease ?? forgedLease(record), record.type, { name: 'E', message: 'm' }, 0),
    );

    // Assert
    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('returns the task to QUEUED with lastError, keeps the attempt, and drops the lease', async () => {
    // Arrange
    const { lease } = await createRunning('retry-ok', 'worker-a');
    now += 3_000;

    // Act
    const record = await store.retry(
      lease,
      'report.build',
      { name: 'TimeoutError', message: 'upstream slow' },
      5_000,
    );

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.QUEUED,
      attempt: 1,
      lastError: { name: 'TimeoutError', message: 'upstream slow' },
      leaseToken: undefined,
      leaseExpiresAt: undefined,
      finishedAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.RETRY_SCHEDULED,
      at: now,
      attempt: 1,
      status: TaskStatus.QUEUED,
      workerId: 'worker-a',
      detail: 'TimeoutError: upstream slow (next attempt in 5000 ms)',
    });
    const item = await rawItem('retry-ok');
    expect(item).not.toHaveProperty('leaseToken');
    expect(item.statusAt).toBe(now + 5_000);
    expect(item).not.toHaveProperty('expiresAt');
  });

  it('lets the next claim start the following attempt', async () => {
    // Arrange
    const { lease } = await createRunning('retry-next', 'worker-a');
    const requeued = await store.retry(lease, 'report.build', { name: 'E', message: 'm' }, 0);

    // Act
    const next = await store.claim(requeued, { workerId: 'worker-b', leaseMs: LEASE_MS });

    // Assert
    expect(next.lease.attempt).toBe(2);
    expect(next.record.lastError).toEqual({ name: 'E', message: 'm' });
  });

  it('refuses a wrong lease token with LeaseLostError and leaves the record alone', async () => {
    const { record, lease } = await createRunning('retry-token');

    const err = await rejection(
      store.retry({ ...lease, leaseToken: 'nope' }, 'report.build', { name: 'E', message: 'm' }, 0),
    );

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('retry-token')).toEqual(record);
  });
});

describe('TaskStore.kill', () => {
  it('kills only the RUNNING task under its own lease; every other status loses', async () => {
    // Arrange
    const selection = await seedSelection('kill');
    const before = await snapshot(selection);

    // Act
    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.kill(lease ?? forgedLease(record), record.type, 'poison'),
    );

    // Assert
    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('writes DEAD with the reason, the error and the finish time, and drops the lease', async () => {
    // Arrange
    const { lease } = await createRunning('kill-ok', 'worker-a');
    now += 1_500;

    // Act
    const record = await store.kill(lease, 'report.build', 'permanent error: no such month', {
      error: { name: 'PermanentError', message: 'no such month' },
    });

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.DEAD,
      attempt: 1,
      deadReason: 'permanent error: no such month',
      lastError: { name: 'PermanentError', message: 'no such month' },
      finishedAt: now,
      leaseToken: undefined,
      leaseExpiresAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.DEAD,
      at: now,
      attempt: 1,
      status: TaskStatus.DEAD,
      workerId: 'worker-a',
      detail: 'permanent error: no such month',
    });
  });

  it('refuses a wrong lease token with LeaseLostError', async () => {
    const { record, lease } = await createRunning('kill-token');

    const err = await rejection(store.kill({ ...lease, leaseToken: 'x' }, 'report.build', 'r'));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('kill-token')).toEqual(record);
  });

  it('with leaseExpired, refuses while the lease is still live', async () => {
    // Arrange: another worker saw the record and wants to declare it dead.
    const { record } = await createRunning('kill-live', 'worker-a', { maxAttempts: 1 });
    const observed: Lease = {
      taskId: record.id,
      attempt: record.attempt,
      leaseToken: record.leaseToken ?? '',
      workerId: 'worker-b',
    };
    now += LEASE_MS - 1;

    // Act
    const err = await rejection(
      store.kill(observed, 'report.build', 'lease expired on the final attempt', {
        leaseExpired: true,
      }),
    );

    // Assert
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('kill-live')).toEqual(record);
  });

  it('with leaseExpired, kills once the lease has expired', async () => {
    // Arrange
    const { record } = await createRunning('kill-expired', 'worker-a', { maxAttempts: 1 });
    const observed: Lease = {
      taskId: record.id,
      attempt: record.attempt,
      leaseToken: record.leaseToken ?? '',
      workerId: 'worker-b',
    };
    now += LEASE_MS + 1;

    // Act
    const dead = await store.kill(observed, 'report.build', 'lease expired on the final attempt', {
      leaseExpired: true,
    });

    // Assert
    expect(dead).toMatchObject({
      status: TaskStatus.DEAD,
      attempt: 1,
      deadReason: 'lease expired on the final attempt',
    });
    expect(dead.history.at(-1)).toMatchObject({
      event: AuditEvent.DEAD,
      attempt: 1,
      workerId: 'worker-b',
    });
  });

  it('kills at the very millisecond the final lease expires, as decideClaim does', async () => {
    // Arrange
    const { record } = await createRunning('kill-at-expiry', 'worker-a', { maxAttempts: 1 });
    now = T0 + LEASE_MS;
    expect(record.leaseExpiresAt).toBe(now);

    // Act
    const dead = await store.kill(
      leaseSeenBy(record, 'worker-b'),
      'report.build',
      'lease expired on the final attempt',
      { leaseExpired: true },
    );

    // Assert
    expect(decideClaim(record, now)).toEqual({ kind: 'expire' });
    expect(dead).toMatchObject({ status: TaskStatus.DEAD, attempt: 1, finishedAt: now });
    expect(dead.history.at(-1)).toMatchObject({ event: AuditEvent.DEAD, workerId: 'worker-b' });
  });

  it('refuses one millisecond before the final lease expires, as decideClaim does', async () => {
    // Arrange
    const { record } = await createRunning('kill-before-expiry', 'worker-a', { maxAttempts: 1 });
    now = T0 + LEASE_MS - 1;

    // Act
    const err = await rejection(
      store.kill(
        leaseSeenBy(record, 'worker-b'),
        'report.build',
        'lease expired on the final attempt',
        { leaseExpired: true },
      ),
    );

    // Assert
    expect(decideClaim(record, now)).toMatchObject({ kind: 'defer', delayMs: 1 });
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('kill-before-expiry')).toEqual(record);
  });
});

describe('TaskStore.extendLease', () => {
  it('extends only the RUNNING task under its own lease; every other status loses', async () => {
    // Arrange
    const selection = await seedSelection('extend');
    const before = await snapshot(selection);

    // Act
    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.extendLease(lease ?? forgedLease(record), record.type, LEASE_MS),
    );

    // Assert
    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('moves the lease expiry and the status sort key forward, staying RUNNING', async () => {
    // Arrange
    const { record: claimed, lease } = await createRunning('extend-ok', 'worker-a');
    now += 50_000;

    // Act
    const record = await store.extendLease(lease, 'report.build', LEASE_MS);

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 1,
      leaseToken: claimed.leaseToken,
      leaseExpiresAt: now + LEASE_MS,
      heartbeats: 1,
      lastHeartbeatAt: now,
    });
    expect(record.history).toEqual(claimed.history);
    expect((await rawItem('extend-ok')).statusAt).toBe(now + LEASE_MS);
  });

  it('keeps a live, extended lease from being taken over', async () => {
    // Arrange
    const { lease } = await createRunning('extend-hold', 'worker-a');
    now += LEASE_MS - 1_000;
    const extended = await store.extendLease(lease, 'report.build', LEASE_MS);
    now += 2_000; // Past the original expiry, inside the extended one.

    // Act
    const err = await rejection(store.claim(extended, { workerId: 'worker-b', leaseMs: LEASE_MS }));

    // Assert
    expect(err.current).toEqual(extended);
  });

  it('refuses the old lease after a takeover, leaving the new lease alone', async () => {
    // Arrange
    const first = await createRunning('extend-takeover', 'worker-a');
    now += LEASE_MS + 1;
    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    // Act
    const err = await rejection(store.extendLease(first.lease, 'report.build', LEASE_MS));

    // Assert
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(second.record);
    expect(await current('extend-takeover')).toEqual(second.record);
  });
});

describe('TaskStore.cancel', () => {
  it('cancels only PENDING and QUEUED tasks, and refuses every other status', async () => {
    // Arrange
    const selection = await seedSelection('cancel');
    const before = await snapshot(selection);

    // Act
    const outcomes = await attemptOnEach(selection, ({ record }) =>
      store.cancel(record, 'user asked'),
    );

    // Assert
    expect(outcomes).toEqual(
      expectedOutcomes([TaskStatus.PENDING, TaskStatus.QUEUED], ErrorCode.TRANSITION_REJECTED),
    );
    expect((await changedSince(before)).sort()).toEqual(
      [selection.PENDING.record.id, selection.QUEUED.record.id].sort(),
    );
  });

  it('writes CANCELLED with the reason in the history', async () => {
    // Arrange
    const queued = await createQueued('cancel-ok');
    now += 700;

    // Act
    const record = await store.cancel(queued, 'duplicate order');

    // Assert
    expect(record).toMatchObject({ status: TaskStatus.CANCELLED, attempt: 0, finishedAt: now });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.CANCELLED,
      at: now,
      attempt: 0,
      status: TaskStatus.CANCELLED,
      detail: 'duplicate order',
    });
  });

  it('refuses a stale read whose attempt is no longer current', async () => {
    // Arrange
    const seen = await createQueued('cancel-stale');
    const { lease } = await store.claim(seen, { workerId: 'w', leaseMs: LEASE_MS });
    const requeued = await store.retry(lease, 'report.build', { name: 'E', message: 'm' }, 0);

    // Act
    const err = await rejection(store.cancel(seen));

    // Assert
    expect(err.current).toEqual(requeued);
  });
});

describe('TaskStore history and status index', () => {
  it('appends exactly one history entry and re-keys the status index on every transition', async () => {
    // Arrange
    const id = 'history-life';
    const shard = statusShard(id, SHARDS);
    const steps: Array<[string, () => Promise<TaskRecord>]> = [];
    let lease: Lease | undefined;
    const held = () => {
      if (lease === undefined) throw new Error('no lease');
      return lease;
    };
    steps.push(['markSent', async () => store.markSent(await current(id))]);
    steps.push([
      'claim',
      async () => {
        const out = await store.claim(await current(id), { workerId: 'w1', leaseMs: LEASE_MS });
        lease = out.lease;
        return out.record;
      },
    ]);
    steps.push([
      'retry',
      () => store.retry(held(), 'report.build', { name: 'E', message: 'm' }, 0),
    ]);
    steps.push([
      'claim again',
      async () => {
        const out = await store.claim(await current(id), { workerId: 'w2', leaseMs: LEASE_MS });
        lease = out.lease;
        return out.record;
      },
    ]);
    steps.push(['extendLease', () => store.extendLease(held(), 'report.build', LEASE_MS)]);
    steps.push(['complete', () => store.complete(held(), 'report.build', '{"ok":1}')]);
    const created = (await store.create(newTask(id))).record;
    let previous = created.history;
    expect(previous).toHaveLength(1);
    expect((await rawItem(id)).statusShard).toBe(`PENDING#${shard}`);

    for (const [name, step] of steps) {
      now += 1_000;

      // Act
      const record = await step();

      // Assert: a heartbeat is counted, not added to the history.
      if (name === 'extendLease') {
        expect(record.history, name).toEqual(previous);
        expect(record, name).toMatchObject({ heartbeats: 1, lastHeartbeatAt: now });
        continue;
      }
      expect(record.history, name).toHaveLength(previous.length + 1);
      expect(record.history.slice(0, previous.length), name).toEqual(previous);
      expect(record.history.at(-1)?.status, name).toBe(record.status);
      expect(record.history.at(-1)?.at, name).toBe(now);
      expect(record.history.at(-1)?.attempt, name).toBe(record.attempt);
      const item = await rawItem(id);
      expect(item.statusShard, name).toBe(`${record.status}#${shard}`);
      expect(item.statusShard, name).toMatch(/^[A-Z]+#[0-7]$/);
      expect(item.updatedAt, name).toBe(now);
      previous = record.history;
    }

    const final = await current(id);
    expect(final.history.map((h) => [h.event, h.attempt, h.status, h.workerId])).toEqual([
      [AuditEvent.SUBMITTED, 0, TaskStatus.PENDING, undefined],
      [AuditEvent.SENT, 0, TaskStatus.QUEUED, undefined],
      [AuditEvent.CLAIMED, 1, TaskStatus.RUNNING, 'w1'],
      [AuditEvent.RETRY_SCHEDULED, 1, TaskStatus.QUEUED, 'w1'],
      [AuditEvent.CLAIMED, 2, TaskStatus.RUNNING, 'w2'],
      [AuditEvent.SUCCEEDED, 2, TaskStatus.SUCCEEDED, 'w2'],
    ]);
  });

  it('keys every seeded status in the index under the same shard', async () => {
    // Arrange
    const selection = await seedSelection('index');

    for (const status of SEEDED_STATUSES) {
      // Act
      const { id } = selection[status].record;
      const item = await rawItem(id);

      // Assert
      expect(item.statusShard).toBe(`${status}#${statusShard(id, SHARDS)}`);
      expect(item.status).toBe(status);
      expect(typeof item.statusAt).toBe('number');
    }
  });

  it('adds nothing to the history when a transition is refused', async () => {
    // Arrange
    const { record, lease } = await createRunning('history-refused');

    // Act
    await rejection(store.complete({ ...lease, leaseToken: 'x' }, 'report.build', '{}'));
    await rejection(store.cancel(record));
    await rejection(store.markSent(record));

    // Assert
    expect((await current('history-refused')).history).toEqual(record.history);
  });
});

describe('TaskStore item size', () => {
  /** As long as a Lambda worker id gets: a 64-character function name and its log stream. */
  const LAMBDA_WORKER_ID = `${'f'.repeat(64)}/2030/01/01/[$LATEST]${'0'.repeat(32)}`;
  const ATTEMPTS = Defaults.MAX_ATTEMPTS_LIMIT;

  it('keeps the largest task writable through every attempt, each failing with a long error', async () => {
    // Arrange: the largest payload and the most attempts a task definition allows.
    const definition = defineTask('report.build', {
      schema: z.string(),
      handler: () => undefined,
      retry: { maxAttempts: ATTEMPTS },
    });
    const payload = 'x'.repeat(Defaults.MAX_PAYLOAD_BYTES - 2); // Plus two quotes as JSON.
    const task = await prepareTask(
      definition,
      payload,
      { id: 'size-worst' },
      Defaults.MAX_PAYLOAD_BYTES,
    );
    expect(Buffer.byteLength(task.payloadJson)).toBe(Defaults.MAX_PAYLOAD_BYTES);
    expect(task.maxAttempts).toBe(ATTEMPTS);
    const error: TaskErrorInfo = { name: 'UpstreamError', message: 'e'.repeat(2_000) };
    let record = await createQueued(task.id, task);

    // Act: the processor's writes, attempt after attempt; the final failure kills the task.
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      now += 1_000;
      const { lease } = await store.claim(record, {
        workerId: LAMBDA_WORKER_ID,
        leaseMs: LEASE_MS,
        detail: `message ${randomUUID()}, receive ${attempt}`,
      });
      now += 1_000;
      record =
        attempt < ATTEMPTS
          ? await store.retry(lease, task.type, error, Defaults.RETRY_MAX_DELAY_MS)
          : await store.kill(
              lease,
              task.type,
              `failed ${attempt} of ${ATTEMPTS} attempts; last error: ${error.name}: ${error.message}`,
              { error },
            );
    }

    // Assert
    expect(record).toMatchObject({ status: TaskStatus.DEAD, attempt: ATTEMPTS, payload });
    // The history kept its budget: the first entries and the newest; the rest are counted.
    expect(record.history.length + record.historyTruncated).toBe(2 + ATTEMPTS + (ATTEMPTS - 1) + 1);
    expect(record.historyTruncated).toBeGreaterThan(0);
    expect(historyBytes(record.history)).toBeLessThanOrEqual(Defaults.HISTORY_BUDGET_BYTES);
    expect(record.history[0]?.event).toBe(AuditEvent.SUBMITTED);
    expect(record.history.slice(-2).map((h) => [h.event, h.attempt])).toEqual([
      [AuditEvent.CLAIMED, ATTEMPTS],
      [AuditEvent.DEAD, ATTEMPTS],
    ]);
    for (const entry of record.history) {
      expect(entry.detail?.length ?? 0).toBeLessThanOrEqual(240);
    }
    expect(record.history.at(-1)?.detail).toHaveLength(240);
    expect(record.history.at(-1)?.detail).toMatch(/^failed \d+ of \d+ attempts; last error: .*…$/);
    expect(record.deadReason).toHaveLength(1_000);
    expect(record.deadReason?.endsWith('…')).toBe(true);
    expect(await current(task.id)).toEqual(record);
  }, 180_000); // 200 writes of a 256 KB item: slow on the emulator under load.
});

describe('TaskStore TTL', () => {
  it('sets expiresAt (epoch seconds) on SUCCEEDED and CANCELLED, and none on DEAD', async () => {
    // Arrange
    const selection = await seedSelection('ttl');
    const expected = Math.floor(T0 / 1000) + RETENTION_SECONDS;

    // Act
    const items = Object.fromEntries(
      await Promise.all(
        SEEDED_STATUSES.map(async (s) => [s, await rawItem(selection[s].record.id)] as const),
      ),
    );

    // Assert
    expect(items.SUCCEEDED?.expiresAt).toBe(expected);
    expect(items.CANCELLED?.expiresAt).toBe(expected);
    for (const status of ['PENDING', 'QUEUED', 'RUNNING', 'DEAD'] as const) {
      expect(items[status], status).not.toHaveProperty('expiresAt');
    }
  });

  it('honours a custom retention', async () => {
    // Arrange
    const shortLived = new TaskStore({
      tableName,
      dynamodb,
      logger: silentLogger,
      clock: () => now,
      retention: 60_000,
    });
    const { record } = await shortLived.create(newTask('ttl-custom'));

    // Act
    await shortLived.cancel(record);

    // Assert
    expect((await rawItem('ttl-custom')).expiresAt).toBe(Math.floor(T0 / 1000) + 60);
  });
});

describe('TaskStore.list', () => {
  const TASKS_PER_SHARD = 4;
  let listTable: string;
  let listStore: TaskStore;
  /** Ids by the status they were left in. */
  const byStatus: Record<'PENDING' | 'QUEUED' | 'RUNNING', string[]> = {
    PENDING: [],
    QUEUED: [],
    RUNNING: [],
  };
  /** statusAt of each PENDING task (its creation time). */
  const createdAt = new Map<string, number>();

  /** Ids `list-NNN` picked so every shard holds the same number of tasks. */
  function balancedIds(): string[] {
    const perShard = new Map<number, string[]>();
    for (let n = 0; [...perShard.values()].flat().length < SHARDS * TASKS_PER_SHARD; n++) {
      const id = `list-${String(n).padStart(3, '0')}`;
      const ids = perShard.get(statusShard(id, SHARDS)) ?? [];
      if (ids.length < TASKS_PER_SHARD) perShard.set(statusShard(id, SHARDS), [...ids, id]);
    }
    return [...perShard.values()].flat().sort();
  }

  async function listAll(
    status: TaskStatus,
    options: { limit?: number; before?: number } = {},
  ): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listStore.list(status, { ...options, ...(cursor ? { cursor } : {}) });
      if (options.limit !== undefined) expect(page.items.length).toBeLessThanOrEqual(options.limit);
      for (const item of page.items) expect(item.status).toBe(status);
      ids.push(...page.items.map((item) => item.id));
      cursor = page.cursor;
      pages += 1;
      expect(pages).toBeLessThan(100);
    } while (cursor !== undefined);
    return { ids, pages };
  }

  /** The base64url JSON form of a cursor, for forging ones list never returned. */
  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  /** The ValidationError a refused list call rejects with. */
  async function listRejection(options: { limit?: number; cursor?: string }) {
    const err = await listStore.list(TaskStatus.QUEUED, options).then(
      () => {
        throw new Error('expected list to be refused');
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }

  beforeAll(async () => {
    const executor = await provision(executorSettings({ name: uniqueName('store-list') }), {
      sqs,
      dynamodb,
    });
    listTable = executor.tableName;
    listStore = storeFor(listTable);
    // Arrange: 32 tasks, 4 per shard; a third left PENDING, a third QUEUED, a third RUNNING.
    const ids = balancedIds();
    for (const [n, id] of ids.entries()) {
      now = T0 + n * 1_000;
      const { record } = await listStore.create(newTask(id));
      if (n % 3 === 0) {
        byStatus.PENDING.push(id);
        createdAt.set(id, now);
        continue;
      }
      const queued = await listStore.markSent(record);
      if (n % 3 === 1) {
        byStatus.QUEUED.push(id);
        continue;
      }
      await listStore.claim(queued, { workerId: 'w', leaseMs: LEASE_MS });
      byStatus.RUNNING.push(id);
    }
  });

  it('spreads the seeded tasks over all 8 shards', async () => {
    const shards = new Set<string>();
    for (const id of [...byStatus.PENDING, ...byStatus.QUEUED, ...byStatus.RUNNING]) {
      shards.add(String((await rawItem(id, listTable)).statusShard).split('#')[1] ?? '');
    }

    expect([...shards].sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
  });

  it.each([TaskStatus.PENDING, TaskStatus.QUEUED, TaskStatus.RUNNING] as const)(
    'returns exactly the %s tasks, from every shard',
    async (status) => {
      // Act
      const { ids } = await listAll(status);

      // Assert
      expect(ids.sort()).toEqual([...byStatus[status]].sort());
    },
  );

  it('returns an empty last page for a status no task is in', async () => {
    const page = await listStore.list(TaskStatus.SUCCEEDED);

    expect(page).toEqual({ items: [], cursor: undefined });
  });

  it.each([1, 3, 5, 7, 10, 11, 100, 1_000])(
    'pages through every QUEUED and RUNNING task with limit %i, without duplicates or gaps',
    async (limit) => {
      // Act
      const queued = await listAll(TaskStatus.QUEUED, { limit });
      const running = await listAll(TaskStatus.RUNNING, { limit });

      // Assert
      for (const [status, result] of [
        [TaskStatus.QUEUED, queued],
        [TaskStatus.RUNNING, running],
      ] as const) {
        expect(new Set(result.ids).size).toBe(result.ids.length);
        expect([...result.ids].sort()).toEqual([...byStatus[status]].sort());
        expect(result.pages).toBeGreaterThanOrEqual(Math.ceil(byStatus[status].length / limit));
      }
    },
  );

  it('keeps only entries whose status sort key is before `before`', async () => {
    // Arrange: PENDING tasks are keyed by creation time.
    const cutoff = T0 + 16 * 1_000;
    const expected = byStatus.PENDING.filter((id) => (createdAt.get(id) ?? 0) < cutoff);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(byStatus.PENDING.length);

    // Act
    const { ids } = await listAll(TaskStatus.PENDING, { before: cutoff, limit: 2 });

    // Assert
    expect(ids.sort()).toEqual(expected.sort());
  });

  it('finds expired leases with `before: now` (RUNNING is keyed by lease expiry)', async () => {
    // Arrange
    const lastExpiry = T0 + 32 * 1_000 + LEASE_MS;

    // Act
    const noneYet = await listAll(TaskStatus.RUNNING, { before: T0 + LEASE_MS });
    const all = await listAll(TaskStatus.RUNNING, { before: lastExpiry + 1 });

    // Assert
    expect(noneYet.ids).toEqual([]);
    expect(all.ids.sort()).toEqual([...byStatus.RUNNING].sort());
  });

  it('uses the status index and never a Scan', async () => {
    // Arrange
    sentCommands.length = 0;

    // Act
    await listAll(TaskStatus.PENDING);
    await listAll(TaskStatus.QUEUED, { limit: 3 });
    await listAll(TaskStatus.RUNNING, { before: T0 + LEASE_MS * 2 });
    await listAll(TaskStatus.DEAD);

    // Assert
    expect(sentCommands.length).toBeGreaterThanOrEqual(4 * SHARDS);
    expect(new Set(sentCommands)).toEqual(new Set(['QueryCommand']));
    expect(sentCommands).not.toContain('ScanCommand');
  });

  it.each([0, -1, 1.5, 1_001, Number.NaN])(
    'rejects limit %s with a ValidationError on `limit`, sending no query',
    async (limit) => {
      // Arrange
      sentCommands.length = 0;

      // Act
      const err = await listRejection({ limit });

      // Assert
      expect(err.issues).toEqual([
        { path: 'limit', message: `expected an integer from 1 to 1000, received ${limit}` },
      ]);
      expect(sentCommands).toEqual([]);
    },
  );

  it.each([
    ['a string that is not base64url JSON', 'garbage'],
    ['JSON that is not an object', cursorOf(null)],
    ['no shard', cursorOf({ startKey: { pk: 'list-000' } })],
    ['a shard past the last one', cursorOf({ shard: 99 })],
    ['a negative shard', cursorOf({ shard: -1 })],
    ['a fractional shard', cursorOf({ shard: 1.5 })],
    ['a string startKey', cursorOf({ shard: 0, startKey: 'list-000' })],
    ['a null startKey', cursorOf({ shard: 0, startKey: null })],
  ])(
    'rejects a cursor with %s with a ValidationError on `cursor`, sending no query',
    async (_label, cursor) => {
      // Arrange
      sentCommands.length = 0;

      // Act
      const err = await listRejection({ cursor });

      // Assert
      expect(err.issues).toEqual([
        { path: 'cursor', message: 'expected a cursor returned by a previous list call' },
      ]);
      expect(sentCommands).toEqual([]);
    },
  );
});
