import type { SQSRecord } from 'aws-lambda';
import { Defaults, isTerminal } from '../core/constants.js';
import type { FiringEnvelope } from '../core/message.js';
import { unkeyedGroup } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { firingTaskId } from '../scheduler/names.js';
import { canonicalJson, payloadHash } from '../store/record.js';
import { RecordWrites } from '../store/record-writes.js';
import type { NewTask } from '../store/task-store.js';
import type { ProcessorDeps } from './deps.js';
import { firingProblem } from './firing-trust.js';

/** What the worker does with a firing: run its task, stop (an idempotent no-op), or refuse it. */
export type Admission =
  | { readonly kind: 'run'; readonly record: TaskRecord }
  | { readonly kind: 'duplicate'; readonly record: TaskRecord }
  /** Not a firing the worker believes: acknowledged and audited as rejected, never run. */
  | { readonly kind: 'reject'; readonly id: string; readonly reason: string };

/**
 * Turns a recurring schedule's firing into its task, `<schedule>@<scheduledTime>`.
 *
 * A firing names its own type and payload, so it is first checked (ADR 0013): it must come
 * from the scheduler role (the message's SenderId), name no delayed task's schedule, and be
 * dated no later than now plus the clock-skew allowance. The record is then created
 * idempotently, so however many times Scheduler delivers a firing it is one task. A
 * delivery that finds the task finished is a duplicate firing: it is noted in the task's
 * history (`duplicate-dropped`, with the execution id) and goes no further. A delivery that
 * finds it unfinished joins the normal claim flow, which also covers the redelivery of a
 * message whose worker crashed after creating the record. A delivery whose type or payload
 * differs from the existing record's is a conflict, rejected: it is not the same firing.
 */
export async function admitFiring(
  firing: FiringEnvelope,
  message: SQSRecord,
  deps: ProcessorDeps,
): Promise<Admission> {
  const id = firingTaskId(firing.schedule, firing.scheduledTime);
  const problem = firingProblem(
    firing,
    message.attributes.SenderId,
    deps.firingSenders,
    deps.clock(),
  );
  if (problem !== undefined) return { kind: 'reject', id, reason: problem };
  let payloadJson: string;
  try {
    payloadJson = canonicalJson(firing.payload ?? null);
  } catch (err) {
    // Too deep to serialise: refused here, before any record exists (never retried).
    return { kind: 'reject', id, reason: `payload cannot be serialised (${(err as Error).name})` };
  }
  const hash = payloadHash(firing.type, payloadJson);
  const definition = deps.definitions.get(firing.type);
  const delivery = `execution ${firing.execution.id}, attempt ${firing.execution.attempt}`;
  const task: NewTask = {
    id,
    type: firing.type,
    payloadJson,
    payloadHash: hash,
    // An unknown type still gets a record, which the claim flow then declares DEAD.
    maxAttempts: definition?.retry.maxAttempts ?? Defaults.MAX_ATTEMPTS,
    timeoutMs: definition?.timeoutMs ?? Defaults.TASK_TIMEOUT_MS,
    orderingKey: firing.orderingKey,
    messageGroupId:
      message.attributes.MessageGroupId ?? firing.orderingKey ?? unkeyedGroup(firing.schedule),
    // The schedule delivered into the lane's queue; the record keeps the lane for re-sends.
    ...(definition?.lane === undefined ? {} : { lane: definition.lane }),
    detail: `fired by schedule ${firing.schedule} for ${firing.scheduledTime} (${delivery})`,
  };
  // The worker tags the firings it creates, as a producer would (docs/adr/0016-integrity-tag.md).
  const integrityTag = await deps.integrity?.tag(task);
  const { record, created } = await deps.store
    .feature(RecordWrites)
    .create({ ...task, integrityTag });
  if (!created && (record.type !== firing.type || record.payloadHash !== hash)) {
    return {
      kind: 'reject',
      id,
      reason: `conflicting firing: the task exists with another type or payload (payload hash ${hash.slice(0, 16)})`,
    };
  }
  if (created || !isTerminal(record.status)) return { kind: 'run', record };
  await deps.store
    .feature(RecordWrites)
    .noteDuplicate(
      record,
      `duplicate firing of ${firing.schedule} for ${firing.scheduledTime} (${delivery}); task already ${record.status}`,
    );
  return { kind: 'duplicate', record };
}
