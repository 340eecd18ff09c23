/**
 * The sweep's pass over the dead-letter queues: how a RUNNING or QUEUED task whose message
 * left its work queue is found, now that the status index does not key those statuses
 * (docs/adr/0052-running-and-queued-leave-the-index.md). SQS moves a message to the DLQ
 * after `maxReceiveCount` receives that did not end it (deferrals, takeovers parked behind
 * fresh tasks); its task, still RUNNING or QUEUED, has no other message then. The pass reads
 * each dead letter's task and repairs it as the sweeper's index passes do:
 * - RUNNING under an expired lease: requeued (PENDING, a new generation) or, on its final
 *   attempt, declared DEAD; under a live lease it is left for a later pass;
 * - QUEUED: given a new generation (PENDING) to be sent again;
 * and then deletes the dead letter, which its task no longer needs: a repaired task is in the
 * outbox (PENDING), whose send the sweep makes and the PENDING pass repeats if it fails.
 * Dead letters of finished tasks, of no task, of PENDING tasks (the outbox re-sends them),
 * and of an earlier record of the id (purged and enqueued again since, ADR 0063: such a
 * letter is never used to repair the current record) are deleted too. DEAD, WAITING and SCHEDULED tasks' dead letters, and bodies that are no
 * Tasklane message, are left for the operator's drain (docs/runbook.md).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { loadSqs } from '../aws/sdk.js';
import { TaskStatus } from '../core/constants.js';
import { describeError, TransitionRejectedError } from '../core/errors.js';
import { namesEarlierRecord, parseMessage } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import { firingTaskId } from '../scheduler/names.js';
import type { TaskStore } from '../store/task-store.js';

/** A dead-letter queue the sweep reads. */
export interface DeadLetterQueue {
  readonly url: string;
  /** The lane whose work queue it serves, for the log. */
  readonly lane?: string | undefined;
}

/** What the pass needs. */
export interface DeadLetterPassDeps {
  readonly store: TaskStore;
  readonly sqs: Pick<SQSClient, 'send'>;
  readonly queues: readonly DeadLetterQueue[];
  readonly logger: TaskLogger;
  /** The worker id the pass's transitions are recorded under. */
  readonly actor: string;
  readonly clock: () => number;
  /** Stop receiving after this instant. */
  readonly deadline: number;
}

/** What the pass did. */
export interface DeadLetterPassResult {
  /** Dead letters read. */
  readonly examined: number;
  /** RUNNING tasks under an expired lease, put back to work (PENDING). */
  readonly requeued: number;
  /** RUNNING tasks under an expired lease on their final attempt, declared DEAD. */
  readonly killed: number;
  /** QUEUED tasks given a new generation to be sent again (PENDING). */
  readonly resent: number;
  /** Dead letters deleted: their task was repaired, finished, PENDING or absent. */
  readonly deleted: number;
  /** Repairs another actor won first (a worker, another sweeper). */
  readonly conflicts: number;
  /** Dead letters that could not be handled (an unexpected error); they stay. */
  readonly failed: number;
  /** The records the pass moved to PENDING, for the sweep to send. */
  readonly toSend: readonly TaskRecord[];
  /** The records the pass declared DEAD, for the sweep to release their dependents. */
  readonly dead: readonly TaskRecord[];
}

/** Dead letters read per queue and sweep, at most: a DLQ is normally empty. */
export const MAX_DEAD_LETTERS_PER_SWEEP = 100;
/**
 * How long a dead letter the pass leaves stays hidden (its task under a live lease, DEAD,
 * WAITING, SCHEDULED, or a foreign body): it is looked at again after that. In a FIFO DLQ a
 * hidden message also hides the later ones of its group, which a later pass reads.
 */
const LEAVE_HIDDEN_SECONDS = 300;

type Decision =
  | { readonly kind: 'leave' }
  | { readonly kind: 'delete' }
  | { readonly kind: 'requeue' | 'expire' | 'resend'; readonly record: TaskRecord };

/**
 * What to do with a dead letter of `record` (undefined: no such task) at `now`. `letter` is
 * the record the letter names (its `createdAt`; none for a firing, or a message sent before
 * messages named their record).
 */
export function decideDeadLetter(
  record: TaskRecord | undefined,
  now: number,
  letter: { readonly createdAt?: number | undefined } = {},
): Decision {
  if (record === undefined) return { kind: 'delete' };
  // A letter of an earlier record of the id: that task was purged, and the current record,
  // enqueued since, has its own message (docs/adr/0063-messages-name-their-task-incarnation.md).
  // It repairs nothing.
  if (namesEarlierRecord(letter, record)) return { kind: 'delete' };
  switch (record.status) {
    case TaskStatus.RUNNING:
      if ((record.leaseExpiresAt ?? 0) > now) return { kind: 'leave' };
      return record.attempt >= record.maxAttempts
        ? { kind: 'expire', record }
        : { kind: 'requeue', record };
    case TaskStatus.QUEUED:
      return { kind: 'resend', record };
    // A sleeper's or waiter's kept message, past the receive bound: the sweep's wake pass sends
    // it a new one when it is due (docs/adr/0048-durable-sleep-signals-pause.md).
    case TaskStatus.SUSPENDED:
    case TaskStatus.PENDING:
    case TaskStatus.SUCCEEDED:
    case TaskStatus.CANCELLED:
    case TaskStatus.ROLLED_BACK:
      return { kind: 'delete' };
    default:
      // DEAD (redrive decides), WAITING and SCHEDULED: the operator's drain.
      return { kind: 'leave' };
  }
}

