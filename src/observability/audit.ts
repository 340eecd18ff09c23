import type { AuditEvent, TaskStatus } from '../core/constants.js';
import type { HistoryEntry } from '../core/record.js';
import { shortWorkerId } from '../store/history.js';
import type { LogAttributes, TaskLogger } from './logger.js';

/**
 * One audit record (docs/design.md §1.7, NIST 800-53 AU-3): what happened, to which task, in which
 * attempt, by which worker, when, and with what outcome. The same shape is stored in the
 * task's history and written to the log.
 */
export interface AuditRecord {
  readonly event: AuditEvent;
  readonly taskId: string;
  readonly taskType: string;
  readonly attempt: number;
  /** Status after the event. Unchanged for events that are not transitions. */
  readonly status: TaskStatus | undefined;
  readonly workerId: string | undefined;
  /** Epoch milliseconds. */
  readonly at: number;
  /** Free-form outcome: an error message, a delay, a reason. */
  readonly detail: string | undefined;
  /**
   * The operator who acted (its STS caller identity, or `unknown principal (<why>)`), for an
   * operator's action; undefined for workers' and the sweeper's (docs/adr/0039-operator-audit.md).
   */
  readonly principal?: string | undefined;
}

/**
 * What {@link logAudit} writes: an audit record, whose task may be unknown (a rejected
 * message names no task the worker believes).
 */
export type AuditLine = Omit<AuditRecord, 'taskId' | 'taskType'> & {
  readonly taskId: string | undefined;
  readonly taskType: string | undefined;
};

/** How {@link logAudit} writes a line. */
export interface AuditLineOptions {
  /** @default 'info' */
  readonly level?: 'info' | 'warn';
  /** Added to the line, e.g. the message id of a rejected message. */
  readonly fields?: LogAttributes;
}

/** Writes an audit record to the log as one structured line: the one audit emitter. */
export function logAudit(
  logger: TaskLogger,
  record: AuditLine,
  options: AuditLineOptions = {},
): void {
  logger[options.level ?? 'info'](`task.${record.event}`, {
    audit: true,
    event: record.event,
    taskId: record.taskId,
    taskType: record.taskType,
    attempt: record.attempt,
    status: record.status,
    workerId: record.workerId,
    // The id the task's record stores, beside the full one (docs/adr/0027-compact-history.md).
    workerRef: record.workerId === undefined ? undefined : shortWorkerId(record.workerId),
    at: new Date(record.at).toISOString(),
    detail: record.detail,
    ...(record.principal === undefined ? {} : { principal: record.principal }),
    ...options.fields,
  });
}

/** The audit line of a history entry written to a task's record, with `fields` added. */
export function auditEntry(
  logger: TaskLogger,
  task: { readonly id: string; readonly type: string },
  entry: HistoryEntry,
  fields?: LogAttributes,
): void {
  const options = fields === undefined ? {} : { fields };
  logAudit(
    logger,
    {
      event: entry.event,
      taskId: task.id,
      taskType: task.type,
      attempt: entry.attempt,
      status: entry.status,
      workerId: entry.workerId,
      at: entry.at,
      detail: entry.detail,
      principal: entry.principal,
    },
    options,
  );
}
