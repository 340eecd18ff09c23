/**
 * The batch: the processing core shared by the Lambda handler and the poll loop. It runs a
 * batch's message groups in two phases, holds back what follows a failure within a group
 * (the FIFO rule), and turns the outcomes into visibility changes and the batch item
 * failures.
 */
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { describeError } from '../core/errors.js';
import { messageType } from '../core/message.js';
import { eventRetrySeconds } from '../events/worker-config.js';
import type { EventBatch, WorkerEvents } from '../events/worker-events.js';
import { type BatchPhase, processRecord } from './claim-loop.js';
import type { BatchOptions, Outcome, ProcessorDeps } from './deps.js';
import { fifoBatchFailures, type GroupedMessage, groupMessages } from './fifo.js';
import { type VisibilityChange, visibilitySeconds } from './visibility.js';

/** A message reported failed, and the visibility it is given (none: left as it is). */
interface Failure {
  readonly messageId: string;
  readonly change: VisibilityChange | undefined;
}

/** What running one message group did. */
interface GroupResult {
  readonly failures: readonly Failure[];
  /** The records from a deferred lease takeover on, not touched yet. */
  readonly parked: readonly SQSRecord[] | undefined;
}

/**
 * A returned message stays invisible at least this long, so a retry with a zero jittered
 * delay cannot spin, and the messages held back behind it are seen first.
 */
const MIN_RETRY_VISIBILITY_SECONDS = 1;

/**
 * Takes a batch of SQS records, runs each task at most once per claim, and returns the
 * batch item failures. Message groups run concurrently; inside a group, messages run in
 * order and the first failure holds back the rest (the FIFO rule). Lease takeovers (tasks
 * whose last attempt may have crashed its worker) wait until the rest of the batch, and any
 * other batch the worker is running, is done, then run one at a time (ADR 0007).
 */
export async function processBatch(
  records: readonly SQSRecord[],
  given: ProcessorDeps,
  options: BatchOptions = {},
): Promise<SQSBatchResponse> {
  // Lifecycle events load before the batch's first write, or the batch fails unprocessed.
  const deps = given.loadEvents === undefined ? given : await withEvents(given, given.loadEvents);
  // The batch's start stands for its receive: every hold of its messages is cut to that
  // receive's 12 hours (./hold-budget.ts; a poller calls at once, Lambda's mapping received
  // them shortly before the invocation, which the budget's margin covers).
  deps.visibility.received(records, deps.clock());
  try {
    return await runBatch(records, deps, options);
  } finally {
    deps.visibility.forget(records);
  }
}

/** `deps` with lifecycle events loaded: its store notes the events of the writes it makes. */
async function withEvents(
  deps: ProcessorDeps,
  load: () => Promise<WorkerEvents>,
): Promise<ProcessorDeps> {
  const events = await load();
  return { ...deps, events, store: events.observe(deps.store), loadEvents: undefined };
}

async function runBatch(
  records: readonly SQSRecord[],
  deps: ProcessorDeps,
  options: BatchOptions,
): Promise<SQSBatchResponse> {
  const messages = records.map((record) => ({
    messageId: record.messageId,
    groupId: record.attributes.MessageGroupId,
    record,
  }));
  const events = deps.events?.batch();
  // First every task that is not a lease takeover; the groups that reach one stop there.
  const limit = pLimit(deps.groupConcurrency);
  const fresh = await deps.takeoverGate.fresh(() =>
    Promise.all(
      groupMessages(messages).map((group) =>
        limit(() =>
          runGroup(
            group.map((m) => m.record),
            'fresh',
            deps,
            options,
            events,
          ),
        ),
      ),
    ),
  );
  // Then the takeovers, one group at a time: the attempt that lost its lease may have
  // crashed its worker, and if this one does too, the batch-mates have finished and the
  // takeovers still waiting were not claimed, so they lose no attempt (only a receive). The
  // gate extends this to the worker's other batches (poll with concurrency > 1): none of
  // them runs anything meanwhile.
  const parked = fresh.flatMap((result) => (result.parked === undefined ? [] : [result.parked]));
  const takeovers =
    parked.length === 0
      ? []
      : await deps.takeoverGate.takeover(() => runInTurn(parked, deps, options, events));
  // Nothing is parked in the takeover phase; should it be, it must still be reported failed,
  // never acknowledged unprocessed.
  const leftOver = takeovers.flatMap((result) => result.parked ?? []).map(heldBack);
  const failures = [...fresh, ...takeovers].flatMap((result) => result.failures).concat(leftOver);
  // Published after every write of the batch; a message whose terminal event was not
  // accepted is handed back, and its next delivery republishes the event from the record.
  const held = (await events?.flush()) ?? new Set<string>();
  failures.push(...eventHolds(messages, held, new Set(failures.map((f) => f.messageId))));
  await deps.visibility.applyAll(
    failures.flatMap((failure) => (failure.change === undefined ? [] : [failure.change])),
  );
  const failed = new Set(failures.map((failure) => failure.messageId));
  return {
    batchItemFailures: fifoBatchFailures(messages, failed).map((itemIdentifier) => ({
      itemIdentifier,
    })),
  };
}

