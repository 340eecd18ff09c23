/**
 * The demo workload: a fixed, reproducible mix of tasks over several ordering keys, with
 * some flaky tasks that succeed after retries and exactly one poison task.
 */
import type { BatchEntry, PayloadOf, TaskDefinition } from '../../src/index.js';
import type { DemoTasks } from './demo-tasks.js';

/** One task of the workload and what the demo expects of it. */
export interface PlannedTask {
  readonly id: string;
  /** Position in enqueue order. */
  readonly seq: number;
  readonly key: string | undefined;
  readonly type: string;
  /** Failed attempts before success; the retries this task should need. */
  readonly failTimes: number;
  /** The one task that must end DEAD. */
  readonly poison: boolean;
  readonly entry: BatchEntry;
}

/** Sizes of the workload. */
export interface WorkloadShape {
  readonly tasks: number;
  /** Ordering keys `customer-1..N`; every (keys + 1)th task has no key. */
  readonly keys: number;
}

/** The poison task's position: the middle of a keyed run, so it must release its key. */
const POISON_SEQ = 57;

/** Builds an entry with the payload checked against the task's own type. */
function entry<D extends TaskDefinition>(
  task: D,
  payload: PayloadOf<D>,
  options: BatchEntry['options'],
): BatchEntry {
  return { task, payload, ...(options === undefined ? {} : { options }) };
}

/** Plans the workload: ids, keys and payloads, in enqueue order. */
export function planWorkload(tasks: DemoTasks, shape: WorkloadShape): PlannedTask[] {
  return Array.from({ length: shape.tasks }, (_, seq): PlannedTask => {
    const id = `demo-${String(seq).padStart(4, '0')}`;
    const slot = seq % (shape.keys + 1);
    const key = slot < shape.keys ? `customer-${slot + 1}` : undefined;
    const trace = key === undefined ? { seq } : { key, seq };
    const options = key === undefined ? { id } : { id, orderingKey: key };
    const plan = { id, seq, key, failTimes: 0, poison: false };
    if (seq === POISON_SEQ) {
      const input = { note: `order ${seq} has an unparseable address` };
      return {
        ...plan,
        type: tasks.poison.type,
        poison: true,
        entry: entry(tasks.poison, { trace, input }, options),
      };
    }
    if (seq % 10 === 4) {
      // One task in ten is flaky; half of those fail twice before succeeding.
      const failTimes = seq % 20 === 4 ? 2 : 1;
      const input = { chargeId: `ch-${seq}`, amountCents: 500 + seq, failTimes };
      return {
        ...plan,
        type: tasks.flakyCharge.type,
        failTimes,
        entry: entry(tasks.flakyCharge, { trace, input }, options),
      };
    }
    if (seq % 2 === 0) {
      const input = { imageId: `img-${seq}`, width: 64 + ((seq * 37) % 1024) };
      return {
        ...plan,
        type: tasks.resizeImage.type,
        entry: entry(tasks.resizeImage, { trace, input }, options),
      };
    }
    const input = { to: `customer${slot + 1}@example.com`, subject: `Order ${seq} confirmed` };
    return {
      ...plan,
      type: tasks.sendEmail.type,
      entry: entry(tasks.sendEmail, { trace, input }, options),
    };
  });
}

/** The sequence numbers of each ordering key, in enqueue order. */
export function keyedSequences(plan: readonly PlannedTask[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const task of plan) {
    if (task.key === undefined) continue;
    const seqs = byKey.get(task.key) ?? [];
    seqs.push(task.seq);
    byKey.set(task.key, seqs);
  }
  return new Map([...byKey].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
}
