/**
 * The sweeper's opt-in running scan (docs/adr/0052-running-leaves-the-status-index.md):
 * after a work queue was purged, or when a queue's retention is shorter than a task's run, a
 * RUNNING task whose worker died may have no message anywhere: none in its queue to take over
 * its expired lease, none in the DLQ for the dead-letter pass. The status index no longer
 * keys RUNNING, so only a Scan of the table finds it: `sweep({ scanRunning: true })`, which
 * an operator runs after such an event (docs/runbook.md). It reads the whole table (its size
 * / 4 KB read units, eventually consistent: half that), page by page within the sweep's time
 * budget, and repairs each RUNNING task whose lease expired as the RUNNING pass did
 * (running-repair.ts). It finds the retrying tasks off the index too (a QUEUED task whose
 * retry left it out, docs/adr/0068-a-retry-stays-off-the-index.md), and sends again those
 * overdue, as the index's overdue pass does. A scheduled sweep never scans.
 */
import { describeError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import { RunningReads } from '../store/running-reads.js';
import type { TaskStore } from '../store/task-store.js';
import { type RepairTally, type RetryingRepair, repairEach } from './running-repair.js';

/** What {@link runningScan} adds to the sweep's report. */
export interface RunningScanTally extends RepairTally {
  /**
   * Expired RUNNING tasks and overdue retrying tasks off the index the scan found (each
   * repaired, or counted as a conflict or failure).
   */
  runningScanned: number;
  /** Read capacity the scan consumed (0 where the endpoint reports none). */
  scanReadUnits: number;
}

/**
 * Scans the table for RUNNING tasks whose lease ended at or before `now`, until `deadline`,
 * repairing each and queueing their sends on `toSend`. A page that cannot be read ends the
 * scan (logged, counted as failed); the next run starts it again.
 *
 * @returns true when the deadline stopped it before the table's end.
 */
export async function runningScan(
  deps: { readonly store: TaskStore; readonly logger: TaskLogger; readonly clock: () => number },
  now: number,
  deadline: number,
  pageSize: number | undefined,
  retrying: RetryingRepair,
  tally: RunningScanTally,
  toSend: TaskRecord[],
): Promise<boolean> {
  const reads = deps.store.feature(RunningReads);
  const pages = reads.expired(now + 1, retrying.queuedBefore, { pageSize });
  while (true) {
    if (deps.clock() >= deadline) {
      await pages.return();
      return true;
    }
    let page: Awaited<ReturnType<typeof pages.next>>;
    try {
      page = await pages.next();
    } catch (err) {
      tally.failed += 1;
      deps.logger.error('sweep could not scan for running tasks; the next run scans again', {
        error: describeError(err),
      });
      return false;
    }
    if (page.done === true) return false;
    tally.scanReadUnits += page.value.readUnits;
    tally.runningScanned += page.value.records.length + page.value.retrying.length;
    await repairEach(deps, page.value, now, retrying, tally, toSend);
  }
}
