/**
 * The transition table against one task in every status: each row of `ALL_TRANSITIONS` is
 * applied to a task seeded in each status, with every fence but the status satisfied, so the
 * status alone decides. A row must accept exactly its `from` states; a refused write must
 * leave the item as it was, and an accepted one change only what the row declares. A row on
 * an item that is no task's (a pointer, a bucket, a park item) must accept whatever the
 * status and leave the task alone. A row without a fixture here fails the first test, so a
 * new row is covered as soon as it is added.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../../../src/core/constants.js';
import { LeaseLostError, TransitionRejectedError } from '../../../src/core/errors.js';
import type { TaskRecord } from '../../../src/core/record.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { newTaskItem } from '../../../src/store/new-task.js';
import { fromItem, statusShard, statusShardKey } from '../../../src/store/record.js';
import { isIndexed } from '../../../src/store/status-index-keys.js';
import { type WriteContext, writeContext } from '../../../src/store/store-context.js';
import { ALL_TRANSITIONS, type Lease, type Row } from '../../../src/store/transitions/index.js';
import { writeTransition } from '../../../src/store/transitions/move.js';
import { fromStates, TRANSITION_WRITES } from '../../../src/store/transitions/row.js';
import { send } from '../../../src/store/transitions/writer.js';
import {
  dynamodb,
  newTask,
  store,
  T0,
  tableName,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('transition-matrix');

const STATUSES = Object.values(TaskStatus);
const LEASE_TOKEN = 'lease-matrix';
const CREATED = T0 - 60_000;
const UPDATED = T0 - 30_000;
type Item = Record<string, unknown>;

/** How a row is applied in the matrix: what it is given, and what the seed needs for it. */
interface Fixture {
  /** Changes to the seeded task that the row's fences need (besides its status). */
  readonly seed?: Item;
  /** Other items the row acts on, written before it. */
  readonly extra?: (id: string) => Item[];
  readonly input: (record: TaskRecord) => unknown;
}

const lease = (record: TaskRecord): Lease => ({
  taskId: record.id,
  taskType: record.type,
  attempt: record.attempt,
  leaseToken: LEASE_TOKEN,
  workerId: 'worker-m',
});
const parent = { id: 'matrix-parent', status: TaskStatus.SUCCEEDED };
const entry = (record: TaskRecord) => ({
  event: AuditEvent.DUPLICATE_DROPPED,
  at: T0,
  attempt: record.attempt,
  status: record.status,
});
const spec = { key: 'matrix-key', windowMs: 1000, mode: 'first' } as const;

