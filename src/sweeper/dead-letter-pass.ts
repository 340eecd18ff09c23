/**
 * The sweeper's dead-letter pass (docs/adr/0052-running-leaves-the-status-index.md): a task
 * whose message reached its queue's DLQ (maxReceiveCount receives) while its record still
 * says RUNNING has no message left to take over its expired lease, and the status index no
 * longer keys RUNNING. Each sweep reads up to a bounded number of messages of every lane's
 * DLQ, reads the records they name (one BatchGetItem per 100), and repairs those RUNNING
 * under an expired lease exactly as the RUNNING pass did (running-repair.ts). A retrying task
 * off the index whose message went there is sent again once it is overdue, as the index's
 * overdue pass sends an indexed one (docs/adr/0068-a-retry-stays-off-the-index.md).
 *
 * It never deletes a DLQ message: operators inspect and redrive them. A message is received
 * with a short visibility timeout ({@link DEAD_LETTER_HOLD_SECONDS}) and left to reappear,
 * so operators' tools miss it for that long at most. If an operator later redrives the
 * message of a task the pass requeued, the message names the same record (ADR 0063 makes
 * only a purged id's messages stale): the claim decides as for any duplicate delivery: it is
 * dropped once the task has finished, deferred while another attempt holds the lease, and
 * otherwise it claims the task once, the requeued message then finding it leased or finished
 * (docs/adr/0063-messages-name-their-task-incarnation.md, "Redrive").
 */
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { receiveDeadLetters } from '../client/dead-letters.js';
import { describeError } from '../core/errors.js';
import { namesEarlierRecord, parseEnvelope } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import { RunningReads } from '../store/running-reads.js';
import type { TaskStore } from '../store/task-store.js';
import { type RepairTally, type RetryingRepair, repairEach } from './running-repair.js';

/** How long a message the pass received stays hidden from the DLQ's other readers. */
export const DEAD_LETTER_HOLD_SECONDS = 30;

/** Most messages read per DLQ per sweep (SQS's peek limit). */
export const MAX_DEAD_LETTERS_PER_QUEUE = 1000;

/** The DLQs a sweep reads, and how many messages of each. */
export interface DeadLetterSweep {
  readonly sqs: SQSClient;
  /** Every lane's DLQ, the default lane's first (`deadLetterQueues`, src/client/lane-dead-letters.ts). */
  readonly queues: readonly { readonly lane: string; readonly url: string }[];
  /** Messages read per DLQ per sweep, from 1 to 1000. @default 100 */
  readonly limit?: number;
}

/** What {@link deadLetterPass} adds to the sweep's report. */
export interface DeadLetterTally extends RepairTally {
  /** DLQ messages whose task's record was read. */
  deadLettersChecked: number;
}

/**
 * Reads each DLQ in turn, until `deadline`, and repairs the expired RUNNING tasks its
 * messages name, queueing their sends on `toSend`. A DLQ that cannot be read is logged and
 * counted as failed; the other DLQs go on.
 *
 * @returns true when the deadline stopped it before the last DLQ.
 */
export async function deadLetterPass(
  deps: { readonly store: TaskStore; readonly logger: TaskLogger; readonly clock: () => number },
  sweepDlq: DeadLetterSweep,
  deadline: number,
  retrying: RetryingRepair,
  tally: DeadLetterTally,
  toSend: TaskRecord[],
): Promise<boolean> {
  const limit = Math.min(
    Math.max(1, Math.trunc(sweepDlq.limit ?? 100)),
    MAX_DEAD_LETTERS_PER_QUEUE,
  );
  const reads = deps.store.feature(RunningReads);
  for (const { lane, url } of sweepDlq.queues) {
    if (deps.clock() >= deadline) return true;
    try {
      const messages = await receiveDeadLetters(sweepDlq.sqs, url, limit, DEAD_LETTER_HOLD_SECONDS);
      const named = namedTasks(messages);
      const found = await reads.records([...named.keys()], retrying.queuedBefore);
      const current = (records: readonly TaskRecord[]) =>
        records.filter((r) => {
          const createdAt = named.get(r.id);
          return createdAt === undefined || !namesEarlierRecord({ createdAt }, r);
        });
      tally.deadLettersChecked += found.records.length + found.retrying.length;
      const candidates = { records: current(found.records), retrying: current(found.retrying) };
      await repairEach(deps, candidates, deps.clock(), retrying, tally, toSend);
    } catch (err) {
      tally.failed += 1;
      deps.logger.error('sweep could not read a dead-letter queue; trying again next sweep', {
        lane,
        error: describeError(err),
      });
    }
  }
  return false;
}

/**
 * The tasks the messages name, each with the `createdAt` its message carries (undefined
 * from an older version's message), parsed as the worker parses them. A body that is no task
 * message (a firing, anything else) is skipped; a wake is kept, its record decides.
 */
function namedTasks(messages: readonly Message[]): Map<string, number | undefined> {
  const named = new Map<string, number | undefined>();
  for (const message of messages) {
    const parsed = parseEnvelope(message.Body ?? '');
    if (!parsed.ok) continue;
    named.set(parsed.envelope.id, parsed.envelope.createdAt);
  }
  return named;
}
