/**
 * The enqueue path, in the order it runs (docs/adr/0003-outbox-and-sweeper.md): the entry is
 * checked (prepare.ts); its payload is stored in the payload bucket above the threshold and
 * tagged; its record is written with one conditional write (SCHEDULED, WAITING or PENDING;
 * an existing id is returned as it is), or, with `debounce`, the enqueue is folded into its
 * key's waiting task; then the task's schedule is arranged (delayed) or its message sent (due
 * now). `enqueueBatch` (batch.ts) takes the same steps, with the sends batched.
 */
import { payloadKey } from '../claim-check/object-ref.js';
import type { ObjectStore } from '../claim-check/object-store.js';
import { DebounceMode, TaskStatus } from '../core/constants.js';
import {
  DebounceContendedError,
  IdempotencyConflictError,
  TransitionRejectedError,
} from '../core/errors.js';
import { messageGroupOf } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDependents } from '../dependencies/release.js';
import type { IntegrityTag } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import { activeTraceparent, type TracingOption } from '../observability/tracing.js';
import type { DelayedTasks } from '../scheduler/delayed.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import type { LaneQueues } from '../settings/lanes.js';
import { DebounceStore, debounceTaskId } from '../store/debounce.js';
import { DependencyStore } from '../store/dependency-store.js';
import { RecordWrites } from '../store/record-writes.js';
import type { NewTask, TaskStore } from '../store/task-store.js';
import type { PayloadOf, TaskDefinition } from '../tasks/task-definition.js';
import { onTable, type TableCall } from './guarded-calls.js';
import { type EnqueueOptions, nextSequence, prepareTask } from './prepare.js';

/** Outcome of an enqueue. */
export interface EnqueueResult {
  readonly id: string;
  /** False when the id already existed with the same payload: nothing new was created. */
  readonly created: boolean;
  /**
   * False when the record is stored but its message could not be sent yet because of a
   * transient fault (throttling, a 5xx). The task is not lost: it stays PENDING until a
   * re-enqueue of the same id or the sweeper sends it. A permanent fault throws
   * ConfigurationError instead. True when there is nothing to send yet: a WAITING task's
   * message is sent when its last parent releases it (docs/dependencies.md).
   */
  readonly sent: boolean;
  readonly record: TaskRecord;
  /**
   * With `debounce` only: true when this enqueue was folded into the key's waiting task
   * (`id` is that task's, `created` is false), false when it created the task.
   */
  readonly absorbed?: boolean;
}

/** One entry of {@link TaskClient.enqueueBatch}, and what {@link TaskClient.enqueue} takes. */
export interface BatchEntry<D extends TaskDefinition = TaskDefinition> {
  readonly task: D;
  readonly payload: PayloadOf<D>;
  readonly options?: EnqueueOptions;
}

/** The meter label of enqueue's requests (docs/cost.md). */
export const ENQUEUE_USAGE = 'enqueue';

/** What an enqueue needs from the client. */
export interface EnqueueDeps {
  readonly store: TaskStore;
  readonly delayed: DelayedTasks;
  /** Sends a PENDING task's message (the outbox's second half). */
  readonly dispatcher: Dispatcher;
  readonly table: TableCall;
  readonly integrity: IntegrityTag | undefined;
  /** The payload bucket: payloads above its threshold are stored there first. */
  readonly objects: ObjectStore;
  readonly maxPayloadBytes: number;
  readonly clock: () => number;
  /** The executor's lanes: a task's lane must be one of them. */
  readonly lanes: LaneQueues;
  readonly logger: TaskLogger;
  /** Whether the producer's active span is stored with each task (docs/tracing.md). */
  readonly tracing: TracingOption;
}

/** What an enqueue wrote: the record, whether it created it, and (debounced) whether it folded. */
export interface WrittenRecord {
  readonly record: TaskRecord;
  readonly created: boolean;
  /** With `debounce` only: folded into the key's waiting task. */
  readonly absorbed?: boolean;
}

/**
 * The body of `TaskClient.enqueue`: writes the record, then arranges its schedule (delayed)
 * or sends its message (due now).
 */
export async function enqueue(entry: BatchEntry, deps: EnqueueDeps): Promise<EnqueueResult> {
  return deliver(await writeRecord(deps, entry, nextSequence()), deps);
}

/**
 * The first step of an enqueue: the record's write, or, with `debounce`, the fold into the
 * key's waiting task (or the creation of the next one).
 */
export function writeRecord(
  deps: EnqueueDeps,
  entry: BatchEntry,
  sequence: string | undefined,
): Promise<WrittenRecord> {
  const options = entry.options ?? {};
  return typeof options !== 'object' || options.debounce === undefined
    ? createRecord(deps, entry.task, entry.payload, options, sequence)
    : enqueueDebounced(deps, entry.task, entry.payload, options, sequence);
}

/** Writes of a create over a rolled-back record whose dependents are being cancelled. */
const REVIVE_ROUNDS = 3;

