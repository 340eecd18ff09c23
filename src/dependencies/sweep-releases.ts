/**
 * The sweeper's part of dependencies: finishes the releases a crash interrupted. A parent
 * whose terminal write landed but whose dependents were not all released stays in the
 * release partition of the status index (docs/adr/0030-dependencies.md); once it has been
 * there longer than the grace, during which its writer normally finishes, it is released
 * again. The release is idempotent, so racing the writer is harmless.
 */
import { isTerminal } from '../core/constants.js';
import { describeError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { DependencyStore } from '../store/dependency-store.js';
import { type ReleaseDeps, releaseDependents } from './release.js';

/** What {@link sweepReleases} did. */
export interface ReleaseSweep {
  /** Finished parents whose releases were run again. */
  readonly parents: number;
  /**
   * Children released WAITING → PENDING by them, not sent: the sweeper sends them with its
   * other sends, after the same integrity check and in enqueue order.
   */
  readonly released: readonly TaskRecord[];
  /** Children cancelled by them. */
  readonly cancelled: number;
  /** Parents that could not be read or released (logged); the next sweep retries. */
  readonly failed: number;
  /** True when the deadline stopped the pass before every pending release was run. */
  readonly budgetExhausted: boolean;
}

/**
 * Runs the pending releases older than `before`, until `deadline` (epoch ms). The released
 * children are returned unsent (PENDING: a crash before their send leaves them to the
 * outbox pass).
 */
export async function sweepReleases(
  deps: Omit<ReleaseDeps, 'dispatcher'> & { readonly clock: () => number },
  before: number,
  deadline: number,
): Promise<ReleaseSweep> {
  const totals = { parents: 0, released: [] as TaskRecord[], cancelled: 0, failed: 0 };
  try {
    for await (const ids of deps.store.feature(DependencyStore).pendingReleases(before)) {
      for (const id of ids) {
        if (deps.clock() >= deadline) return { ...totals, budgetExhausted: true };
        try {
          const parent = await deps.store.get(id);
          if (parent === undefined || !isTerminal(parent.status)) continue;
          const report = await releaseDependents(parent, { ...deps, dispatcher: undefined });
          totals.parents += 1;
          totals.released.push(...report.released);
          totals.cancelled += report.cancelled.length;
        } catch (err) {
          totals.failed += 1;
          deps.logger.error('sweep could not release the dependents of a task', {
            taskId: id,
            error: describeError(err),
          });
        }
      }
    }
  } catch (err) {
    totals.failed += 1;
    deps.logger.error('sweep could not list pending releases', { error: describeError(err) });
  }
  return { ...totals, budgetExhausted: false };
}
