/**
 * `TaskClient.recoverLost`: finds, with one Scan of the table, the RUNNING and QUEUED tasks
 * whose messages something outside the executor removed, and puts them back to work. A task
 * in those statuses is carried by its message, which the status index does not replace
 * (docs/adr/0052-running-and-queued-leave-the-index.md): a message SQS moved to a dead-letter
 * queue is found by the sweeper, but one a purge of the queue removed, or one whose retention
 * ran out while no worker received it, is found only here. docs/runbook.md says when to run it.
 */
import { TaskStatus } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { type ReleaseDeps, releaseDependents } from '../dependencies/release.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import { compareEnqueueOrder } from '../store/record.js';
import { type Duration, durationMs } from './duration.js';

/** What recovering needs: the store, the dispatcher that sends, and a release's parts. */
export interface RecoverDeps extends ReleaseDeps {
  readonly dispatcher: Dispatcher;
}

/** Options of `TaskClient.recoverLost`. */
export interface RecoverOptions {
  /**
   * Only tasks this quiet: a QUEUED task whose last change, or a RUNNING task whose lease
   * ended, is longer ago than this, e.g. `'15m'`. A task whose message still exists is sent
   * again too (the claim runs it once); the margin keeps that to tasks that should have been
   * claimed by now. @default '15m'
   */
  readonly olderThan?: Duration;
  /** List what would be recovered and change nothing. @default false */
  readonly dryRun?: boolean;
}

/** What `TaskClient.recoverLost` did (or, with `dryRun`, would do). */
export interface RecoverResult {
  /** RUNNING and QUEUED tasks the Scan found. */
  readonly scanned: number;
  /** RUNNING tasks under an expired lease, put back to work. */
  readonly requeued: readonly string[];
  /** RUNNING tasks under an expired lease on their final attempt, declared DEAD. */
  readonly killed: readonly string[];
  /** QUEUED tasks sent again under a new generation. */
  readonly resent: readonly string[];
  /** Messages sent (the recovered tasks and the dependents the killed ones released). */
  readonly sent: number;
  /** Sends that failed: those tasks are PENDING, and the sweeper sends them. */
  readonly unsent: number;
  /** Whether this was a dry run, which changed nothing. */
  readonly dryRun: boolean;
}

const DEFAULT_OLDER_THAN: Duration = '15m';
/** The worker id recovered tasks' history entries are recorded under. */
const ACTOR = 'recoverLost';

/**
 * Scans the table for RUNNING and QUEUED tasks quiet for longer than `olderThan` and puts
 * each back to work: a RUNNING one under an expired lease is requeued (or declared DEAD on
 * its final attempt), a QUEUED one is sent again under a new generation. Each move is one
 * conditional write fenced by the record read, so a task a worker moved meanwhile is left
 * alone. Moved tasks are PENDING: a send that fails is repeated by the sweeper.
 *
 * @throws ValidationError when `olderThan` is not a duration.
 */
export async function recoverLostTasks(
  deps: RecoverDeps,
  options: RecoverOptions,
  now: number,
): Promise<RecoverResult> {
  const before = now - durationMs(options.olderThan ?? DEFAULT_OLDER_THAN, 'olderThan');
  const dryRun = options.dryRun === true;
  const result = {
    scanned: 0,
    requeued: [] as string[],
    killed: [] as string[],
    resent: [] as string[],
  };
  const toSend: TaskRecord[] = [];
  for await (const page of deps.store.scan([TaskStatus.RUNNING, TaskStatus.QUEUED])) {
    for (const record of page) {
      result.scanned += 1;
      const moved = await recoverOne(deps, record, before, dryRun).catch((err: unknown) => {
        if (err instanceof TransitionRejectedError) return undefined;
        throw err;
      });
      if (moved === undefined) continue;
      result[moved.kind].push(record.id);
      toSend.push(...moved.toSend);
    }
  }
  if (dryRun) return { ...result, sent: 0, unsent: 0, dryRun };
  toSend.sort(compareEnqueueOrder);
  const sent = await deps.dispatcher.sendAll(toSend);
  const unsent = sent.filter((record) => record === undefined).length;
  return { ...result, sent: sent.length - unsent, unsent, dryRun };
}

/** Recovers one task, if it is quiet enough; what it became and what to send. */
async function recoverOne(
  deps: RecoverDeps,
  record: TaskRecord,
  before: number,
  dryRun: boolean,
): Promise<
  | { readonly kind: 'requeued' | 'killed' | 'resent'; readonly toSend: readonly TaskRecord[] }
  | undefined
> {
  if (record.status === TaskStatus.QUEUED) {
    if (record.updatedAt >= before) return undefined;
    if (dryRun) return { kind: 'resent', toSend: [] };
    const why = 'its message was lost (recoverLost)';
    return { kind: 'resent', toSend: [await deps.store.resend(record, why, ACTOR)] };
  }
  if (record.status !== TaskStatus.RUNNING) return undefined;
  if ((record.leaseExpiresAt ?? 0) >= before) return undefined;
  const final = record.attempt >= record.maxAttempts;
  if (dryRun) return { kind: final ? 'killed' : 'requeued', toSend: [] };
  if (!final) {
    const reason = `lease of attempt ${record.attempt} expired and its message was lost (recoverLost)`;
    return { kind: 'requeued', toSend: [await deps.store.requeue(record, reason, ACTOR)] };
  }
  // The same reason as the worker's and the sweeper's, for whoever filters DEAD tasks by it.
  const reason = 'lease expired on the final attempt';
  const dead = await deps.store.expire(record, reason, ACTOR);
  const released =
    (dead.dependents ?? []).length > 0
      ? // Sent with the rest, in enqueue order.
        (await releaseDependents(dead, { store: deps.store, logger: deps.logger })).released
      : [];
  return { kind: 'killed', toSend: released };
}