/** The task a dead letter names and the record it was sent for (`createdAt`, if it says). */
interface Letter {
  readonly id: string;
  readonly createdAt?: number | undefined;
}

/** What a dead letter names, or undefined for a body that is no Tasklane message. */
function letterOf(body: string | undefined): Letter | undefined {
  const parsed = parseMessage(body ?? '');
  if (!parsed.ok) return undefined;
  return parsed.kind === 'task'
    ? { id: parsed.envelope.id, createdAt: parsed.envelope.createdAt }
    : { id: firingTaskId(parsed.firing.schedule, parsed.firing.scheduledTime) };
}

/** Reads every dead-letter queue and repairs the tasks of its messages (module comment). */
export async function repairDeadLetters(deps: DeadLetterPassDeps): Promise<DeadLetterPassResult> {
  const result = {
    examined: 0,
    requeued: 0,
    killed: 0,
    resent: 0,
    deleted: 0,
    conflicts: 0,
    failed: 0,
    toSend: [] as TaskRecord[],
    dead: [] as TaskRecord[],
  };
  if (deps.queues.length === 0) return result;
  const sdk = await loadSqs();
  for (const queue of deps.queues) {
    for (let read = 0; read < MAX_DEAD_LETTERS_PER_SWEEP && deps.clock() < deps.deadline; ) {
      const out = await deps.sqs.send(
        new sdk.ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: LEAVE_HIDDEN_SECONDS,
        }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) break;
      read += messages.length;
      result.examined += messages.length;
      const letters = messages.map((m) => letterOf(m.Body));
      const records = await deps.store.getMany(
        letters.flatMap((letter) => (letter === undefined ? [] : [letter.id])),
      );
      for (const [n, message] of messages.entries()) {
        const letter = letters[n];
        if (letter === undefined) continue;
        const id = letter.id;
        try {
          const decision = decideDeadLetter(records.get(id), deps.clock(), letter);
          const repaired = await repair(deps, decision);
          if (repaired === 'leave') continue;
          if (repaired !== 'delete') result[repaired.kind] += 1;
          if (repaired !== 'delete' && repaired.kind === 'killed')
            result.dead.push(repaired.record);
          if (repaired !== 'delete' && repaired.kind !== 'killed') {
            result.toSend.push(repaired.record);
          }
          await deps.sqs.send(
            new sdk.DeleteMessageCommand({
              QueueUrl: queue.url,
              ReceiptHandle: message.ReceiptHandle,
            }),
          );
          result.deleted += 1;
        } catch (err) {
          if (err instanceof TransitionRejectedError) {
            // Moved on since it was read: a later pass decides from its new state.
            result.conflicts += 1;
            continue;
          }
          result.failed += 1;
          deps.logger.error('sweep could not repair the task of a dead letter', {
            taskId: id,
            status: records.get(id)?.status,
            lane: queue.lane,
            error: describeError(err),
          });
        }
      }
    }
  }
  return result;
}

/** Applies a decision: the repaired record and its count, or what to do with the letter. */
async function repair(
  deps: DeadLetterPassDeps,
  decision: Decision,
): Promise<
  | 'leave'
  | 'delete'
  | { readonly kind: 'requeued' | 'killed' | 'resent'; readonly record: TaskRecord }
> {
  const { store, actor, logger } = deps;
  switch (decision.kind) {
    case 'leave':
    case 'delete':
      return decision.kind;
    case 'requeue': {
      const seen = decision.record;
      const reason = `lease of attempt ${seen.attempt} expired and its message was in the dead-letter queue`;
      const record = await store.requeue(seen, reason, actor);
      logger.warn('task found in the dead-letter queue: requeued', { taskId: seen.id });
      return { kind: 'requeued', record };
    }
    case 'expire': {
      const seen = decision.record;
      // The same reason as the worker's and the index pass's, for whoever filters DEAD tasks by it.
      const reason = 'lease expired on the final attempt';
      return { kind: 'killed', record: await store.expire(seen, reason, actor) };
    }
    case 'resend': {
      const seen = decision.record;
      const record = await store.resend(seen, 'its message was in the dead-letter queue', actor);
      logger.warn('task found in the dead-letter queue: sending it again', { taskId: seen.id });
      return { kind: 'resent', record };
    }
  }
}
