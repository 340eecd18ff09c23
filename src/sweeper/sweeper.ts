import { mapConcurrently } from '../aws/clients.js';
import { Defaults, TaskStatus } from '../core/constants.js';
import { describeError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { sweepReleases } from '../dependencies/sweep-releases.js';
import { keepVerified } from '../integrity/check.js';
import type { IntegrityTag } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import type { Waker } from '../scheduler/waker.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { DurableWrites } from '../store/durable-writes.js';
import { mayStillHold, ParkedKeys } from '../store/parked-keys.js';
import { PausedLanes } from '../store/paused-lanes.js';
import { iterateTasks } from '../store/queries.js';
import { compareEnqueueOrder } from '../store/record.js';
import { RecordWrites } from '../store/record-writes.js';
import type { TaskStore } from '../store/task-store.js';
import { type DeadLetterSweep, deadLetterPass } from './dead-letter-pass.js';
import { overdueBefore, resendOverdue } from './overdue.js';
import { repairCounted, repairExpiredRunning, SWEEPER_ACTOR } from './running-repair.js';
import { runningScan } from './running-scan.js';
import { sweepSignalWakes } from './signal-wakes.js';

/** A suspended task woken by a sweep is not woken again for this long. */
const REWAKE_AFTER_MS = 5 * 60_000;

/** Options of {@link sweep}. */
export interface SweepOptions {
  readonly store: TaskStore;
  readonly dispatcher: Dispatcher;
  readonly logger: TaskLogger;
  /** @default Date.now */
  readonly clock?: () => number;
  /** Stop starting new pages after this long; the next run continues. @default 45000 */
  readonly budgetMs?: number;
  /**
   * A PENDING task this old (since it became PENDING, or since its last re-send's backoff
   * ended) is sent again: its message may never have gone out (the outbox). Each re-send
   * doubles the wait before the next, up to `resendMaxBackoffMs`. @default 60000
   */
  readonly pendingAgeMs?: number;
  /** Longest wait between two re-sends of one PENDING task. @default 3600000 (1 h) */
  readonly resendMaxBackoffMs?: number;
  /** Records read per query. @default 100 */
  readonly pageSize?: number;
  /**
   * Repairs an overdue SCHEDULED task: recreates its missing schedule, or sends it when due
   * (`DelayedTasks.ensureScheduled`, see createDelayedTasks). Without it, SCHEDULED tasks are not swept.
   */
  readonly ensureScheduled?: (record: TaskRecord) => Promise<unknown>;
  /** A SCHEDULED task this long past its runAt is checked. @default 120000 */
  readonly scheduledGraceMs?: number;
  /**
   * A QUEUED task due this long ago (sent, or its retry delay over) and still not claimed
   * is sent again under a new generation: its message may have expired. @default 21600000 (6 h)
   */
  readonly queuedOverdueMs?: number;
  /** Verifies each task's integrity tag before sending it; undefined when integrity is off. */
  readonly integrity?: IntegrityTag | undefined;
  /**
   * Wakes SUSPENDED tasks whose wake was lost (docs/adr/0048-durable-sleep-signals-pause.md).
   * Without it, SUSPENDED tasks are not swept.
   */
  readonly waker?: Waker | undefined;
  /**
   * A SUSPENDED task due this long ago (its timer ended, or its signal came) and still not
   * claimed is woken again. @default Defaults.SUSPENDED_WAKE_GRACE_MS (30 s)
   */
  readonly suspendedGraceMs?: number;
  /**
   * A finished task whose dependents are still unreleased this long after its terminal write
   * (its writer crashed) has them released by the sweep. @default Defaults.RELEASE_GRACE_MS
   */
  readonly releaseGraceMs?: number;
  /**
   * The executor's lanes: the old PENDING, overdue QUEUED and due SUSPENDED tasks of a paused
   * one are left alone (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane").
   * @default the default lane only
   */
  readonly lanes?: readonly string[];
  /**
   * The work queues' DLQs to read for RUNNING tasks whose message reached them
   * (docs/adr/0052-running-leaves-the-status-index.md). Without it, no DLQ is read.
   */
  readonly deadLetters?: DeadLetterSweep | undefined;
  /**
   * Also Scan the table for RUNNING tasks whose lease expired, and repair them: after a work
   * queue was purged, or a message outlived its queue's retention, while a task ran and its
   * worker died. It sends again the retrying tasks off the index overdue by `queuedOverdueMs`
   * too (docs/adr/0068-a-retry-stays-off-the-index.md). It reads the whole table (its size / 4 KB read units); operators run it
   * after such an event (docs/runbook.md). @default false
   */
  readonly scanRunning?: boolean;
}

/** What one sweep did. */
export interface SweepReport {
  /**
   * RUNNING tasks whose lease expired, put back to work under a new generation: found through
   * a legacy index entry, a DLQ message, or the running scan.
   */
  readonly requeued: number;
  /** RUNNING tasks whose lease expired on their final attempt, declared DEAD. */
  readonly killed: number;
  /**
   * Overdue QUEUED tasks given a new generation to be sent again: found in the index, or off
   * it (a retry's) through the DLQ or the running scan (docs/adr/0068-a-retry-stays-off-the-index.md).
   */
  readonly resent: number;
  /** PENDING tasks (re)sent: unsent outbox entries, the requeued and the resent ones. */
  readonly sent: number;
  /** Sends that failed; those tasks stay PENDING for the next sweep. */
  readonly unsent: number;
  /** Overdue SCHEDULED tasks checked (schedule recreated, or sent when due). */
  readonly scheduledChecked: number;
  /** Transitions another actor won first (a worker, another sweeper). Harmless. */
  readonly conflicts: number;
  /**
   * Tasks (or pages of the status index) the sweep could not handle because of an
   * unexpected error, e.g. a corrupt item. Each is logged and skipped; the rest of the sweep
   * goes on, and the next sweep tries them again.
   */
  readonly failed: number;
  /** Tasks not sent because their integrity tag is missing or wrong (each audited). */
  readonly integrityFailed: number;
  /** Dependents released (WAITING → PENDING) for parents whose own release was cut short. */
  readonly released: number;
  /** SUSPENDED tasks woken again: due, and not claimed within the grace (their wake was lost). */
  readonly woken: number;
  /**
   * Tasks left alone because their lane is paused: old PENDING and overdue QUEUED tasks not
   * sent again, and due SUSPENDED tasks not woken again (their messages would wait in its
   * queue for nobody). The first sweep after the resume sends or wakes them.
   */
  readonly lanePaused: number;
  /** DLQ messages whose task's record the dead-letter pass read (docs/adr/0052-running-leaves-the-status-index.md). */
  readonly deadLettersChecked: number;
  /**
   * Expired RUNNING tasks and overdue retrying tasks off the index the running scan found (0
   * without `scanRunning`).
   */
  readonly runningScanned: number;
  /** Read units the running scan consumed (0 without `scanRunning`, or where not reported). */
  readonly scanReadUnits: number;
  /** True when the time budget ended the sweep early. */
  readonly budgetExhausted: boolean;
}

/**
 * One sweep: repairs what crashes leave behind, through the status index and the DLQs (a Scan
 * only with `scanRunning`).
 * - RUNNING tasks whose lease expired and whose message reached the DLQ (or, with
 *   `scanRunning`, any; or a legacy index entry): requeued with a fresh message while
 *   attempts are left (the next claim is a new attempt), else declared DEAD. One whose
 *   message is still in its queue is taken over by the claim when it comes back
 *   (docs/adr/0052-running-leaves-the-status-index.md).
 * - PENDING tasks older than `pendingAgeMs`: no write records a send, so the sweep cannot
 *   tell a task whose producer crashed before sending from one waiting in a backlog; it sends
 *   both, and notes each re-send, which doubles the task's wait before the next one
 *   (docs/adr/0020-claim-without-pre-read.md).
 * - SCHEDULED tasks overdue by `scheduledGraceMs` (with `ensureScheduled`): the schedule is
 *   checked and recreated, or the task is sent when due.
 * - QUEUED tasks overdue by `queuedOverdueMs`: their message may have outlived the queue's
 *   retention, so they are sent again under a new generation; except the waiting tasks of a
 *   parked key, which are held on purpose.
 * - SUSPENDED tasks due (timer ended, or signal come) and unclaimed for `suspendedGraceMs`
 *   (with `waker`): their wake was lost (a held message gone, a schedule missing), so they
 *   are woken again under the next generation (docs/adr/0048-durable-sleep-signals-pause.md).
 * - None of those three is sent or woken while its lane is paused: nobody receives its queue,
 *   so the message would only add to it. The first sweep after the resume does what still
 *   needs doing.
 *
 * Every change is a conditional transition, so the sweep is idempotent and two sweeps can
 * run at once: the loser of each race sees a rejected transition and moves on. One task
 * that cannot be repaired (an unexpected error on its record) is logged, counted in
 * `failed` and skipped: it never stops the sweep, nor the sends of other tasks. A duplicate
 * send is harmless: SQS deduplicates the same generation within 5 minutes, and the worker
 * acknowledges a message for a task that already ran.
 */
/** A key's group in a lane's queue, as one string (a key holds no space). */
const groupOf = (lane: string | undefined, key: string): string =>
  `${lane === undefined || lane === DEFAULT_LANE ? '' : lane} ${key}`;

/**
 * The (lane, key) groups a parked task's message holds now. Items whose task no longer parks
 * the key (purged, redriven, released) are deleted by `verified`; an item whose message
 * cannot be holding any more (its retention ran out, or it has not come back since its last
 * hold: moved to the dead-letter queue) is left out, so no stale item holds a key's re-sends.
 */
async function heldGroups(store: TaskStore, now: number): Promise<Set<string>> {
  const parks = await store.feature(ParkedKeys).verified();
  return new Set(
    parks
      .filter(({ park }) => mayStillHold(park, now))
      .map(({ park, task }) => groupOf(task.lane, park.orderingKey)),
  );
}

export async function sweep(options: SweepOptions): Promise<SweepReport> {
  const clock = options.clock ?? Date.now;
  const deadline = clock() + (options.budgetMs ?? 45_000);
  const pageSize = options.pageSize ?? 100;
  const { store, logger } = options;
  const counts = {
    requeued: 0,
    killed: 0,
    resent: 0,
    sent: 0,
    unsent: 0,
    scheduledChecked: 0,
    conflicts: 0,
    failed: 0,
    integrityFailed: 0,
    woken: 0,
    lanePaused: 0,
    deadLettersChecked: 0,
    runningScanned: 0,
    scanReadUnits: 0,
  };
  let budgetExhausted = false;
  const toSend: TaskRecord[] = [];

  const pages = async (
    status: TaskStatus,
    before: number,
    each: (r: TaskRecord) => Promise<void>,
  ) => {
    // The index only, never a Scan: a status it no longer keys (RUNNING) is read for the
    // entries an earlier version left (docs/adr/0052-running-leaves-the-status-index.md).
    const reader = store.part((ctx) =>
      iterateTasks(ctx, status, { before, pageSize, indexOnly: true }),
    );
    while (true) {
      if (clock() >= deadline) {
        budgetExhausted = true;
        return;
      }
      let page: IteratorResult<readonly TaskRecord[], void>;
      try {
        page = await reader.next();
      } catch (err) {
        // The rest of this status waits for the next sweep; the other statuses go on.
        counts.failed += 1;
        logger.error('sweep could not list tasks; skipping the rest of this status', {
          status,
          error: describeError(err),
        });
        return;
      }
      if (page.done === true) return;
      for (const record of page.value) {
        await repairCounted({ logger }, record, counts, () => each(record));
      }
    }
  };

  const now = clock();
  const queuedBefore = overdueBefore(now, options.queuedOverdueMs);
  // A parked key's later tasks wait behind its dead task's message on purpose: their own
  // messages are behind it too, and younger, so they are not sent again while it is parked
  // (docs/adr/0024-parked-keys.md). The park items are read only once an old keyed task
  // shows up, so a sweep without one pays nothing. Only a park whose task still parks the key
  // in that lane, and whose message may still hold it, counts (docs/adr/0032-parked-keys-lanes-and-groups.md).
  let held: Promise<Set<string>> | undefined;
  const isParked = async (record: TaskRecord) => {
    if (record.orderingKey === undefined) return false;
    held ??= heldGroups(store, now);
    return (await held).has(groupOf(record.lane, record.orderingKey));
  };
  // A paused lane's queue is received by nobody: its old tasks are not sent again, nor its
  // overdue ones given a new generation, nor its due suspended ones woken, until the first
  // sweep after the resume. The lanes' control items are read in one BatchGetItem, once such
  // a task shows up
  // (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane").
  const paused = store.part((ctx) => new PausedLanes(ctx, options.lanes ?? []));
  const isLanePaused = async (record: TaskRecord) => {
    if (!(await paused.isPaused(record.lane))) return false;
    counts.lanePaused += 1;
    return true;
  };
  // Legacy entries: records a version before ADR 0052 left RUNNING still carry the index's
  // keys (docs/adr/0052-running-leaves-the-status-index.md). On a new table the pass reads
  // its empty shards, one Query each.
  await pages(TaskStatus.RUNNING, now + 1, async (record) => {
    const repair = await repairExpiredRunning({ store, logger }, record, now);
    if (repair.kind === 'live') return;
    counts[repair.kind] += 1;
    toSend.push(...repair.send);
  });
  // A RUNNING task whose message reached the DLQ, and, when asked, any RUNNING task whose
  // lease expired (a purged queue, a retention shorter than the run).
  // Both find retrying tasks off the index too (docs/adr/0068-a-retry-stays-off-the-index.md),
  // sent again once overdue, as the QUEUED pass below sends the indexed ones.
  const passDeps = { store, logger, clock };
  const retrying = {
    queuedBefore,
    leaveAlone: async (record: TaskRecord) =>
      (await isParked(record)) || (await isLanePaused(record)),
  };
  if (options.deadLetters !== undefined && options.deadLetters.queues.length > 0) {
    const dlq = options.deadLetters;
    if (await deadLetterPass(passDeps, dlq, deadline, retrying, counts, toSend)) {
      budgetExhausted = true;
    }
  }
  if (options.scanRunning === true) {
    if (await runningScan(passDeps, now, deadline, options.pageSize, retrying, counts, toSend)) {
      budgetExhausted = true;
    }
  }
  await pages(TaskStatus.PENDING, now - (options.pendingAgeMs ?? 60_000), async (record) => {
    if (await isParked(record)) return;
    if (await isLanePaused(record)) return;
    toSend.push(record);
  });
  await pages(TaskStatus.QUEUED, queuedBefore, async (record) => {
    if (await isParked(record)) return;
    if (await isLanePaused(record)) return;
    toSend.push(await resendOverdue(store, record, queuedBefore, logger));
    counts.resent += 1;
  });

  const ensureScheduled = options.ensureScheduled;
  if (ensureScheduled !== undefined) {
    // The schedule may be missing (a producer crashed after writing the record) or may have
    // failed to deliver; either way the task is late, and ensureScheduled puts it right.
    await pages(
      TaskStatus.SCHEDULED,
      now - (options.scheduledGraceMs ?? 120_000),
      async (record) => {
        await ensureScheduled(record);
        counts.scheduledChecked += 1;
      },
    );
  }

  // Suspended tasks due and not claimed: their wake (a held message's end, a schedule's send,
  // a signal sender's wake) was lost. Each is woken again, and noted so that the next sweeps
  // leave it a while (docs/adr/0048-durable-sleep-signals-pause.md).
  const waker = options.waker;
  if (waker !== undefined) {
    const graceMs = options.suspendedGraceMs ?? Defaults.SUSPENDED_WAKE_GRACE_MS;
    await pages(TaskStatus.SUSPENDED, now - graceMs, async (record) => {
      const until = record.wait?.until;
      if (record.woken !== true && (until === undefined || until > now)) return;
      // Nobody receives a paused lane's queue: a new message would only wait there, one more
      // every REWAKE_AFTER_MS, and its held message is left as it is. Nothing is written, so
      // the first sweep after the resume wakes the task (still due and unclaimed).
      if (await isLanePaused(record)) return;
      // Noted first: the new message is of the generation the note moves to.
      if (!(await store.feature(DurableWrites).noteWake(record, now + REWAKE_AFTER_MS))) {
        counts.conflicts += 1;
        return;
      }
      const next = { ...record, generation: record.generation + 1 };
      if ((await waker.repair(next)) !== 'none') counts.woken += 1;
    });
    // Signal heads whose waiter's wake may be lost: a sender no longer marks the task itself
    // (docs/adr/0066-signal-head-off-the-task-item.md).
    const signalWakes = await sweepSignalWakes({
      store,
      waker,
      logger,
      clock,
      before: now - graceMs,
      rewakeAt: now + REWAKE_AFTER_MS,
      deadline,
      pageSize,
      isLanePaused,
    });
    counts.woken += signalWakes.woken;
    counts.failed += signalWakes.failed;
    if (signalWakes.budgetExhausted) budgetExhausted = true;
  }

  // Releases a crash interrupted: the released tasks join the sends below.
  const releaseBefore = now - (options.releaseGraceMs ?? Defaults.RELEASE_GRACE_MS);
  const releases = await sweepReleases({ store, logger, clock }, releaseBefore, deadline);
  counts.failed += releases.failed;
  if (releases.budgetExhausted) budgetExhausted = true;
  toSend.push(...releases.released);

  // Enqueue order within each ordering key: sends go out in the order the tasks were enqueued.
  const checkDeps = { integrity: options.integrity, logger, clock, actor: SWEEPER_ACTOR };
  const verified = await keepVerified(checkDeps, toSend);
  counts.integrityFailed += verified.refused;
  counts.failed += verified.failed;
  verified.kept.sort(compareEnqueueOrder);
  const sent = await options.dispatcher.sendAll(verified.kept);
  for (const record of sent) {
    if (record === undefined) counts.unsent += 1;
    else counts.sent += 1;
  }
  // Each send is noted, so a task still PENDING (in a backlog, or its message lost) is sent
  // again after a wait that doubles each time: within 5 minutes SQS deduplicates the copy,
  // after that the claim absorbs it.
  const graceMs = options.pendingAgeMs ?? 60_000;
  const maxBackoffMs = options.resendMaxBackoffMs ?? Defaults.PENDING_RESEND_MAX_BACKOFF_MS;
  await mapConcurrently(
    sent.flatMap((record) => (record === undefined ? [] : [record])),
    async (record) => {
      const backoffMs = Math.min(graceMs * 2 ** Math.min(record.resends, 30), maxBackoffMs);
      try {
        if (!(await store.feature(RecordWrites).noteResent(record, now + backoffMs)))
          counts.conflicts += 1;
      } catch (err) {
        counts.failed += 1;
        logger.error('sweep could not note a re-send; the task may be sent again sooner', {
          taskId: record.id,
          error: describeError(err),
        });
      }
    },
  );
  const report = { ...counts, released: releases.released.length, budgetExhausted };
  logger.info('sweep finished', { ...report });
  return report;
}
