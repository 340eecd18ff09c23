/**
 * Where the worker and the sweeper check a record's integrity tag. A record that fails is
 * audited (`integrity-failed`) and counted; the caller then refuses it: the worker declares
 * the task DEAD without running the handler, the sweeper does not send it.
 */
import { AuditEvent } from '../core/constants.js';
import type { TaskErrorInfo, TaskRecord } from '../core/record.js';
import { logAudit } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import { type TaskMetrics, TaskOutcome } from '../observability/metrics.js';
import { INTEGRITY_FAILED, integrityFailure } from './integrity-settings.js';
import type { IntegrityKey } from './tag.js';

/** What {@link checkIntegrity} needs. */
export interface IntegrityCheckDeps {
  /** Undefined when integrity is off: every record passes. */
  readonly integrity?: IntegrityKey | undefined;
  readonly logger: TaskLogger;
  readonly metrics?: TaskMetrics | undefined;
  readonly clock: () => number;
  /** The worker id (or `sweeper`) the audit line names. */
  readonly actor: string;
}

/**
 * Verifies the record's tag. Undefined when it may proceed; otherwise the error to record
 * (name {@link INTEGRITY_FAILED}), after auditing and counting the failure. A KMS fault
 * throws: that is an outage, not a tampered record, and the caller's retry covers it.
 */
export async function checkIntegrity(
  deps: IntegrityCheckDeps,
  record: TaskRecord,
): Promise<TaskErrorInfo | undefined> {
  if (deps.integrity === undefined) return undefined;
  const verdict = await deps.integrity.verify(record);
  if (verdict.ok) return undefined;
  const message = integrityFailure(verdict.problem);
  logAudit(deps.logger, {
    event: AuditEvent.INTEGRITY_FAILED,
    taskId: record.id,
    taskType: record.type,
    attempt: record.attempt,
    status: record.status,
    workerId: deps.actor,
    at: deps.clock(),
    detail: message,
  });
  deps.metrics?.count(TaskOutcome.INTEGRITY_FAILED);
  return { name: INTEGRITY_FAILED, message };
}

/**
 * The sweeper's check before it (re)sends: the records whose tag verifies, in their order.
 * A refused record is audited and left as it is (a worker would declare it DEAD unrun); a
 * record whose check failed for another reason (KMS unreachable) is logged and left for the
 * next sweep.
 */
export async function keepVerified(
  deps: IntegrityCheckDeps,
  records: readonly TaskRecord[],
): Promise<{ kept: TaskRecord[]; refused: number; failed: number }> {
  if (deps.integrity === undefined) return { kept: [...records], refused: 0, failed: 0 };
  const verdicts = await Promise.all(
    records.map((record) =>
      checkIntegrity(deps, record).then(
        (error) => (error === undefined ? 'kept' : 'refused'),
        (err: unknown) => {
          deps.logger.error('integrity check failed; the task is not sent until the next sweep', {
            taskId: record.id,
            error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
          });
          return 'failed' as const;
        },
      ),
    ),
  );
  return {
    kept: records.filter((_, i) => verdicts[i] === 'kept'),
    refused: verdicts.filter((v) => v === 'refused').length,
    failed: verdicts.filter((v) => v === 'failed').length,
  };
}