/** One fixture per row name. */
const FIXTURES: Readonly<Record<string, Fixture>> = {
  create: {
    input: (record) => ({ item: newTaskItem(store, newTask(record.id), T0).item }),
  },
  claim: {
    // A SUSPENDED task is claimable once its timer has ended.
    seed: { wakeAt: T0 - 1000 },
    input: (record) => ({
      target: { id: record.id, type: record.type, attempt: record.attempt },
      workerId: 'worker-m',
      leaseToken: 'lease-new',
      leaseMs: 60_000,
      fresh: false,
    }),
  },
  'extend the lease of': { input: (record) => ({ lease: lease(record), leaseMs: 60_000 }) },
  complete: { input: (record) => ({ lease: lease(record), resultJson: '{"ok":true}' }) },
  retry: {
    input: (record) => ({
      lease: lease(record),
      error: { name: 'Error', message: 'boom' },
      delayMs: 1000,
    }),
  },
  kill: { input: (record) => ({ lease: lease(record), reason: 'permanent' }) },
  'kill and park': {
    input: (record) => ({ lease: lease(record), reason: 'permanent', parkedKey: 'key-m' }),
  },
  unclaim: {
    // After the handler ran (a durable step met the outage), so `ranUnspent` is written too.
    input: (record) => ({
      lease: lease(record),
      reason: 'S3 down',
      takeover: false,
      delayMs: 0,
      ran: true,
    }),
  },
  expire: { input: (record) => ({ seen: record, reason: 'lease ran out', actor: 'sweeper' }) },
  'expire and park': {
    input: (record) => ({
      seen: record,
      reason: 'lease ran out',
      actor: 'sweeper',
      parkedKey: 'key-m',
    }),
  },
  'end as cancelled': {
    seed: { cancelRequestedAt: T0 - 1000 },
    input: (record) => ({ lease: lease(record), detail: 'cancelled as asked' }),
  },
  cancel: { input: (record) => ({ seen: record, reason: 'not needed' }) },
  requeue: { input: (record) => ({ seen: record, reason: 'lease lost', actor: 'sweeper' }) },
  resend: { input: (record) => ({ seen: record, overdueBefore: T0, actor: 'sweeper' }) },
  redrive: { input: (record) => ({ seen: record, reason: 'fixed' }) },
  'redrive parked': {
    seed: { parkedKey: 'key-m' },
    input: (record) => ({ seen: record, parkedKey: 'key-m' }),
  },
  'release the key of': {
    seed: { parkedKey: 'key-m' },
    input: (record) => ({ seen: record, parkedKey: 'key-m' }),
  },
  'roll back': {
    seed: { attempt: 0 },
    input: (record) => ({ seen: record, reason: 'no schedule' }),
  },
  release: {
    seed: { waitingOn: 1, parents: [parent.id] },
    input: (record) => ({ seen: record, parent, detail: 'parent done' }),
  },
  'cancel for its parent': {
    seed: { waitingOn: 1, parents: [parent.id] },
    input: (record) => ({ seen: record, parent, detail: 'parent dead' }),
  },
  purge: { input: (record) => ({ seen: record }) },
  'confirm the schedule of': { seed: { attempt: 0 }, input: (record) => ({ seen: record }) },
  'note a duplicate of': { input: (record) => ({ id: record.id, entry: entry(record) }) },
  'note the re-send of': { input: (record) => ({ seen: record, nextAt: T0 + 60_000 }) },
  'request the cancel of': { input: (record) => ({ id: record.id, entry: entry(record) }) },
  'add a dependent to': { input: (record) => ({ parentId: record.id, childId: 'matrix-child' }) },
  'count a parent of': {
    seed: { waitingOn: 2, parents: [parent.id, 'matrix-other'] },
    input: (record) => ({ seen: record, parentId: parent.id }),
  },
  'finish the release of': {
    seed: { [TableSchema.STATUS_INDEX_PARTITION_KEY]: 'RELEASE#0' },
    input: (record) => ({ parent: { id: record.id, status: record.status } }),
  },
  'fold an enqueue into': {
    seed: { attempt: 0, debounceKey: spec.key },
    input: (record) => ({ taskId: record.id, spec, replacement: undefined, runAt: 'move' }),
  },
  'advance the debounce pointer': {
    input: (record) => ({ key: `debounce ${record.id}`, generation: 2, keepUntil: T0 }),
  },
  'check the park of': {
    seed: { parkedKey: 'key-m' },
    input: (record) => ({ task: record, parkedKey: 'key-m' }),
  },
  'write the park item of': {
    input: (record) => ({ item: { pk: `parked-key ${record.id}`, taskId: record.id } }),
  },
  'delete the park item of': {
    extra: (id) => [{ pk: `parked-key ${id}`, taskId: id }],
    input: (record) => ({ key: `parked-key ${record.id}`, taskId: record.id }),
  },
  'save the checkpoint of': {
    input: (record) => ({
      lease: lease(record),
      leaseExpiresAt: T0 + 60_000,
      checkpoint: { json: '{"n":1}' },
    }),
  },
  continue: {
    input: (record) => ({ lease: lease(record), continuations: 0, maxContinuations: 10 }),
  },
  'redrive afresh': { input: (record) => ({ seen: record, reason: 'fixed', stepEpoch: 1 }) },
  'redrive parked afresh': {
    seed: { parkedKey: 'key-m' },
    input: (record) => ({ seen: record, parkedKey: 'key-m', stepEpoch: 1 }),
  },
  'store the step of': {
    input: (record) => ({ item: { pk: `step ${record.id} 0 0`, taskId: record.id, name: 'a' } }),
  },
  'store the thrown marker of': {
    input: (record) => ({
      item: { pk: `step ${record.id} 0 0`, taskId: record.id, name: 'a', threw: true },
    }),
  },
  'delete the step of': {
    extra: (id) => [{ pk: `step ${id} 0 0`, taskId: id, name: 'a' }],
    input: (record) => ({ key: `step ${record.id} 0 0`, taskId: record.id }),
  },
  suspend: {
    input: (record) => ({
      lease: lease(record),
      wait: { kind: 'sleep', step: 0, name: 'nap', epoch: 0, until: T0 + 60_000 },
    }),
  },
  'note the held message of': {
    input: (record) => ({ seen: record, held: { receiptHandle: 'h', queueArn: 'q', heldAt: T0 } }),
  },
  'note the wake of': { input: (record) => ({ seen: record, nextAt: T0 + 60_000 }) },
  'note the signal wake of': {
    seed: { wait: { k: 'signal', p: 0, n: 'approve', e: 0 } },
    input: (record) => ({ seen: record, nextAt: T0 }),
  },
  'check the signalled task': { input: (record) => ({ seen: record, name: 'approve' }) },
  'check the signalled waiter': {
    seed: { wait: { k: 'signal', p: 0, n: 'approve', e: 0 } },
    input: (record) => ({ seen: record, name: 'approve' }),
  },
  'check the signalled sleeper': {
    seed: { wait: { k: 'sleep', p: 0, n: 'nap', e: 0 } },
    input: (record) => ({ seen: record, name: 'approve' }),
  },
  'count a signal in the head of': {
    input: (record) => ({
      key: `signal ${record.id} head`,
      task: record,
      seen: undefined,
      epoch: 0,
      seq: 0,
      expiresAt: undefined,
    }),
  },
  'unfile the signal head of': {
    extra: (id) => [
      {
        pk: `signal ${id} head`,
        taskId: id,
        epoch: 0,
        count: 1,
        [TableSchema.STATUS_INDEX_PARTITION_KEY]: 'WAKE#0',
        [TableSchema.STATUS_INDEX_SORT_KEY]: T0,
      },
    ],
    input: (record) => ({ key: `signal ${record.id} head`, epoch: 0, count: 1 }),
  },
  'store the signal of': {
    input: (record) => ({ item: { pk: `signal ${record.id} 0 0`, taskId: record.id, name: 'a' } }),
  },
  'delete the signal of': {
    extra: (id) => [{ pk: `signal ${id} 0 0`, taskId: id, name: 'a' }],
    input: (record) => ({ key: `signal ${record.id} 0 0`, taskId: record.id }),
  },
  pause: { input: (record) => ({ seen: record, reason: 'hold on' }) },
  'request the pause of': { input: (record) => ({ id: record.id, entry: entry(record) }) },
  'withdraw the pause request of': {
    seed: { pauseRequestedAt: T0 - 1000 },
    input: (record) => ({ id: record.id, entry: entry(record) }),
  },
  'end as paused': {
    seed: { pauseRequestedAt: T0 - 1000 },
    input: (record) => ({ lease: lease(record), detail: 'paused as asked' }),
  },
  resume: { seed: { pausedFrom: 'QUEUED' }, input: (record) => ({ seen: record }) },
  'resume scheduled': {
    seed: { pausedFrom: 'SCHEDULED' },
    input: (record) => ({ seen: record, runAt: T0 + 60_000 }),
  },
  'resume suspended': {
    seed: { pausedFrom: 'SUSPENDED', wait: { k: 'sleep', p: 0, n: 'nap', e: 0 } },
    input: (record) => ({
      seen: record,
      wait: { kind: 'sleep', step: 0, name: 'nap', epoch: 0, until: T0 + 60_000 },
      woken: false,
      signals: 0,
    }),
  },
  'pause the lane': {
    input: (record) => ({
      key: `lane-control ${record.id}`,
      lane: 'bulk',
      reason: 'matrix',
      principal: 'arn:aws:iam::000000000000:user/op',
      mappings: ['uuid-1'],
    }),
  },
  'resume the lane': {
    extra: (id) => [{ pk: `lane-control ${id}`, paused: true, version: 1 }],
    input: (record) => ({ key: `lane-control ${record.id}`, principal: 'op' }),
  },
  'take an idle rate bucket': {
    input: (record) => ({ key: `rate-limit ${record.id}`, now: T0, emissionMs: 1000, count: 3 }),
  },
  'take a booked rate bucket': {
    extra: (id) => [{ pk: `rate-limit ${id}`, tat: T0 + 500 }],
    input: (record) => ({
      key: `rate-limit ${record.id}`,
      now: T0,
      emissionMs: 1000,
      horizonMs: 10_000,
      count: 2,
    }),
  },
  'take the first place in a rate bucket line': {
    extra: (id) => [{ pk: `rate-limit ${id}`, tat: T0 + 20_000 }],
    input: (record) => ({
      key: `rate-limit ${record.id}`,
      full: T0 + 10_000,
      emissionMs: 1000,
      count: 2,
    }),
  },
  'take the next place in a rate bucket line': {
    extra: (id) => [{ pk: `rate-limit ${id}`, tat: T0 + 20_000, queueAt: T0 + 25_000 }],
    input: (record) => ({
      key: `rate-limit ${record.id}`,
      full: T0 + 10_000,
      emissionMs: 1000,
      count: 2,
    }),
  },
};

