/**
 * The sweeper's part of dependencies: finishes the releases a crash interrupted. A parent
 * whose terminal write landed but whose dependents were not all released stays in the
 * release partition of the status index (docs/adr/0030-dependencies.md); once it has been
 * there longer than the grace, during which its writer normally finishes, it is released
 * again. The release is idempotent, so racing the writer is harmless.
 */
import { isTerminal } from '../constants.js';
import { describeError } from '../error-info.js';
import { type ReleaseDeps, releaseDependents } from './release.js';

/** What {@link sweepReleases} did. */
export interface ReleaseSweep {
  /** Finished parents whose releases were run again. */
  readonly parents: number;
  /** Children released WAITING → PENDING by them. */
  readonly released: number;
  /** Children cancelled by them. */
  readonly cancelled: number;
  /** Parents that could not be read or released (logged); the next sweep retries. */
  readonly failed: number;
}

/** Runs the pending releases older than `before`, until `deadline` (epoch ms). */
export async function sweepReleases(
  deps: ReleaseDeps & { readonly clock: () => number },
  before: number,
  deadline: number,
): Promise<ReleaseSweep> {
  const totals = { parents: 0, released: 0, cancelled: 0, failed: 0 };
  try {
    for await (const ids of deps.store.dependencies.pendingReleases(before)) {
      for (const id of ids) {
        if (deps.clock() >= deadline) return totals;
        try {
          const parent = await deps.store.get(id);
          if (parent === undefined || !isTerminal(parent.status)) continue;
          const report = await releaseDependents(parent, deps);
          totals.parents += 1;
          totals.released += report.released.length;
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
  return totals;
}
