import { TaskStatus } from '../core/constants.js';
import { TransitionRejectedError, ValidationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { type ReleaseDeps, releaseDependents } from '../dependencies/release.js';
import { purgeDead } from '../store/purge.js';
import { iterateTasks } from '../store/queries.js';
import { signalWrites } from '../store/signal-writes.js';
import { type Duration, durationMs } from './duration.js';
import { deleteHeld, heldReceipt, type ParkDeps } from './parked-keys.js';
import { taskIdsIssues } from './task-ids.js';

/**
 * What a purge needs: the store and a release's parts, and the work queues, where a purged
 * parked task's held message is deleted (without them it is left to come back and meet no
 * task).
 */
export interface PurgeDeps extends ReleaseDeps {
  readonly queues?: Pick<ParkDeps, 'sqs' | 'workQueueUrl' | 'lanes'> | undefined;
}

/** Options of `TaskClient.purge`. */
export interface PurgeOptions {
  /**
   * Which tasks: only `DEAD` can be purged. SUCCEEDED and CANCELLED tasks leave by the
   * table's TTL, after the retention period.
   */
  readonly status: typeof TaskStatus.DEAD;
  /** Only tasks that died longer ago than this, e.g. `'30d'`. */
  readonly olderThan: Duration;
  /**
   * Only these of the matching tasks, e.g. the ones a dry run listed and an operator
   * confirmed; an id that no longer matches (redriven, purged, or died again since) is kept
   * and reported in `skipped`. @default every matching task
   */
  readonly ids?: readonly string[];
  /** List what would be purged and delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Called after each task is handled, e.g. to drive a progress bar. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** What a purge did (or, with `dryRun`, would do). */
export interface PurgeResult {
  /** Tasks deleted; with `dryRun`, the tasks that would be. */
  readonly purged: readonly string[];
  /** Tasks selected but kept because they changed meanwhile (e.g. redriven). */
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
  readonly dryRun: boolean;
}

/**
 * Deletes the DEAD tasks that died more than `olderThan` ago (of them, only those in `ids`
 * when given: the ones an operator confirmed). Each delete is conditional on
 * the task still being the DEAD record read, so a task redriven meanwhile is kept and
 * reported in `skipped`.
 *
 * @throws ValidationError when `status` is not DEAD, `olderThan` is not a duration or an id
 *   in `ids` cannot be a task's id.
 */
export async function purgeTasks(
  deps: PurgeDeps,
  options: PurgeOptions,
  now: number,
  principal?: string,
): Promise<PurgeResult> {
  if (options.status !== TaskStatus.DEAD) {
    throw new ValidationError('purge options', [
      {
        path: 'status',
        message: `expected DEAD, received ${JSON.stringify(options.status)}: only DEAD tasks are purged; SUCCEEDED and CANCELLED tasks expire after the retention period`,
      },
    ]);
  }
  if (options.ids !== undefined) {
    const issues = Array.isArray(options.ids)
      ? taskIdsIssues(options.ids, 'ids')
      : [{ path: 'ids', message: `expected an array of task ids, received ${typeof options.ids}` }];
    if (issues.length > 0) throw new ValidationError('purge options', issues);
  }
  const before = now - durationMs(options.olderThan, 'purge option olderThan');
  const wanted = options.ids === undefined ? undefined : new Set(options.ids);
  const selected: TaskRecord[] = [];
  for await (const page of deps.store.part((ctx) =>
    iterateTasks(ctx, TaskStatus.DEAD, { before }),
  )) {
    selected.push(...(wanted === undefined ? page : page.filter((r) => wanted.has(r.id))));
  }
  const found = new Set(selected.map((r) => r.id));
  const skipped: { id: string; reason: string }[] = [...(wanted ?? [])]
    .filter((id) => !found.has(id))
    .map((id) => ({
      id,
      reason: 'no longer a DEAD task that died before the cutoff (redriven, purged or died since)',
    }));
  if (options.dryRun === true) {
    return { purged: selected.map((r) => r.id), skipped, dryRun: true };
  }
  const purged: string[] = [];
  for (const [i, record] of selected.entries()) {
    try {
      await purgeReleased(record, deps, principal);
      purged.push(record.id);
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      skipped.push({
        id: record.id,
        reason: releasePending(record, err.current)
          ? 'its dependents are still being released (the sweeper finishes it); purge again later'
          : `changed meanwhile (now ${err.current?.status ?? 'deleted'})`,
      });
    }
    options.onProgress?.(i + 1, selected.length);
  }
  return { purged, skipped, dryRun: false };
}

/**
 * Whether `current` is still the death of `record` whose dependents' release has not
 * finished: the purge's condition refuses it (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
 */
function releasePending(record: TaskRecord, current: TaskRecord | undefined): boolean {
  return (
    current?.status === TaskStatus.DEAD &&
    current.updatedAt === record.updatedAt &&
    (current.dependents ?? []).length > 0
  );
}

/**
 * Deletes one DEAD task, and a parked one's held message after it. A DEAD parent is deleted
 * only once the release of its dependents is
 * done, as a redrive is (docs/adr/0031-dependency-fences.md): deleting it first would leave
 * them WAITING for a parent that no longer exists. When its release is still pending (a
 * moment after its death, or until the sweeper's pass after a crash), it is finished here,
 * and the delete sent again.
 *
 * @throws TransitionRejectedError when the task is no longer the DEAD record read, or its
 *   release could not be finished now.
 */
export async function purgeReleased(
  record: TaskRecord,
  deps: PurgeDeps,
  principal?: string,
): Promise<void> {
  // A parked task's held message goes with it, once it is deleted (read first: the delete
  // takes the park item that names the message).
  const held = deps.queues === undefined ? undefined : await heldReceipt(record, deps.store);
  let purged = record;
  try {
    await purgeDead(deps.store, record, principal);
  } catch (err) {
    const current = err instanceof TransitionRejectedError ? err.current : undefined;
    if (current === undefined || !releasePending(record, current)) throw err;
    await releaseDependents(current, deps);
    await purgeDead(deps.store, current, principal);
    purged = current;
  }
  // Its signals and their head go after it, as its steps do: a refused purge keeps them
  // (ADR 0048, ADR 0066).
  await signalWrites(deps.store).deleteAll(purged, purged.stepEpoch ?? 0, { head: true });
  if (held !== undefined && deps.queues !== undefined) {
    await deleteHeld({ ...deps.queues, logger: deps.logger }, held, record);
  }
}