/**
 * The record's write of an enqueue without `debounce`: validates the task, stores a payload
 * above the threshold in the payload bucket, and writes the record, SCHEDULED when runAt is
 * beyond the threshold (after checking that scheduling is configured, so a misconfiguration
 * writes nothing), WAITING with parents still to finish (docs/dependencies.md), else
 * PENDING. An existing id must carry the same payload.
 *
 * @throws IdempotencyConflictError when the id exists with another type or payload.
 * @throws UnknownLaneError when the type's lane is not one of the client's, before anything
 *   is written: a record no send could deliver would wait for the sweeper in vain.
 */
async function createRecord(
  deps: EnqueueDeps,
  task: TaskDefinition,
  payload: unknown,
  options: EnqueueOptions,
  sequence: string | undefined,
): Promise<{ record: TaskRecord; created: boolean }> {
  deps.lanes.get(task.lane, `Task type '${task.type}'`);
  const checked = await prepareTask(task, payload, options, deps.maxPayloadBytes, deps.clock());
  const prepared = { ...(await withStorage(deps, checked)), sequence };
  const { record, created } = await writeNew(deps, prepared);
  if (!created && (record.payloadHash !== prepared.payloadHash || record.type !== prepared.type)) {
    throw new IdempotencyConflictError(record);
  }
  return { record, created };
}

/**
 * Creates lost to another producer's waiting task of the same generation before giving up:
 * each means another enqueue's create just landed and the task it made started before this
 * one could fold into it, so only a storm of them on one key can exhaust this. Moving past a
 * started or finished generation is progress, not contention: it is not counted.
 */
const MAX_LOST_CREATES = 16;

/**
 * Enqueues with `debounce`: folds the payload into the key's waiting task, or creates it.
 *
 * The search starts at the generation the pointer names and walks up: a generation that
 * has started, finished or is gone costs one request and is passed, a waiting one is folded
 * into, and the first free one is created. The pointer is then moved up to where the walk
 * ended, so a pointer that was missing or behind is walked past once, not on every enqueue
 * (docs/adr/0033-debounce-fences.md).
 *
 * @throws ValidationError, PayloadTooLargeError as `enqueue` does.
 * @throws DebounceContendedError when {@link MAX_LOST_CREATES} creates lost their race to
 *   waiting tasks that then started; nothing was absorbed or created then.
 */
async function enqueueDebounced(
  deps: EnqueueDeps,
  task: TaskDefinition,
  payload: unknown,
  options: EnqueueOptions,
  sequence: string | undefined,
): Promise<WrittenRecord> {
  const debounces = deps.store.feature(DebounceStore);
  // An unknown lane fails before anything is written, as for any enqueue (ADR 0028).
  deps.lanes.get(task.lane, `Task type '${task.type}'`);
  const checked = await prepareTask(task, payload, options, deps.maxPayloadBytes, deps.clock());
  const spec = checked.debounce;
  if (spec === undefined) throw new TypeError('a debounced enqueue needs the debounce option');
  const pointed = await onTable(deps.table, () => debounces.generation(task.type, spec.key));
  // The tag and a claim-checked payload are made only for a write that stores the payload.
  const stored = (generation: number): Promise<NewTask> => {
    const id = debounceTaskId(task.type, spec.key, generation);
    const messageGroupId = messageGroupOf({ id, orderingKey: checked.orderingKey });
    return withStorage(deps, { ...checked, id, messageGroupId, sequence });
  };
  // A hint only: a failed move costs the next enqueue a longer walk, never a second task.
  const repairPointer = (generation: number) =>
    generation <= pointed
      ? Promise.resolve(false)
      : onTable(deps.table, () =>
          debounces.advance(task.type, spec.key, generation, spec.windowMs),
        ).catch(() => false);
  let generation = Math.max(pointed, 1);
  let absorbFirst = pointed > 0;
  for (let lost = 0; lost < MAX_LOST_CREATES; ) {
    if (absorbFirst) {
      const id = debounceTaskId(task.type, spec.key, generation);
      const replacement = spec.mode === DebounceMode.LAST ? await stored(generation) : undefined;
      const out = await onTable(deps.table, () => debounces.absorb(id, spec, replacement));
      if (out.kind === 'absorbed') {
        await repairPointer(generation);
        return { record: out.record, created: false, absorbed: true };
      }
      if (out.kind === 'moved-on') {
        generation++;
        absorbFirst = false;
        continue;
      }
    }
    const { record, created } = await writeNew(deps, await stored(generation));
    if (created) {
      await repairPointer(generation);
      return { record, created: true, absorbed: false };
    }
    if (debounces.mayAbsorb(record, spec, checked.orderingKey)) {
      // Another producer's create of this generation landed first: fold into its task.
      lost++;
      absorbFirst = true;
    } else {
      // A generation that started, finished or was rolled back: pass it, uncounted.
      generation++;
    }
  }
  throw new DebounceContendedError(task.type, spec.key, MAX_LOST_CREATES);
}

