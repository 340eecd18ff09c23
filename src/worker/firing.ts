import type { SQSRecord } from 'aws-lambda';
import { Defaults, isTerminal } from '../constants.js';
import type { FiringEnvelope } from '../message.js';
import { firingTaskId } from '../scheduler/names.js';
import { canonicalJson, payloadHash, type TaskRecord } from '../store/record.js';
import type { ProcessorDeps } from './processor.js';

/** What the worker does with a firing: run its task, or stop (an idempotent no-op). */
export type Admission =
  | { readonly kind: 'run'; readonly record: TaskRecord }
  | { readonly kind: 'duplicate'; readonly record: TaskRecord };

/**
 * Turns a recurring schedule's firing into its task, `<schedule>@<scheduledTime>`. The
 * record is created idempotently, so however many times Scheduler delivers a firing it is
 * one task. A delivery that finds the task finished is a duplicate firing: it is noted in
 * the task's history (`duplicate-dropped`, with the execution id) and goes no further. A
 * delivery that finds it unfinished joins the normal claim flow, which also covers the
 * redelivery of a message whose worker crashed after creating the record.
 */
export async function admitFiring(
  firing: FiringEnvelope,
  message: SQSRecord,
  deps: ProcessorDeps,
): Promise<Admission> {
  const id = firingTaskId(firing.schedule, firing.scheduledTime);
  const definition = deps.definitions.get(firing.type);
  const payloadJson = canonicalJson(firing.payload ?? null);
  const delivery = `execution ${firing.execution.id}, attempt ${firing.execution.attempt}`;
  const { record, created } = await deps.store.create({
    id,
    type: firing.type,
    payloadJson,
    payloadHash: payloadHash(firing.type, payloadJson),
    // An unknown type still gets a record, which the claim flow then declares DEAD.
    maxAttempts: definition?.retry.maxAttempts ?? Defaults.MAX_ATTEMPTS,
    timeoutMs: definition?.timeoutMs ?? Defaults.TASK_TIMEOUT_MS,
    orderingKey: firing.orderingKey,
    messageGroupId: message.attributes.MessageGroupId ?? firing.orderingKey ?? firing.schedule,
    detail: `fired by schedule ${firing.schedule} for ${firing.scheduledTime} (${delivery})`,
  });
  if (created || !isTerminal(record.status)) return { kind: 'run', record };
  await deps.store.noteDuplicate(
    record,
    `duplicate firing of ${firing.schedule} for ${firing.scheduledTime} (${delivery}); task already ${record.status}`,
  );
  return { kind: 'duplicate', record };
}
