import { payloadKey } from '../claim-check/object-ref.js';
import type { ObjectStore } from '../claim-check/object-store.js';
import { TaskStatus } from '../core/constants.js';
import { IdempotencyConflictError, TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDependents } from '../dependencies/release.js';
import type { IntegrityTag } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import type { DelayedTasks } from '../scheduler/delayed.js';
import type { LaneQueues } from '../settings/lanes.js';
import type { NewTask, TaskStore } from '../store/task-store.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import { onTable, type TableCall } from './guarded-calls.js';
import { type EnqueueOptions, prepareTask } from './prepare.js';

/** What {@link createRecord} needs from the client. */
export interface RecordWriter {
  readonly store: TaskStore;
  readonly delayed: DelayedTasks;
  readonly table: TableCall;
  readonly integrity: IntegrityTag | undefined;
  /** The payload bucket: payloads above its threshold are stored there first. */
  readonly objects: ObjectStore;
  readonly maxPayloadBytes: number;
  readonly clock: () => number;
  /** The executor's lanes: a task's lane must be one of them. */
  readonly lanes: LaneQueues;
  readonly logger: TaskLogger;
}

/** Writes of a create over a rolled-back record whose dependents are being cancelled. */
const REVIVE_ROUNDS = 3;

/**
 * The first step of an enqueue: validates the task, stores a payload above the threshold in
 * the payload bucket, and writes the record, SCHEDULED when runAt is
 * beyond the threshold (after checking that scheduling is configured, so a misconfiguration
 * writes nothing), WAITING with parents still to finish (docs/dependencies.md), else
 * PENDING. An existing id must carry the same payload.
 *
 * @throws IdempotencyConflictError when the id exists with another type or payload.
 * @throws UnknownLaneError when the type's lane is not one of the client's, before anything
 *   is written: a record no send could deliver would wait for the sweeper in vain.
 */
export async function createRecord(
  writer: RecordWriter,
  task: TaskDefinition,
  payload: unknown,
  options: EnqueueOptions,
  sequence: string | undefined,
): Promise<{ record: TaskRecord; created: boolean }> {
  writer.lanes.get(task.lane, `Task type '${task.type}'`);
  const checked = await prepareTask(task, payload, options, writer.maxPayloadBytes, writer.clock());
  const prepared = { ...(await withStorage(writer, checked)), sequence };
  const { record, created } = await writeNew(writer, prepared);
  if (!created && (record.payloadHash !== prepared.payloadHash || record.type !== prepared.type)) {
    throw new IdempotencyConflictError(record);
  }
  return { record, created };
}

/**
 * A checked task with, above the threshold, its payload stored in the payload bucket, and its
 * integrity tag over exactly what the record will hold. The object first, then the record: no
 * record ever names a missing object.
 * A retry writes the same bytes under the same key; a conflicting payload gets its own key
 * (ADR 0023).
 */
export async function withStorage(writer: RecordWriter, checked: NewTask): Promise<NewTask> {
  const size = Buffer.byteLength(checked.payloadJson, 'utf8');
  const payloadRef = writer.objects.offloads(size)
    ? await writer.objects.put(payloadKey(checked.id, checked.payloadHash), checked.payloadJson)
    : undefined;
  const stored = { ...checked, payloadRef };
  // The tag covers the reference too, so it is made once the object is stored (ADR 0035).
  return { ...stored, integrityTag: await writer.integrity?.tag(stored) };
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
export async function writeNew(
  writer: RecordWriter,
  prepared: NewTask,
): Promise<{ record: TaskRecord; created: boolean }> {
  for (let round = 1; ; round++) {
    const written = await writeOnce(writer, prepared);
    if (written.created || written.record.status !== TaskStatus.ROLLED_BACK) return written;
    if (round >= REVIVE_ROUNDS) {
      throw new TransitionRejectedError(
        'enqueue again (the dependents of its rolled-back record are not all cancelled yet; the sweeper cancels them within minutes)',
        prepared.id,
        written.record,
      );
    }
    await releaseDependents(written.record, { store: writer.store, logger: writer.logger });
  }
}

function writeOnce(
  writer: RecordWriter,
  prepared: NewTask,
): Promise<{ record: TaskRecord; created: boolean }> {
  const { store, delayed } = writer;
  const scheduled = delayed.needsSchedule(prepared.runAt);
  if (scheduled) delayed.assertConfigured();
  return onTable(writer.table, () =>
    prepared.parents !== undefined
      ? store.dependencies.create(prepared)
      : store.create(
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
