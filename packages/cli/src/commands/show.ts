import type { Command } from 'commander';
import type { HistoryEntry, ObjectRef, TaskRecord } from 'tasklane';
import { AuditEvent, DEFAULT_LANE, TaskNotFoundError } from 'tasklane';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { humanDuration, isoTime } from '../output.js';

/** One row of a task's timeline: a history entry, with the run's duration where it ends one. */
export interface TimelineRow extends HistoryEntry {
  /** From the attempt's claim to this entry, when this entry ends a run. */
  readonly durationMs?: number;
}

/** `tasklane show <id>`: the record and its history as a timeline, a durable task's steps in it. */
export function registerShow(program: Command): void {
  program
    .command('show')
    .description('a task: its record, and its history as a timeline')
    .argument('<id>', 'the task id')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const { out, client } = commandContext(command);
      // A claim-checked result is shown as its S3 location, not read.
      // A durable task's stored steps join its timeline (docs/durable-tasks.md).
      const record = await (await client()).get(id, { fetch: false, steps: true });
      if (record === undefined) {
        throw new CliError(`No task has the id ${JSON.stringify(id)}.`, ExitCode.NOT_FOUND, {
          cause: new TaskNotFoundError(id),
          hint: 'Check the id (tasklane list shows recent ones): a finished task is removed after the retention period, a purged one at once.',
        });
      }
      const rows = timeline(record);
      if (out.json) {
        out.data({ ...record, timeline: rows });
        return;
      }
      out.table(['field', 'value'], fields(record));
      if (record.historyTruncated > 0) {
        out.line(
          `(${record.historyTruncated} older history entries were folded to bound the item)`,
        );
      }
      out.table(
        ['time', 'event', 'status', 'attempt', 'worker', 'duration', 'detail'],
        rows.map((r) => [
          isoTime(r.at),
          r.event === AuditEvent.DEAD ? out.color.red(r.event) : r.event,
          r.status,
          String(r.attempt),
          r.workerId ?? '',
          r.durationMs === undefined ? '' : humanDuration(r.durationMs),
          r.detail ?? '',
        ]),
      );
    });
}

function fields(r: TaskRecord): string[][] {
  const rows: [string, unknown][] = [
    ['id', r.id],
    ['type', r.type],
    ['lane', r.lane ?? DEFAULT_LANE],
    ['status', r.status],
    ['attempt', `${r.attempt} of ${r.maxAttempts}`],
    ['ordering key', r.orderingKey],
    ['created', isoTime(r.createdAt)],
    ['updated', isoTime(r.updatedAt)],
    ['run at', isoTime(r.runAt)],
    [
      'debounce',
      r.debounce === undefined
        ? ''
        : `key ${r.debounce.key} (${r.debounce.mode}), ${r.debounce.absorbed} enqueue(s) absorbed, window ends ${isoTime(r.runAt)}`,
    ],
    ['worker', r.workerId],
    ['lease expires', isoTime(r.leaseExpiresAt)],
    ['heartbeats', r.heartbeats > 0 ? `${r.heartbeats}, last ${isoTime(r.lastHeartbeatAt)}` : ''],
    [
      'progress',
      r.progressAt === undefined ? '' : `${JSON.stringify(r.progress)} at ${isoTime(r.progressAt)}`,
    ],
    ['cancel requested', r.cancelRequested ? isoTime(r.cancelRequestedAt) : ''],
    [
      'checkpoint',
      r.checkpointAt === undefined
        ? ''
        : `${r.checkpointRef ? objectRow(r.checkpointRef) : JSON.stringify(r.checkpoint)} at ${isoTime(r.checkpointAt)}`,
    ],
    ['continuations', r.continuations],
    ['steps', r.steps === undefined || r.steps.length === 0 ? '' : r.steps.length],
    ['parents', r.parents?.join(', ')],
    [
      'waiting on',
      r.status === 'WAITING' ? `${r.waitingOn ?? 0} of ${r.parents?.length ?? 0} parents` : '',
    ],
    ['on parent dead', r.onParentDead],
    ['dependents', r.dependents?.join(', ')],
    ['finished', isoTime(r.finishedAt)],
    ['error', r.lastError === undefined ? '' : `${r.lastError.name}: ${r.lastError.message}`],
    ['dead reason', r.deadReason],
    ['payload', r.payloadRef ? objectRow(r.payloadRef) : JSON.stringify(r.payload)],
    [
      'result',
      r.resultRef ? objectRow(r.resultRef) : r.result === undefined ? '' : JSON.stringify(r.result),
    ],
  ];
  return rows.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)]);
}

/** A claim-checked value: where it is and how big. */
function objectRow(ref: ObjectRef): string {
  return `s3://${ref.bucket}/${ref.key} (${ref.size} bytes)`;
}

const RUN_ENDS: readonly string[] = [
  AuditEvent.SUCCEEDED,
  AuditEvent.CONTINUED,
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.FAILED,
  AuditEvent.DEAD,
];

/**
 * The history, with each run's duration on the entry that ended it, and a durable task's
 * stored steps (whose entries live in their own items) merged in by time.
 */
export function timeline(record: TaskRecord): TimelineRow[] {
  let claimedAt: { at: number; attempt: number } | undefined;
  const steps: HistoryEntry[] = (record.steps ?? []).map((step) => ({
    event: AuditEvent.STEP_STORED,
    at: step.at,
    attempt: step.attempt,
    status: 'RUNNING',
    ...(step.workerId === undefined ? {} : { workerId: step.workerId }),
    detail: `step ${step.index} ${JSON.stringify(step.name)} (${step.sizeBytes} bytes)`,
  }));
  const entries = [...record.history, ...steps].sort((a, b) => a.at - b.at);
  return entries.map((entry) => {
    if (entry.event === AuditEvent.CLAIMED) claimedAt = { at: entry.at, attempt: entry.attempt };
    const ends =
      RUN_ENDS.includes(entry.event) &&
      claimedAt !== undefined &&
      claimedAt.attempt === entry.attempt;
    return ends && claimedAt !== undefined
      ? { ...entry, durationMs: entry.at - claimedAt.at }
      : entry;
  });
}
