import type { AuditEvent, TaskStatus } from '../core/constants.js';

/** One entry of a task's history: an audit record without the task's own identity. */
export interface HistoryEntry {
  readonly event: AuditEvent;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly attempt: number;
  /** Status after the event. */
  readonly status: TaskStatus;
  /**
   * The worker: its id as the record stores it, the full id up to 16 characters, else a
   * short stable digest of it (`~` and 9 characters) that the audit log's `workerRef`
   * field maps to the full id (docs/adr/0027-compact-history.md).
   */
  readonly workerId?: string;
  readonly detail?: string;
}
