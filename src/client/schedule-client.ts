/**
 * `TaskClient.schedules`: the recurring schedules of the executor's group, with an audit line
 * for each operator change (pause, resume, delete; docs/adr/0039-operator-audit.md). The
 * Scheduler calls are `RecurringSchedules`'.
 */
import { AuditEvent } from '../core/constants.js';
import { logAudit } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import type { RecurringScheduleOptions } from './schedule-input.js';
import type {
  RecurringSchedules,
  ScheduleDetails,
  ScheduleResult,
  ScheduleSummary,
} from './schedules.js';

/**
 * `TaskClient.schedules`: the recurring schedules of the executor's schedule group
 * (docs/scheduling.md). Every input is validated before the first call to Scheduler, so
 * invalid input writes nothing.
 */
export interface ScheduleClient {
  /**
   * Creates or updates a recurring schedule: each firing becomes one task
   * `<name>@<scheduled time>`, even when Scheduler delivers it twice. The expression and
   * time zone are validated before any call. Setting an existing name updates it, keeping
   * its state (paused or not) unless `paused` is given, and a rate's phase unless
   * `startDate` is.
   *
   * @throws ValidationError listing every problem (name, expression, time zone, payload).
   * @throws ConfigurationError when the schedule group or scheduler role is not configured.
   */
  set<D extends TaskDefinition>(
    name: string,
    options: RecurringScheduleOptions<D>,
  ): Promise<ScheduleResult>;
  /** Deletes a recurring schedule; false when there was none. Tasks already fired stay. */
  delete(name: string): Promise<boolean>;
  /**
   * Stops a schedule's firings (Scheduler State DISABLED) until resumed.
   * @throws ScheduleNotFoundError when no schedule has this name.
   */
  pause(name: string): Promise<void>;
  /**
   * Resumes a paused schedule; firings missed while paused are not made up.
   * @throws ScheduleNotFoundError when no schedule has this name.
   */
  resume(name: string): Promise<void>;
  /** Lists the recurring schedules (with `includeDelayed`, delayed tasks' schedules too). */
  list(options?: { includeDelayed?: boolean }): Promise<ScheduleSummary[]>;
  /** Reads one schedule: expression, time zone, task and payload; undefined when none. */
  get(name: string): Promise<ScheduleDetails | undefined>;
}

/** What the audit lines of {@link auditedSchedules} need from the client. */
export interface ScheduleAuditDeps {
  readonly logger: TaskLogger;
  readonly clock: () => number;
  /** Who is acting: the client's operator principal. */
  readonly principal: () => Promise<string>;
}

/**
 * The {@link ScheduleClient} over `recurring`. The principal is resolved before the change,
 * so the audit line names who asked even when the call is the one that changed nothing.
 */
export function auditedSchedules(
  recurring: RecurringSchedules,
  deps: ScheduleAuditDeps,
): ScheduleClient {
  const audit = (event: AuditEvent, name: string, principal: string): void =>
    logAudit(
      deps.logger,
      {
        event,
        taskId: undefined,
        taskType: undefined,
        attempt: 0,
        status: undefined,
        workerId: undefined,
        at: deps.clock(),
        detail: `schedule ${name}`,
        principal,
      },
      { fields: { schedule: name } },
    );
  return {
    set: (name, options) => recurring.set(name, options),
    get: (name) => recurring.get(name),
    list: (options) => recurring.list(options),
    async delete(name) {
      const principal = await deps.principal();
      const deleted = await recurring.delete(name);
      if (deleted) audit(AuditEvent.SCHEDULE_DELETED, name, principal);
      return deleted;
    },
    async pause(name) {
      const principal = await deps.principal();
      await recurring.pause(name);
      audit(AuditEvent.SCHEDULE_PAUSED, name, principal);
    },
    async resume(name) {
      const principal = await deps.principal();
      await recurring.resume(name);
      audit(AuditEvent.SCHEDULE_RESUMED, name, principal);
    },
  };
}
