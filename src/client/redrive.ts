import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { mapConcurrently } from '../aws/clients.js';
import { AuditEvent, isTerminal, TaskStatus } from '../core/constants.js';
import { ConfigurationError, TransitionRejectedError, ValidationError } from '../core/errors.js';
import { namesEarlierRecord, parseEnvelope } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDependents } from '../dependencies/release.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import { DEFAULT_LANE, type LaneQueues } from '../settings/lanes.js';
import { iterateTasks } from '../store/queries.js';
import { compareEnqueueOrder } from '../store/record.js';
import { RepairWrites } from '../store/repair-writes.js';
import { signalWrites } from '../store/signal-writes.js';
import { StepStore } from '../store/steps.js';
import type { TaskStore } from '../store/task-store.js';
import { laneNames, parkedTasks, redriveParkedTask } from './parked-keys.js';
import { taskIdsIssues } from './task-ids.js';

/**
 * Which DEAD tasks to redrive: by id, all (optionally those of one ordering key), or those of
 * one ordering key, the task that parks it first (docs/parked-keys.md).
 */
export type RedriveSelection =
  | { readonly ids: readonly string[] }
  | { readonly all: true; readonly orderingKey?: string }
  | { readonly orderingKey: string };

/** What a redrive did. */
export interface RedriveResult {
  /**
   * Tasks moved out of DEAD, in the order they were re-sent: a task that parked its key is
   * redriven in place (QUEUED, run from its held message, before the key's later tasks), the
   * others go PENDING with a new message.
   */
  readonly redriven: readonly string[];
  /** Redriven tasks whose message could not be sent yet; they stay PENDING for the sweeper. */
  readonly unsent: readonly string[];
  /** Selected ids that were not redriven, with the reason. */
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
  /** Dead-letter messages handled: deleted as redriven/obsolete, or moved back to the queue. */
  readonly dlq: { readonly deleted: number; readonly movedBack: number; readonly released: number };
}

/** What {@link redriveDead} needs from the client. */
export interface RedriveDeps {
  readonly store: TaskStore;
  readonly dispatcher: Dispatcher;
  readonly sqs: SQSClient;
  readonly deadLetterQueueUrl: string | undefined;
  readonly workQueueUrl: string;
  /** Every lane's queues: redrive drains each lane's DLQ back to that lane. */
  readonly lanes?: LaneQueues | undefined;
  readonly logger: TaskLogger;
  /** Who is redriving, for the history and the audit line (docs/adr/0039-operator-audit.md). */
  readonly principal?: string | undefined;
}

const DLQ_HOLD_SECONDS = 60;
const MAX_DLQ_MESSAGES = 10_000;

/** How a redrive reports its progress. */
export interface RedriveOptions {
  /** Called after each selected task is moved (or found moved already): done of total. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Clear a durable task's memory: its stored steps and its checkpoint, so that it runs
   * every step afresh. Without it, a redriven task resumes from them (docs/durable-tasks.md).
   * @default false
   */
  readonly restart?: boolean;
}

/** Moves selected DEAD tasks back to work. See `TaskClient.redrive`. */
export async function redriveDead(
  selection: RedriveSelection,
  deps: RedriveDeps,
  options: RedriveOptions = {},
): Promise<RedriveResult> {
  const skipped: { id: string; reason: string }[] = [];
  const selected = await selectDead(selection, deps.store, skipped, laneNames(deps));
  // Per-key order: the original enqueue order, so a key's tasks run again as they first did.
  selected.sort(compareEnqueueOrder);
  let done = 0;
  const step = () => options.onProgress?.(++done, selected.length);
  const inPlace: string[] = [];
  for (const record of selected.filter((r) => r.parkedKey !== undefined)) {
    // Its in-place redrive waits for its release too (see redriveReleased).
    if ((record.dependents ?? []).length > 0) await releaseDependents(record, deps);
    const reason = 'redriven by TaskClient.redrive';
    const moved = await redriveParkedTask(record, deps, reason, options.restart === true);
    if (moved === undefined) skipped.push({ id: record.id, reason: 'no longer parked' });
    else inPlace.push(record.id);
    if (moved !== undefined && options.restart === true) await clearSteps(record, deps);
    step();
  }
  const dead = selected.filter((r) => r.parkedKey === undefined);
  const moved = await mapConcurrently(dead, async (record) => {
    try {
      const redriven = await redriveReleased(record, deps, options.restart === true);
      if (options.restart === true) await clearSteps(record, deps);
      return redriven;
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      skipped.push({
        id: record.id,
        reason: `no longer DEAD (${err.current?.status ?? 'deleted'})`,
      });
      return undefined;
    } finally {
      step();
    }
  });
  const pending = moved.filter((r): r is TaskRecord => r !== undefined);
  const redrivenIds = new Set([...inPlace, ...pending.map((r) => r.id)]);
  const dlq = { deleted: 0, movedBack: 0, released: 0 };
  const pairs = deadLetterPairs(deps);
  for (const pair of pairs) {
    const counts = await drainDeadLetters(deps, pair, (id) =>
      'ids' in selection ? new Set(selection.ids).has(id) || redrivenIds.has(id) : true,
    );
    dlq.deleted += counts.deleted;
    dlq.movedBack += counts.movedBack;
    dlq.released += counts.released;
  }
  if (pairs.length === 0 && 'all' in selection) {
    deps.logger.warn('no dead-letter queue configured; redrive did not drain it', {});
  }
  const sent = await deps.dispatcher.sendAll(pending);
  return {
    redriven: [...inPlace, ...pending.map((r) => r.id)],
    unsent: pending.filter((_, i) => sent[i] === undefined).map((r) => r.id),
    skipped,
    dlq,
  };
}

