/**
 * A debounced enqueue (docs/debounce.md, docs/adr/0029-debounce.md): finds the key's waiting
 * task through the pointer and folds the enqueue into it with one conditional write; when
 * there is none (or it has started), creates the next generation's task, whose derived id
 * makes concurrent creators meet on one conditional PutItem.
 */

import { DebounceMode } from '../core/constants.js';
import { DebounceContendedError } from '../core/errors.js';
import { messageGroupOf } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { type DebounceStore, debounceTaskId } from '../store/debounce.js';
import type { NewTask } from '../store/task-store.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import { type RecordWriter, withStorage, writeNew } from './enqueue.js';
import { onTable } from './guarded-calls.js';
import { type EnqueueOptions, prepareTask } from './prepare.js';

/** What a debounced enqueue wrote. */
export interface DebouncedRecord {
  readonly record: TaskRecord;
  /** True when this enqueue created the task, false when it was absorbed into a waiting one. */
  readonly created: boolean;
}

/**
 * Creates lost to another producer's waiting task of the same generation before giving up:
 * each means another enqueue's create just landed and the task it made started before this
 * one could fold into it, so only a storm of them on one key can exhaust this. Moving past a
 * started or finished generation is progress, not contention: it is not counted.
 */
const MAX_LOST_CREATES = 16;

/**
 * Enqueues with `debounce`: folds the payload into the key's waiting task, or creates it.
 *
 * The search starts at the generation the pointer names and walks up: a generation that
 * has started, finished or is gone costs one request and is passed, a waiting one is folded
 * into, and the first free one is created. The pointer is then moved up to where the walk
 * ended, so a pointer that was missing or behind is walked past once, not on every enqueue
 * (docs/adr/0033-debounce-fences.md).
 *
 * @throws ValidationError, PayloadTooLargeError as `enqueue` does.
 * @throws DebounceContendedError when {@link MAX_LOST_CREATES} creates lost their race to
 *   waiting tasks that then started; nothing was absorbed or created then.
 */
export async function enqueueDebounced(
  writer: RecordWriter,
  debounces: DebounceStore,
  task: TaskDefinition,
  payload: unknown,
  options: EnqueueOptions,
  sequence: string | undefined,
): Promise<DebouncedRecord> {
  // An unknown lane fails before anything is written, as for any enqueue (ADR 0028).
  writer.lanes.get(task.lane, `Task type '${task.type}'`);
  const checked = await prepareTask(task, payload, options, writer.maxPayloadBytes, writer.clock());
  const spec = checked.debounce;
  if (spec === undefined) throw new TypeError('enqueueDebounced needs the debounce option');
  const pointed = await onTable(writer.table, () => debounces.generation(task.type, spec.key));
  // The tag and a claim-checked payload are made only for a write that stores the payload.
  const stored = (generation: number): Promise<NewTask> => {
    const id = debounceTaskId(task.type, spec.key, generation);
    const messageGroupId = messageGroupOf({ id, orderingKey: checked.orderingKey });
    return withStorage(writer, { ...checked, id, messageGroupId, sequence });
  };
  // A hint only: a failed move costs the next enqueue a longer walk, never a second task.
  const repairPointer = (generation: number) =>
    generation <= pointed
      ? Promise.resolve(false)
      : onTable(writer.table, () =>
          debounces.advance(task.type, spec.key, generation, spec.windowMs),
        ).catch(() => false);
  let generation = Math.max(pointed, 1);
  let absorbFirst = pointed > 0;
  for (let lost = 0; lost < MAX_LOST_CREATES; ) {
    if (absorbFirst) {
      const id = debounceTaskId(task.type, spec.key, generation);
      const replacement = spec.mode === DebounceMode.LAST ? await stored(generation) : undefined;
      const out = await onTable(writer.table, () => debounces.absorb(id, spec, replacement));
      if (out.kind === 'absorbed') {
        await repairPointer(generation);
        return { record: out.record, created: false };
      }
      if (out.kind === 'moved-on') {
        generation++;
        absorbFirst = false;
        continue;
      }
    }
    const { record, created } = await writeNew(writer, await stored(generation));
    if (created) {
      await repairPointer(generation);
      return { record, created: true };
    }
    if (debounces.mayAbsorb(record, spec, checked.orderingKey)) {
      // Another producer's create of this generation landed first: fold into its task.
      lost++;
      absorbFirst = true;
    } else {
      // A generation that started, finished or was rolled back: pass it, uncounted.
      generation++;
    }
  }
  throw new DebounceContendedError(task.type, spec.key, MAX_LOST_CREATES);
}