/** A task in `status` with every fence of the table satisfied but the status. */
function seedItem(id: string, status: TaskStatus, changes: Item = {}): Item {
  const indexed = isIndexed(status);
  return {
    pk: id,
    type: 'report.build',
    status,
    payload: '{"month":"2030-01"}',
    attempt: 1,
    maxAttempts: 3,
    timeoutMs: 30_000,
    createdAt: CREATED,
    updatedAt: UPDATED,
    // Expired, so that the writes of another actor than the holder find it run out.
    leaseToken: LEASE_TOKEN,
    leaseExpiresAt: T0 - 1000,
    history: [{ e: 'n' }],
    ...(indexed
      ? {
          [TableSchema.STATUS_INDEX_PARTITION_KEY]: statusShardKey(
            status,
            statusShard(id, store.statusShards),
          ),
          [TableSchema.STATUS_INDEX_SORT_KEY]: UPDATED,
        }
      : {}),
    ...changes,
  };
}

async function put(item: Item): Promise<void> {
  await dynamodb.send(
    new PutItemCommand({
      TableName: tableName,
      Item: marshall(item, { removeUndefinedValues: true }),
    }),
  );
}

/** The item as stored, in DynamoDB's own attribute-value form (undefined: none). */
async function stored(id: string): Promise<Record<string, unknown> | undefined> {
  const out = await dynamodb.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: id } }, ConsistentRead: true }),
  );
  return out.Item;
}

