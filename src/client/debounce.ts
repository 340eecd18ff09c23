/**
 * A debounced enqueue (docs/debounce.md, docs/adr/0029-debounce.md): finds the key's waiting
 * task through the pointer and folds the enqueue into it with one conditional write; when
 * there is none (or it has started), creates the next generation's task, whose derived id
 * makes concurrent creators meet on one conditional PutItem.
 */
import { DebounceContendedError } from '../feature-errors.js';
import { messageGroupOf } from '../message-group.js';
import { type DebounceStore, debounceTaskId } from '../store/debounce.js';
import { DebounceMode } from '../store/debounce-spec.js';
import type { TaskRecord } from '../store/record.js';
import type { NewTask } from '../store/task-store.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import { type RecordWriter, withStorage, writeNew } from './create-record.js';
import { onTable } from './guarded-calls.js';
import { type EnqueueOptions, prepareTask } from './prepare.js';

/** What a debounced enqueue wrote. */
export interface DebouncedRecord {
  readonly record: TaskRecord;
  /** True when this enqueue created the task, false when it was absorbed into a waiting one. */
  readonly created: boolean;
}

/**
 * Creates lost to another enqueue's create of the same generation before giving up: each
 * means another enqueue's write just landed, so only a storm of them on one key can exhaust
 * this. Moving past a started generation is progress, not contention: it is not counted.
 */
const MAX_LOST_CREATES = 16;

/**
 * Enqueues with `debounce`: folds the payload into the key's waiting task, or creates it.
 *
 * @throws ValidationError, PayloadTooLargeError as `enqueue` does.
 * @throws DebounceContendedError when {@link MAX_LOST_CREATES} creates lost their race;
 *   nothing was absorbed or created then.
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
  let generation = Math.max(pointed, 1);
  let absorbFirst = pointed > 0;
  for (let lost = 0; lost < MAX_LOST_CREATES; ) {
    if (absorbFirst) {
      const id = debounceTaskId(task.type, spec.key, generation);
      const replacement = spec.mode === DebounceMode.LAST ? await stored(generation) : undefined;
      const out = await onTable(writer.table, () => debounces.absorb(id, spec, replacement));
      if (out.kind === 'absorbed') return { record: out.record, created: false };
      if (out.kind === 'moved-on') {
        generation++;
        absorbFirst = false;
        continue;
      }
    }
    const { record, created } = await writeNew(writer, await stored(generation));
    if (created) {
      await onTable(writer.table, () =>
        debounces.advance(task.type, spec.key, generation, spec.windowMs),
      ).catch(() => false); // a hint only: the next enqueue finds the task one step later
      return { record, created: true };
    }
    // Another enqueue created this generation first: fold into it (or move past it).
    lost++;
    absorbFirst = true;
  }
  throw new DebounceContendedError(task.type, spec.key, MAX_LOST_CREATES);
}