/**
 * A checked task with, above the threshold, its payload stored in the payload bucket, and its
 * integrity tag over exactly what the record will hold. The object first, then the record: no
 * record ever names a missing object.
 * A retry writes the same bytes under the same key; a conflicting payload gets its own key
 * (ADR 0023).
 */
async function withStorage(deps: EnqueueDeps, checked: NewTask): Promise<NewTask> {
  const size = Buffer.byteLength(checked.payloadJson, 'utf8');
  const payloadRef = deps.objects.offloads(size)
    ? await deps.objects.put(payloadKey(checked.id, checked.payloadHash), checked.payloadJson)
    : undefined;
  const stored = { ...checked, payloadRef };
  // The tag covers the reference too, so it is made once the object is stored (ADR 0035).
  // The trace context is not covered: it decides nothing about the run.
  return {
    ...stored,
    integrityTag: await deps.integrity?.tag(stored),
    // The enqueuing code's active span; undefined, loading nothing, without a tracer provider.
    traceparent: activeTraceparent(deps.tracing),
  };
}

/**
 * Writes a prepared task's record: SCHEDULED when runAt is beyond the threshold (after
 * checking that scheduling is configured, so a misconfiguration writes nothing), else PENDING.
 * An existing id is returned as it is, with `created: false`.
 *
 * A rolled-back record of the id is replaced, once the dependents that registered on it are
 * cancelled (docs/adr/0031-dependency-fences.md). The enqueue that rolled it back does that
 * before it throws; if it crashed first, the create is refused and this one does it, then
 * writes again.
 *
 * @throws TransitionRejectedError when the rolled-back record's dependents could not all be
 *   cancelled (each one is logged), for instance by a producer that may not read them
 *   (`grantEnqueue` has no GetItem on tasks): the sweeper does it after `releaseGraceMs`;
 *   enqueue again then.
 */
async function writeNew(
  deps: EnqueueDeps,
  prepared: NewTask,
): Promise<{ record: TaskRecord; created: boolean }> {
  for (let round = 1; ; round++) {
    const written = await writeOnce(deps, prepared);
    if (written.created || written.record.status !== TaskStatus.ROLLED_BACK) return written;
    if (round >= REVIVE_ROUNDS) {
      throw new TransitionRejectedError(
        'enqueue again (the dependents of its rolled-back record are not all cancelled yet; the sweeper cancels them within minutes)',
        prepared.id,
        written.record,
      );
    }
    await releaseDependents(written.record, { store: deps.store, logger: deps.logger });
  }
}

function writeOnce(
  deps: EnqueueDeps,
  prepared: NewTask,
): Promise<{ record: TaskRecord; created: boolean }> {
  const { store, delayed } = deps;
  const scheduled = delayed.needsSchedule(prepared.runAt);
  if (scheduled) delayed.assertConfigured();
  return onTable(deps.table, () =>
    prepared.parents !== undefined
      ? store.feature(DependencyStore).create(prepared)
      : store.feature(RecordWrites).create(
          scheduled
            ? {
                ...prepared,
                scheduled,
                detail: `runAt ${new Date(prepared.runAt ?? 0).toISOString()}`,
              }
            : prepared,
        ),
  );
}

/** What follows the record's write: arranging its schedule, or sending its message. */
async function deliver(written: WrittenRecord, deps: EnqueueDeps): Promise<EnqueueResult> {
  const { record, created, absorbed } = written;
  const debounced = absorbed === undefined ? {} : { absorbed };
  if (absorbed === true) return absorbedInto(record, deps);
  if (record.status === TaskStatus.SCHEDULED) {
    // The record as it is now: a cancel while the schedule was made is reported, not hidden.
    const arranged = await deps.delayed.arrange(record, created);
    return { id: record.id, created, sent: true, record: arranged.record, ...debounced };
  }
  if (record.status !== TaskStatus.PENDING) {
    return { id: record.id, created, sent: true, record, ...debounced };
  }
  const sent = await deps.dispatcher.send(record);
  return { id: record.id, created, sent: sent !== undefined, record: sent ?? record, ...debounced };
}

/**
 * The result of an enqueue folded into a waiting debounced task. Its creator sends its
 * message (or the sweeper does); a SCHEDULED one not yet confirmed is confirmed first, as a
 * re-enqueue of its id would be, so the creator's rollback cannot drop it (ADR 0009).
 */
export async function absorbedInto(
  record: TaskRecord,
  deps: Pick<EnqueueDeps, 'delayed'>,
): Promise<EnqueueResult> {
  const current =
    record.status === TaskStatus.SCHEDULED && !record.scheduleConfirmed
      ? (await deps.delayed.arrange(record, false)).record
      : record;
  return { id: record.id, created: false, sent: true, record: current, absorbed: true };
}
