/**
 * A DEAD task's purge as the store makes it: the record first, then what hangs on it (its
 * steps, and the park item of a key it parked). Outside `TaskStore`, whose code every worker
 * loads, because only an operator purges (docs/adr/0070-store-parts-on-first-use.md).
 */
import type { TaskRecord } from '../core/record.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { ParkedKeys } from './parked-keys.js';
import { RecordWrites } from './record-writes.js';
import { StepStore } from './steps.js';
import type { TaskStore } from './task-store.js';

/**
 * Deletes the DEAD task `seen` for good ({@link RecordWrites.purge}: refused unless it is
 * still the DEAD record seen, so a concurrent redrive wins), then its steps, then the park
 * item of the key it parked, if that item is still this task's. A purge refused keeps them;
 * a crash after the record's delete leaves a park item that parks nothing, which the next
 * sweep or listing deletes (`ParkedKeys.verified`), and step items that nothing reads, which
 * expire with the retention. Its signals go next, by the client (src/client/purge.ts).
 *
 * @throws TransitionRejectedError when the task is no longer the DEAD record seen.
 */
export async function purgeDead(
  store: TaskStore,
  seen: TaskRecord,
  principal?: string,
): Promise<void> {
  await store.feature(RecordWrites).purge(seen, principal);
  await store.feature(StepStore).deleteAll(seen.id, seen.stepEpoch ?? 0);
  if (seen.parkedKey === undefined) return;
  const parked = store.feature(ParkedKeys);
  const lane = seen.lane === DEFAULT_LANE ? undefined : seen.lane;
  await parked.delete(seen.parkedKey, seen.id, lane);
  // A park held since before items had lanes lies under the default lane's name.
  if (lane !== undefined) await parked.delete(seen.parkedKey, seen.id);
}
