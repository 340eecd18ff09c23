/**
 * The demo's delayed and recurring work: a few tasks enqueued with a delay of seconds and
 * one rate schedule, delivered by the local schedule pump (moto stores schedules but never
 * fires them). The summary compares when each was due with when the worker claimed it.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import {
  AuditEvent,
  isTerminal,
  type TaskClient,
  type TaskRecord,
  TaskStatus,
} from '../../src/index.js';
import { firingTaskId } from '../../src/scheduler/names.js';
import { formatScheduledTime } from '../../src/scheduler/occurrences.js';
import type { DemoTasks } from './demo-tasks.js';

/** Delays of the demo's delayed tasks, from the moment they are enqueued. */
const DELAYS_MS = [2_000, 4_000, 6_000] as const;
/** The recurring schedule's first firing, from the moment it is created. */
const RECURRING_START_MS = 3_000;
/** Tasks may run this much after they were due, locally: pump tick + queue poll + claim. */
const MAX_LATENESS_MS = 5_000;

/** What was scheduled, and when each should run. */
export interface ScheduledPlan {
  readonly delayed: readonly { readonly id: string; readonly dueAt: number }[];
  readonly recurring: {
    readonly name: string;
    readonly expression: string;
    readonly firstTaskId: string;
    readonly dueAt: number;
  };
}

/** Enqueues the delayed tasks and creates the recurring schedule. */
export async function scheduleDemoWork(
  client: TaskClient,
  tasks: DemoTasks,
): Promise<ScheduledPlan> {
  const now = Date.now();
  const delayed = await Promise.all(
    DELAYS_MS.map(async (delay, i) => {
      const id = `delayed-${i + 1}`;
      const { record } = await client.enqueue(
        tasks.sendEmail,
        {
          trace: { seq: 1000 + i },
          input: { to: `reminder${i + 1}@example.com`, subject: `Reminder ${i + 1}` },
        },
        { id, delay },
      );
      return { id, dueAt: record.runAt ?? now + delay };
    }),
  );
  const name = 'demo-every-minute';
  const expression = 'rate(1 minute)';
  const dueAt = Math.ceil((now + RECURRING_START_MS) / 1000) * 1000;
  await client.schedules.set(name, {
    rate: expression,
    startDate: new Date(dueAt),
    task: tasks.resizeImage,
    payload: { trace: { seq: 2000 }, input: { imageId: 'minutely-report', width: 128 } },
  });
  return {
    delayed,
    recurring: {
      name,
      expression,
      firstTaskId: firingTaskId(name, formatScheduledTime(dueAt)),
      dueAt,
    },
  };
}

/** Waits until every scheduled task is terminal, or the deadline passes; returns the records. */
export async function awaitScheduled(
  client: TaskClient,
  plan: ScheduledPlan,
  options: { deadline: number; signal: AbortSignal },
): Promise<Map<string, TaskRecord | undefined>> {
  const ids = [...plan.delayed.map((d) => d.id), plan.recurring.firstTaskId];
  const records = new Map<string, TaskRecord | undefined>();
  for (;;) {
    options.signal.throwIfAborted();
    for (const id of ids) records.set(id, await client.get(id));
    const done = ids.every((id) => {
      const record = records.get(id);
      return record !== undefined && isTerminal(record.status);
    });
    if (done || Date.now() >= options.deadline) return records;
    await sleep(250, undefined, { signal: options.signal });
  }
}

/** The summary rows for the scheduled work, and what went wrong with it. */
export function scheduledReport(
  plan: ScheduledPlan,
  records: ReadonlyMap<string, TaskRecord | undefined>,
): { rows: [string, string][]; problems: string[] } {
  const problems: string[] = [];
  const line = (id: string, dueAt: number): string => {
    const record = records.get(id);
    const claimedAt = record?.history.find((h) => h.event === AuditEvent.CLAIMED)?.at;
    if (record?.status !== TaskStatus.SUCCEEDED || claimedAt === undefined) {
      problems.push(`${id}: ${record?.status ?? 'no record'}, expected SUCCEEDED`);
      return `due ${clock(dueAt)}, ${record?.status ?? 'not created'}`;
    }
    const late = claimedAt - dueAt;
    if (late < 0) problems.push(`${id}: ran ${-late} ms before it was due`);
    if (late > MAX_LATENESS_MS) problems.push(`${id}: ran ${late} ms after it was due`);
    return `due ${clock(dueAt)}, ran ${clock(claimedAt)}  (${late >= 0 ? '+' : ''}${(late / 1000).toFixed(2)} s)`;
  };
  const rows: [string, string][] = plan.delayed.map((d) => [
    `Delayed ${d.id}`,
    line(d.id, d.dueAt),
  ]);
  const { recurring } = plan;
  rows.push(['Recurring', `${recurring.name} ${recurring.expression}: ${recurring.firstTaskId}`]);
  rows.push(['', line(recurring.firstTaskId, recurring.dueAt)]);
  return { rows, problems };
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}