/** Applies one row through the writer; whether it landed. */
async function apply(ctx: WriteContext, row: Row, input: unknown): Promise<boolean> {
  if (row.kind === 'transition') {
    try {
      await writeTransition(ctx, row, input as never);
      return true;
    } catch (err) {
      if (err instanceof TransitionRejectedError || err instanceof LeaseLostError) return false;
      throw err;
    }
  }
  return (await send(ctx, row, input as never)).accepted;
}

/** The attributes whose stored values differ between two items. */
function changed(before: Item, after: Item): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
}

let ctx: WriteContext;
beforeAll(() => {
  ctx = writeContext(
    { tableName, dynamodb, logger: silentLogger },
    store.statusShards,
    Defaults.RETENTION_MS,
    () => T0,
  );
});

describe('ALL_TRANSITIONS', () => {
  it('has a matrix fixture for every row, and one name per row', () => {
    const names = ALL_TRANSITIONS.map((row) => row.name);

    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((name) => FIXTURES[name] === undefined)).toEqual([]);
    expect(Object.keys(FIXTURES).filter((name) => !names.includes(name))).toEqual([]);
  });
});

ALL_TRANSITIONS.forEach((row, n) => {
  const fixture = FIXTURES[row.name] as Fixture;
  describe(`row '${row.name}'`, () => {
    it.each(STATUSES)('accepts only its from states: a %s task', async (status) => {
      const id = `matrix-${n}-${status.toLowerCase()}`;
      await put(seedItem(id, status, fixture.seed));
      for (const extra of fixture.extra?.(id) ?? []) await put(extra);
      const record = fromItem(seedItem(id, status, fixture.seed));
      const input = fixture.input(record);
      const onTask = row.kind !== 'item';
      const accepts = !onTask || fromStates(row).includes(status);
      const before = await stored(id);

      const landed = await apply(ctx, row, input);

      const after = await stored(id);
      expect(landed).toBe(accepts);
      if (!landed || !onTask) {
        expect(after).toEqual(before);
        return;
      }
      if (row.writes.includes('*')) return;
      const declared =
        row.kind === 'transition' ? [...row.writes, ...TRANSITION_WRITES] : row.writes;
      const moved = changed(
        unmarshall((before ?? {}) as never),
        unmarshall((after ?? {}) as never),
      );
      expect(moved.filter((name) => !declared.includes(name))).toEqual([]);
    });
  });
});
/**
 * The fences of issue 26's rows beyond the status (docs/adr/0048-durable-sleep-signals-pause.md):
 * the matrix above satisfies them all, so that the status alone decides; here each is broken
 * on its own, in the status the row accepts, and the row must be refused and leave the item.
 */