/**
 * Redrives one DEAD task. A DEAD parent is redriven only once the release of its dependents
 * (cancelled by its death, or counting it) is done, so that no release cancels a dependent
 * for a death its parent no longer has (docs/adr/0031-dependency-fences.md): when its release
 * is still pending (a moment after its death, or until the sweeper's pass after a crash), it
 * is finished here first and the redrive written again.
 */
async function redriveReleased(
  record: TaskRecord,
  deps: RedriveDeps,
  restart: boolean,
): Promise<TaskRecord> {
  const reason = 'redriven by TaskClient.redrive';
  try {
    return await deps.store.feature(RepairWrites).redrive(record, reason, deps.principal, restart);
  } catch (err) {
    const current = err instanceof TransitionRejectedError ? err.current : undefined;
    const pending =
      current?.status === TaskStatus.DEAD &&
      current.generation === record.generation &&
      (current.dependents ?? []).length > 0;
    if (!pending) throw err;
    await releaseDependents(current, deps);
    return deps.store.feature(RepairWrites).redrive(current, reason, deps.principal, restart);
  }
}

/**
 * After a restarting redrive moved the task to a new step epoch: the old epochs' step and
 * signal items are deleted. Nothing reads them any more, so a failure here only leaves them to their TTL.
 */
async function clearSteps(record: TaskRecord, deps: RedriveDeps): Promise<void> {
  try {
    await deps.store.feature(StepStore).deleteAll(record.id, record.stepEpoch ?? 0);
    await signalWrites(deps.store).deleteAll(record, record.stepEpoch ?? 0);
  } catch (err) {
    deps.logger.warn('old steps and signals not deleted after a restart; their TTL removes them', {
      taskId: record.id,
      error: (err as Error).message,
    });
  }
}

/**
 * The selected ids' records, read in the same order: the DEAD ones, and the others as
 * skipped, with the reason.
 */
export function sortDead(
  ids: readonly string[],
  records: readonly (TaskRecord | undefined)[],
): { dead: TaskRecord[]; skipped: { id: string; reason: string }[] } {
  const dead: TaskRecord[] = [];
  const skipped: { id: string; reason: string }[] = [];
  records.forEach((record, i) => {
    const id = ids[i] as string;
    if (record === undefined) skipped.push({ id, reason: 'no task has this id' });
    else if (record.status !== TaskStatus.DEAD)
      skipped.push({ id, reason: `task is ${record.status}, not DEAD` });
    else dead.push(record);
  });
  return { dead, skipped };
}