/** Runs the parked groups of the takeover phase one after the other. */
async function runInTurn(
  groups: readonly (readonly SQSRecord[])[],
  deps: ProcessorDeps,
  options: BatchOptions,
  events: EventBatch | undefined,
): Promise<GroupResult[]> {
  const results: GroupResult[] = [];
  for (const group of groups) {
    results.push(await runGroup(group, 'takeover', deps, options, events));
  }
  return results;
}

/**
 * Runs a message group's records in order; the first failure holds back the rest. Stops at
 * a lease takeover in the fresh phase, whose records it returns as parked.
 */
async function runGroup(
  group: readonly SQSRecord[],
  phase: BatchPhase,
  deps: ProcessorDeps,
  options: BatchOptions,
  events: EventBatch | undefined,
): Promise<GroupResult> {
  const failures: Failure[] = [];
  for (const [index, record] of group.entries()) {
    if (failures.length > 0) {
      // Held back behind the failed message. SQS keeps the group locked while that one
      // is in flight, so these may be visible at once; returning them together with it
      // would let moto (not SQS) hand them out of order.
      failures.push(heldBack(record));
      continue;
    }
    // A parked group's head was picked up in the fresh phase: its latency is recorded.
    if (phase === 'fresh' || index > 0) recordQueueLatency(record, deps);
    // The transitions written while processing the record note their events under its id,
    // and the requests it makes are metered under its task type.
    const work = () => processRecord(record, deps, options, phase);
    const noted = () => (events === undefined ? work() : events.within(record.messageId, work));
    const running =
      deps.usage === undefined ? noted() : deps.usage.trackTask(messageType(record.body), noted);
    const outcome = await running.catch((err: unknown): Outcome => {
      deps.logger.error('message processing failed', {
        messageId: record.messageId,
        error: describeError(err),
      });
      return { kind: 'fail' };
    });
    if (outcome.kind === 'ack') continue;
    if (outcome.kind === 'takeover') return { failures, parked: group.slice(index) };
    const change = returned(record, outcome, deps.clock());
    if (change !== undefined && index === group.length - 1) {
      // Nothing of its group follows it in the batch: its hold, deferral or retry delay is
      // sent now (with those decided within the hand-back window, ./visibility.ts), not when
      // the batch ends, so a sleeper batched with a slow task wakes on time, and a worker
      // that dies before the batch's end has sent it all the same.
      deps.visibility.handBack(change);
      failures.push({ messageId: record.messageId, change: undefined });
      continue;
    }
    failures.push({ messageId: record.messageId, change });
  }
  return { failures, parked: undefined };
}

/**
 * The visibility of a message whose task failed: after its retry delay, counted from
 * `decidedAt` (a change sent at the batch's end is shortened by the time since), or left alone.
 */
function returned(
  record: SQSRecord,
  outcome: Outcome,
  decidedAt: number,
): VisibilityChange | undefined {
  if (outcome.kind !== 'retry') return undefined;
  const seconds = Math.max(MIN_RETRY_VISIBILITY_SECONDS, visibilitySeconds(outcome.delayMs));
  return {
    receiptHandle: record.receiptHandle,
    eventSourceARN: record.eventSourceARN,
    seconds,
    decidedAt,
    // The exact delay: what is left of it when sent is rounded up, never below 1 s.
    delayMs: outcome.delayMs,
    ...(outcome.afterHold === undefined ? {} : { afterSent: outcome.afterHold }),
  };
}

/**
 * The messages to hand back because a terminal event was not accepted, with those behind
 * them in their group (the FIFO rule), minus those already failed. Each stays away for the
 * event's retry hold, which grows with its receive count.
 */
function eventHolds(
  messages: readonly (GroupedMessage & { readonly record: SQSRecord })[],
  held: ReadonlySet<string>,
  failed: ReadonlySet<string>,
): Failure[] {
  if (held.size === 0) return [];
  const byId = new Map(messages.map((m) => [m.messageId, m.record]));
  return fifoBatchFailures(messages, held).flatMap((messageId) => {
    const record = byId.get(messageId);
    if (record === undefined || failed.has(messageId)) return [];
    const receiveCount = Number(record.attributes.ApproximateReceiveCount);
    return [
      {
        messageId,
        change: {
          receiptHandle: record.receiptHandle,
          eventSourceARN: record.eventSourceARN,
          seconds: eventRetrySeconds(receiveCount),
        },
      },
    ];
  });
}

/** A message not run, reported failed and visible again at once. */
function heldBack(record: SQSRecord): Failure {
  return {
    messageId: record.messageId,
    change: {
      receiptHandle: record.receiptHandle,
      eventSourceARN: record.eventSourceARN,
      seconds: 0,
    },
  };
}

/** Queue latency of a message's first receive (see TaskMetrics.queueLatency). */
function recordQueueLatency(message: SQSRecord, deps: ProcessorDeps): void {
  const sent = Number(message.attributes.SentTimestamp);
  if (message.attributes.ApproximateReceiveCount !== '1' || !(sent > 0)) return;
  deps.metrics.queueLatency(Math.max(0, deps.clock() - sent));
}