describe("issue 26's rows refuse when a fence other than the status fails", () => {
  const signalWait = (name: string) => ({ k: 'signal', p: 0, n: name, e: 0 });
  const cases: readonly (readonly [string, TaskStatus, Item, boolean])[] = [
    // A SUSPENDED task is claimed when its timer ended or a signal woke it, never before.
    ['claim', TaskStatus.SUSPENDED, { wakeAt: T0 + 60_000 }, false],
    ['claim', TaskStatus.SUSPENDED, { wakeAt: T0 + 60_000, wokenAt: T0 - 10 }, true],
    // A run asked to pause or cancel ends as asked rather than suspending.
    ['suspend', TaskStatus.RUNNING, { pauseRequestedAt: T0 - 1000 }, false],
    ['suspend', TaskStatus.RUNNING, { cancelRequestedAt: T0 - 1000 }, false],
    // Only a run asked to pause ends PAUSED; a request is made once and withdrawn once.
    ['end as paused', TaskStatus.RUNNING, { pauseRequestedAt: undefined }, false],
    ['request the pause of', TaskStatus.RUNNING, { pauseRequestedAt: T0 - 1000 }, false],
    ['withdraw the pause request of', TaskStatus.QUEUED, { pauseRequestedAt: undefined }, false],
    // A resume goes back to where the task was paused from, and nowhere else.
    ['resume', TaskStatus.PAUSED, { pausedFrom: 'SUSPENDED' }, false],
    ['resume', TaskStatus.PAUSED, { pausedFrom: 'SCHEDULED' }, false],
    ['resume suspended', TaskStatus.PAUSED, { pausedFrom: 'QUEUED' }, false],
    ['resume scheduled', TaskStatus.PAUSED, { pausedFrom: 'PENDING' }, false],
    // A resume to SUSPENDED is fenced by the signal count an earlier version kept on the
    // record, as read (ADR 0066: the head's count is read again after the write).
    ['resume suspended', TaskStatus.PAUSED, { signals: 1 }, false],
    ['resume suspended', TaskStatus.PAUSED, { signals: 0 }, true],
    // A signal's check holds the task as the sender read it: waiting for this signal or not,
    // in the epoch read, the task read (ADR 0066).
    ['check the signalled waiter', TaskStatus.SUSPENDED, { wait: signalWait('other') }, false],
    ['check the signalled sleeper', TaskStatus.SUSPENDED, { wait: signalWait('approve') }, false],
    // A claim's or the sweeper's signal wake lands once, on a signal wait only.
    ['note the signal wake of', TaskStatus.SUSPENDED, { wokenAt: T0 - 10 }, false],
    [
      'note the signal wake of',
      TaskStatus.SUSPENDED,
      { wait: { k: 'sleep', p: 0, n: 'nap', e: 0 } },
      false,
    ],
  ];
  let n = 0;
  it.each(cases)('%s on a %s task with %j lands: %s', async (name, status, changes, lands) => {
    const row = ALL_TRANSITIONS.find((r) => r.name === name) as Row;
    const fixture = FIXTURES[name] as Fixture;
    n += 1;
    const id = `matrix-fence-${n}`;
    const seed = { ...fixture.seed, ...changes };
    await put(seedItem(id, status, seed));
    const before = await stored(id);

    const landed = await apply(ctx, row, fixture.input(fromItem(seedItem(id, status, seed))));

    expect(landed).toBe(lands);
    if (!lands) expect(await stored(id)).toEqual(before);
  });
});

/**
 * The signal head's fences (docs/adr/0066-signal-head-off-the-task-item.md): a signal counts
 * from the epoch and count its sender read (the first from none), so two signals never take
 * one position; the sweeper unfiles a head only at the count it saw.
 */
