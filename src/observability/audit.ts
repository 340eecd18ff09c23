import type { AuditEvent, TaskStatus } from '../constants.js';
import type { TaskLogger } from './logger.js';

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
}

/** Writes an audit record to the log as one structured line. */
export function logAudit(logger: TaskLogger, record: AuditRecord): void {
  logger.info(`task.${record.event}`, {
    audit: true,
    event: record.event,
    taskId: record.taskId,
    taskType: record.taskType,
    attempt: record.attempt,
    status: record.status,
    workerId: record.workerId,
    at: new Date(record.at).toISOString(),
    detail: record.detail,
  });
}
