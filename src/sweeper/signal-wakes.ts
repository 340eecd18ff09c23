/**
 * The sweeper's repair of a lost signal wake (docs/adr/0066-signal-head-off-the-task-item.md).
 * A sender counts each signal in its task's signal head, an item of its own, and files that
 * head in the status index's wake partition (`WAKE#<shard>`) at the signal's time; it never
 * writes the task's item. The task is woken by the message the sender makes come (or by a
 * worker that finds the signal in the head). When that is lost (the sender crashed after its
 * write, its send failed), this pass finds the head once it is older than the suspended grace,
 * reads its task, and wakes a task still SUSPENDED waiting with a signal after its wait's
 * position as the suspended pass does: the wake noted (`note the signal wake of`), then the
 * held message shown and a new one sent. The head is then unfiled, fenced by the count read,
 * so a signal counted since keeps it filed. A paused lane's waiters are left filed until the
 * first sweep after its resume, as the suspended pass leaves them.
 */
import { describeError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Waker } from '../scheduler/waker.js';
import { getItems } from '../store/batch-get.js';
import { fromItem, type TaskItem } from '../store/record.js';
import {
  headTaskId,
  SignalStore,
  signalCount,
  signalHeadKey,
  toSignalHead,
} from '../store/signals.js';
import { entryId, partitionPages } from '../store/status-index.js';
import { signalWakeKey } from '../store/status-index-keys.js';
import type { TaskStore } from '../store/task-store.js';
import * as rows from '../store/transitions/signals.js';
import { send } from '../store/transitions/writer.js';

/** What the pass needs of the sweep. */
export interface SignalWakeSweep {
  readonly store: TaskStore;
  readonly waker: Waker;
  readonly logger: TaskLogger;
  readonly clock: () => number;
  /** Heads filed before this are looked at. */
  readonly before: number;
  /** A woken task is due again in the status index at this time (the suspended pass's rewake). */
  readonly rewakeAt: number;
  /** Stop starting new pages at this time. */
  readonly deadline: number;
  readonly pageSize: number;
  /** Whether the task's lane is paused (counted by the sweep). */
  readonly isLanePaused: (record: TaskRecord) => Promise<boolean>;
}

/** What the pass did. */
export interface SignalWakeCounts {
  woken: number;
  unfiled: number;
  failed: number;
  budgetExhausted: boolean;
}

/** Wakes the waiters of the heads filed before `before`, and unfiles the heads. */
export async function sweepSignalWakes(sweep: SignalWakeSweep): Promise<SignalWakeCounts> {
  const counts: SignalWakeCounts = { woken: 0, unfiled: 0, failed: 0, budgetExhausted: false };
  const ctx = sweep.store.part((c) => c);
  for (let shard = 0; shard < ctx.statusShards; shard++) {
    const query = { partition: signalWakeKey(shard), before: sweep.before };
    try {
      for await (const page of partitionPages(ctx, query, { limit: () => sweep.pageSize })) {
        if (sweep.clock() >= sweep.deadline) {
          counts.budgetExhausted = true;
          return counts;
        }
        const ids = page.items.flatMap((entry) => headTaskId(entryId(entry)) ?? []);
        const keys = ids.flatMap((id) => [id, signalHeadKey(id)]);
        const items = await getItems(ctx.doc, ctx.tableName, keys, { consistent: true });
        for (const id of ids) {
          try {
            await repair(sweep, counts, items.get(id), items.get(signalHeadKey(id)), id);
          } catch (err) {
            counts.failed += 1;
            sweep.logger.error(
              'sweep could not repair a signal wake; skipped until the next sweep',
              {
                taskId: id,
                error: describeError(err),
              },
            );
          }
        }
      }
    } catch (err) {
      counts.failed += 1;
      sweep.logger.error('sweep could not list signal wakes; skipping the rest of this shard', {
        shard,
        error: describeError(err),
      });
    }
  }
  return counts;
}

async function repair(
  sweep: SignalWakeSweep,
  counts: SignalWakeCounts,
  taskItem: TaskItem | undefined,
  headItem: TaskItem | undefined,
  taskId: string,
): Promise<void> {
  if (headItem === undefined) return;
  const record = taskItem === undefined ? undefined : fromItem(taskItem);
  const head = record === undefined ? undefined : toSignalHead(headItem, record);
  const wait = record?.wait;
  if (record !== undefined && head !== undefined && wait?.kind === 'signal') {
    const pending =
      record.status === 'SUSPENDED' &&
      record.woken !== true &&
      signalCount(record, head, wait.epoch) > (wait.signalsSeen ?? 0);
    if (pending) {
      // Left filed: the first sweep after the lane's resume wakes it.
      if (await sweep.isLanePaused(record)) return;
      const woken = await sweep.store.feature(SignalStore).wakeIfSignalled(record, sweep.rewakeAt);
      if (woken !== undefined && (await sweep.waker.repair(woken)) !== 'none') counts.woken += 1;
    }
  }
  // Nothing (more) to wake: a woken task is the suspended pass's, a running one finds the
  // signal itself, a finished or purged one needs nothing.
  const key = signalHeadKey(taskId);
  const epoch = Number(headItem.epoch);
  const count = Number(headItem.count);
  const sent = await send(
    sweep.store.part((c) => c),
    rows.unfileSignalHead,
    { key, epoch, count },
  );
  if (sent.accepted) counts.unfiled += 1;
}