describe("the signal head rows' fences", () => {
  const head = { epoch: 0, count: 1, created: 1 };
  const cases: readonly (readonly [string, Item | undefined, unknown, boolean])[] = [
    ['count a signal in the head of', undefined, undefined, true],
    ['count a signal in the head of', head, undefined, false],
    ['count a signal in the head of', head, { epoch: 0, count: 1 }, true],
    ['count a signal in the head of', head, { epoch: 0, count: 0 }, false],
    ['count a signal in the head of', head, { epoch: 1, count: 1 }, false],
    ['unfile the signal head of', head, { epoch: 0, count: 1 }, true],
    ['unfile the signal head of', head, { epoch: 0, count: 2 }, false],
  ];
  let n = 0;
  it.each(cases)('%s over %j, having read %j, lands: %s', async (name, existing, seen, lands) => {
    const row = ALL_TRANSITIONS.find((r) => r.name === name) as Row;
    n += 1;
    const id = `matrix-head-${n}`;
    const key = `signal ${id} head`;
    if (existing !== undefined) await put({ pk: key, taskId: id, ...existing });
    const before = await stored(key);
    const input =
      name === 'unfile the signal head of'
        ? { key, ...(seen as object) }
        : { key, task: { id, createdAt: 1 }, seen, epoch: 0, seq: 1, expiresAt: undefined };

    const landed = await apply(ctx, row, input);

    expect(landed).toBe(lands);
    if (!lands) expect(await stored(key)).toEqual(before);
  });
});

/**
 * The step items' fences (docs/adr/0047-durable-tasks.md): a step's result lands on an empty
 * position or on a thrown step's marker, never on a result; a thrown step's marker lands only
 * on an empty position. A refused write leaves the item as it was.
 */
describe("the step rows' fences on the item at the position", () => {
  const result = { name: 'a', idx: 0, result: '1' };
  const marker = { name: 'a', idx: 0, threw: true };
  const cases: readonly (readonly [string, Item | undefined, boolean])[] = [
    ['store the step of', undefined, true],
    ['store the step of', marker, true],
    ['store the step of', result, false],
    ['store the thrown marker of', undefined, true],
    ['store the thrown marker of', marker, false],
    ['store the thrown marker of', result, false],
  ];
  let n = 0;
  it.each(cases)('%s over %j lands: %s', async (name, existing, lands) => {
    const row = ALL_TRANSITIONS.find((r) => r.name === name) as Row;
    n += 1;
    const pk = `step matrix-step-${n} 0 0`;
    if (existing !== undefined) await put({ pk, taskId: `matrix-step-${n}`, ...existing });
    const before = await stored(pk);
    const item = { pk, taskId: `matrix-step-${n}`, name: 'a', idx: 0, written: 'now' };

    const landed = await apply(ctx, row, { item });

    expect(landed).toBe(lands);
    const after = await stored(pk);
    if (lands) expect(after?.written).toEqual({ S: 'now' });
    else expect(after).toEqual(before);
  });
});

/**
 * A retry whose message outlives its delay leaves the task off the index
 * (docs/adr/0068-a-retry-stays-off-the-index.md): its row writes the due time and removes the
 * partition key, so no index entry is put; without `offIndex` it is keyed as QUEUED.
 */
describe("row 'retry' and the status index", () => {
  const row = ALL_TRANSITIONS.find((r) => r.name === 'retry');
  it.each([true, false])('offIndex %s', async (offIndex) => {
    if (row === undefined) throw new Error('no retry row');
    const id = `matrix-retry-off-${offIndex}`;
    await put(seedItem(id, TaskStatus.RUNNING));
    const fixture = (FIXTURES.retry as Fixture).input(fromItem(seedItem(id, TaskStatus.RUNNING)));
    const input = { ...(fixture as Record<string, unknown>), offIndex };

    expect(await apply(ctx, row, input)).toBe(true);

    const after = unmarshall((await stored(id)) as never);
    expect(after.status).toBe(TaskStatus.QUEUED);
    expect(after[TableSchema.STATUS_INDEX_SORT_KEY]).toEqual(expect.any(Number));
    if (offIndex) expect(after).not.toHaveProperty(TableSchema.STATUS_INDEX_PARTITION_KEY);
    else {
      expect(after[TableSchema.STATUS_INDEX_PARTITION_KEY]).toBe(
        statusShardKey(TaskStatus.QUEUED, statusShard(id, store.statusShards)),
      );
    }
  });
});
