/**
 * The demo's verdict: reads the final records against the plan and the observed start
 * order, and prints the summary table. The run passes only if every task is terminal,
 * exactly the poison task is DEAD, every other task SUCCEEDED, and every key kept order.
 */
import { AuditEvent, isTerminal, type TaskRecord, TaskStatus } from '../../src/index.js';
import type { OrderVerdict } from './start-log.js';
import type { PlannedTask } from './workload.js';

/** What the summary is computed from. */
export interface RunFacts {
  readonly plan: readonly PlannedTask[];
  /** The final record of each planned task, by id; undefined if it was never found. */
  readonly records: ReadonlyMap<string, TaskRecord | undefined>;
  readonly order: readonly OrderVerdict[];
  /** Time taken by enqueueBatch. */
  readonly enqueueMs: number;
  /** From the worker's start until every task was seen terminal. */
  readonly processingMs: number;
  /** Handler invocations by the event source mapping, and how many failed as a whole. */
  readonly invocations: { readonly batches: number; readonly failedWhole: number };
  /** Delayed and recurring work: its summary rows and problems (see scheduled.ts). */
  readonly scheduled?: { readonly rows: [string, string][]; readonly problems: string[] };
}

/** The printed table and the verdict. */
export interface RunReport {
  readonly lines: readonly string[];
  readonly passed: boolean;
  readonly problems: readonly string[];
}

/** Number of `claimed` entries in a task's history. */
export function claimCount(record: TaskRecord): number {
  return record.history.filter((entry) => entry.event === AuditEvent.CLAIMED).length;
}

/** Builds the summary and decides whether the run passed. */
export function buildReport(facts: RunFacts): RunReport {
  const { plan, records, order } = facts;
  const problems: string[] = [];
  const count = (status: TaskStatus) =>
    plan.filter((t) => records.get(t.id)?.status === status).length;
  for (const task of plan) {
    const record = records.get(task.id);
    const expected = task.poison ? TaskStatus.DEAD : TaskStatus.SUCCEEDED;
    if (record === undefined) problems.push(`${task.id}: no record`);
    else if (record.status !== expected) {
      problems.push(`${task.id} (${task.type}): ${record.status}, expected ${expected}`);
    }
  }
  for (const verdict of order) {
    if (!verdict.ok) problems.push(`order of ${verdict.key}: ${verdict.problem}`);
  }
  problems.push(...(facts.scheduled?.problems ?? []));

  const finalRecords = [...records.values()].filter((r): r is TaskRecord => r !== undefined);
  const retries = finalRecords.reduce((sum, r) => sum + Math.max(0, r.attempt - 1), 0);
  const plannedRetries = plan.reduce((sum, t) => sum + t.failTimes, 0);
  const reclaimed = finalRecords.filter((r) => claimCount(r) > 1).length;
  const unfinished = finalRecords.filter((r) => !isTerminal(r.status)).length;
  const keyed = plan.filter((t) => t.key !== undefined).length;
  const dead = plan
    .filter((t) => records.get(t.id)?.status === TaskStatus.DEAD)
    .map((t) => `${t.id} (${t.type}): ${records.get(t.id)?.deadReason ?? 'no reason recorded'}`);
  const wall = (facts.enqueueMs + facts.processingMs) / 1000;
  const processing = facts.processingMs / 1000;

  const rows: [string, string][] = [
    [
      'Tasks',
      `${plan.length}  (${keyed} on ${order.length} ordering keys, ${plan.length - keyed} without)`,
    ],
    ['Succeeded', String(count(TaskStatus.SUCCEEDED))],
    ['Dead', [String(dead.length), ...dead].join('  ')],
  ];
  if (count(TaskStatus.CANCELLED) > 0)
    rows.push(['Cancelled', String(count(TaskStatus.CANCELLED))]);
  if (unfinished > 0) rows.push(['Not terminal', String(unfinished)]);
  rows.push(
    ['Retries', `${retries}  (sum of attempts - 1; the workload plans ${plannedRetries})`],
    ['Claimed >1 time', `${reclaimed} tasks  (claims counted in each task's history)`],
    ...order.map((v): [string, string] => [
      `Order ${v.key}`,
      v.ok ? `yes  (${v.tasks} tasks)` : `NO   ${v.problem}`,
    ]),
    ...(facts.scheduled?.rows ?? []),
    [
      'Invocations',
      `${facts.invocations.batches} batches  (${facts.invocations.failedWhole} failed whole)`,
    ],
    [
      'Wall time',
      `${wall.toFixed(1)} s  (enqueue ${(facts.enqueueMs / 1000).toFixed(1)} s while the worker ran, then ${processing.toFixed(1)} s to drain)`,
    ],
    ['Throughput', `${(plan.length / Math.max(wall, 0.001)).toFixed(1)} tasks/s end to end`],
    ['Result', problems.length === 0 ? 'PASS' : `FAIL (${problems.length} problems)`],
  );
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const lines = ['Summary', ...rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`)];
  return { lines, passed: problems.length === 0, problems };
}
