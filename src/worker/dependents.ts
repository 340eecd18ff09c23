/**
 * The worker's part of task dependencies (docs/adr/0030-dependencies.md): releasing a
 * finished task's dependents right after its terminal write, and `ctx.parents()`.
 */

import { describeError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { ParentResult } from '../tasks/task-definition.js';
import type { ProcessorDeps } from './deps.js';

/**
 * Releases the dependents of a task this worker just finished, if it has any. Never throws:
 * the task's outcome is written, and a release cut short here is finished by the sweeper,
 * which finds the task in the release partition.
 */
export async function releaseAfter(
  finished: TaskRecord | undefined,
  deps: ProcessorDeps,
): Promise<void> {
  if (finished === undefined || (finished.dependents ?? []).length === 0) return;
  try {
    // Loaded by the first task that has dependents (docs/adr/0069-worker-chunks.md).
    const { releaseDependents } = await import('./optional-features.js');
    await releaseDependents(finished, deps);
  } catch (err) {
    deps.logger.error('dependents not released; the sweeper releases them', {
      taskId: finished.id,
      error: describeError(err),
    });
  }
}

/**
 * The parents of a task, as its handler's `ctx.parents()` returns them: each read with a
 * strongly consistent read, in `dependsOn` order, a claim-checked result fetched from the
 * payload bucket. A parent no longer stored (its retention ran out) is left out.
 */
export async function readParents(
  record: TaskRecord,
  deps: ProcessorDeps,
): Promise<readonly ParentResult[]> {
  const parents = await Promise.all((record.parents ?? []).map((id) => deps.store.get(id)));
  const results: ParentResult[] = [];
  for (const parent of parents) {
    if (parent === undefined) continue;
    const result =
      parent.resultRef === undefined
        ? parent.result
        : JSON.parse(await deps.objects.read(parent.resultRef));
    results.push({ id: parent.id, type: parent.type, status: parent.status, result });
  }
  return results;
}