function isKey(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

async function selectDead(
  selection: RedriveSelection,
  store: TaskStore,
  skipped: { id: string; reason: string }[],
  lanes: readonly string[],
): Promise<TaskRecord[]> {
  if ('ids' in selection) {
    if (!Array.isArray(selection.ids) || selection.ids.length === 0) {
      throw new ValidationError('redrive selection', [
        { path: 'ids', message: 'expected a non-empty array of task ids' },
      ]);
    }
    const issues = taskIdsIssues(selection.ids, 'ids');
    if (issues.length > 0) throw new ValidationError('redrive selection', issues);
    const sorted = sortDead(
      selection.ids,
      await Promise.all(selection.ids.map((id) => store.get(id))),
    );
    skipped.push(...sorted.skipped);
    return sorted.dead;
  }
  const byKey = !('all' in selection) && 'orderingKey' in selection;
  if (byKey ? !isKey(selection.orderingKey) : (selection as { all?: unknown }).all !== true) {
    throw new ValidationError('redrive selection', [
      byKey
        ? {
            path: 'orderingKey',
            message: `expected a non-empty string, received ${JSON.stringify(selection.orderingKey)}`,
          }
        : { path: '(root)', message: 'expected { ids }, { all: true } or { orderingKey }' },
    ]);
  }
  const { orderingKey } = selection;
  // The parked tasks (one per lane), read through their park items: consistent, unlike the
  // status index.
  const parked = orderingKey === undefined ? [] : await parkedTasks(orderingKey, store, lanes);
  const parkedIds = new Set(parked.map((r) => r.id));
  const dead: TaskRecord[] = [...parked];
  for await (const page of store.part((ctx) => iterateTasks(ctx, TaskStatus.DEAD))) {
    const others = page.filter((r) => !parkedIds.has(r.id));
    dead.push(...others.filter((r) => orderingKey === undefined || r.orderingKey === orderingKey));
  }
  return dead;
}

/** A DLQ and the work queue its messages go back to: one lane's. */
interface DeadLetterPair {
  readonly deadLetterQueueUrl: string;
  readonly workQueueUrl: string;
}

/**
 * The DLQs a redrive drains: the default lane's (`deadLetterQueueUrl`), and every other
 * lane's whose DLQ is configured (docs/lanes.md).
 */
function deadLetterPairs(deps: RedriveDeps): DeadLetterPair[] {
  const pairs: DeadLetterPair[] = [];
  const lanes = deps.lanes?.entries() ?? [[DEFAULT_LANE, { queueUrl: deps.workQueueUrl }]];
  for (const [lane, queues] of lanes) {
    const dlq =
      lane === DEFAULT_LANE
        ? (deps.deadLetterQueueUrl ?? queues.deadLetterQueueUrl)
        : queues.deadLetterQueueUrl;
    if (dlq !== undefined) pairs.push({ deadLetterQueueUrl: dlq, workQueueUrl: queues.queueUrl });
  }
  return pairs;
}

/**
 * Drains the dead-letter queue by hand (receive, then send and delete): emulators lack
 * StartMessageMoveTask, and each message needs a decision from its task's record anyway.
 * - selected task redriven or finished, or no record at all: the message is deleted;
 * - selected task still waiting (PENDING/QUEUED/SCHEDULED): moved back to the work queue;
 * - anything else: released untouched for another time.
 */
async function drainDeadLetters(
  deps: RedriveDeps,
  queues: DeadLetterPair,
  selected: (taskId: string) => boolean,
): Promise<RedriveResult['dlq']> {
  const dlqUrl = queues.deadLetterQueueUrl;
  if (dlqUrl === '') throw new ConfigurationError('deadLetterQueueUrl is empty');
  const counts = { deleted: 0, movedBack: 0, released: 0 };
  const held: Message[] = [];
  for (let seen = 0; seen < MAX_DLQ_MESSAGES; ) {
    const out = await deps.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: DLQ_HOLD_SECONDS,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) break;
    seen += messages.length;
    for (const message of messages) {
      const action = await decide(message, deps.store, selected);
      if (action === 'release') {
        held.push(message);
        continue;
      }
      if (action === 'move') {
        const parsed = parseEnvelope(message.Body ?? '');
        const groupId =
          message.Attributes?.MessageGroupId ?? (parsed.ok ? parsed.envelope.id : 'redrive');
        await deps.sqs.send(
          new SendMessageCommand({
            QueueUrl: queues.workQueueUrl,
            MessageBody: message.Body ?? '',
            MessageGroupId: groupId,
            MessageDeduplicationId: createHash('sha256')
              .update(`dlq#${message.MessageId}`)
              .digest('hex'),
          }),
        );
        counts.movedBack += 1;
      } else {
        counts.deleted += 1;
      }
      await deps.sqs.send(
        new DeleteMessageCommand({ QueueUrl: dlqUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
  for (let i = 0; i < held.length; i += 10) {
    const chunk = held.slice(i, i + 10);
    await deps.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: dlqUrl,
        Entries: chunk.map((m, n) => ({
          Id: String(n),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
  counts.released = held.length;
  return counts;
}

async function decide(
  message: Message,
  store: TaskStore,
  selected: (taskId: string) => boolean,
): Promise<'delete' | 'move' | 'release'> {
  const parsed = parseEnvelope(message.Body ?? '');
  if (!parsed.ok) return 'delete';
  if (!selected(parsed.envelope.id)) return 'release';
  const record = await store.get(parsed.envelope.id);
  // The dead letter of an earlier task of the id, purged since: no task of its own (ADR 0063).
  if (record !== undefined && namesEarlierRecord(parsed.envelope, record)) {
    return 'delete';
  }
  if (record === undefined || isTerminal(record.status) || record.status === TaskStatus.RUNNING) {
    // Finished, redriven (a fresh message is sent), forged, or owned by a live attempt.
    return record?.status === TaskStatus.DEAD ? 'release' : 'delete';
  }
  // PENDING covers the tasks this redrive just moved: their fresh message is sent next.
  return record.status === TaskStatus.PENDING &&
    record.history.at(-1)?.event === AuditEvent.REDRIVEN
    ? 'delete'
    : 'move';
}
