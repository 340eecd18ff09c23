/**
 * Errors of a misconfiguration or an AWS resource: the permanent faults that retrying will not
 * mend (ADR 0011), and the schedule that is missing or could not be created.
 */
import { ErrorCode, TasklaneError } from './base.js';

/**
 * One permanent misconfiguration found by an AWS call or by `TaskClient.check()`: a resource
 * that does not exist, access denied, bad credentials, an endpoint that does not answer, or
 * no region.
 */
export interface ConfigurationProblem {
  /** What was wrong, e.g. `queue https://…/jobs.fifo does not exist`. */
  readonly message: string;
  /** The resource the call addressed: a queue URL, table name or schedule group. */
  readonly resource?: string | undefined;
  /** Where the call went: the endpoint URL, or a description when it is AWS's default. */
  readonly endpoint?: string | undefined;
  /** The AWS SDK's error. */
  readonly cause?: unknown;
}

/** Options of {@link ConfigurationError}. */
export interface ConfigurationErrorOptions extends ErrorOptions {
  /** The resource the failed call addressed (queue URL, table name, schedule group). */
  readonly resource?: string | undefined;
  /** The endpoint the failed call went to. */
  readonly endpoint?: string | undefined;
  /** Every problem, when several were found at once (`TaskClient.check()`). */
  readonly problems?: readonly ConfigurationProblem[];
}

/**
 * Tasklane is configured wrongly, and retrying will not help: a setting is missing, or AWS
 * says a resource does not exist, access is denied, the credentials are not valid, the
 * endpoint does not answer, or no region is set. `resource` and `endpoint` name what was
 * called and where; `cause` is the AWS SDK's error. Transient faults (throttling, 5xx) never
 * raise it.
 */
export class ConfigurationError extends TasklaneError {
  /** The resource the failed call addressed, when one did. */
  readonly resource: string | undefined;
  /** The endpoint the failed call went to, when one did. */
  readonly endpoint: string | undefined;
  /** Every problem found; one entry for a single failed call, none for a missing setting. */
  readonly problems: readonly ConfigurationProblem[];

  constructor(message: string, options: ConfigurationErrorOptions = {}) {
    const { resource, endpoint, problems, ...errorOptions } = options;
    super(ErrorCode.CONFIGURATION, message, errorOptions);
    this.resource = resource;
    this.endpoint = endpoint;
    this.problems = problems ?? [];
  }
}

/** No recurring schedule has this name in the executor's schedule group. */
export class ScheduleNotFoundError extends TasklaneError {
  /** The name looked up. */
  readonly scheduleName: string;

  constructor(scheduleName: string, options?: ErrorOptions) {
    super(ErrorCode.SCHEDULE_NOT_FOUND, `No schedule is named '${scheduleName}'.`, options);
    this.scheduleName = scheduleName;
  }
}

/**
 * The one-time schedule of a delayed task could not be created. The task record was
 * removed again, so nothing was enqueued: retrying with the same id is safe. `cause` is
 * the Scheduler error.
 */
export class ScheduleFailedError extends TasklaneError {
  readonly taskId: string;
  readonly scheduleName: string;

  constructor(taskId: string, scheduleName: string, options?: ErrorOptions) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      ErrorCode.SCHEDULE_FAILED,
      `Task '${taskId}' was not enqueued: its schedule '${scheduleName}' could not be created${reason}. ` +
        'It will not run (its record is rolled back); enqueue again with the same id to retry.',
      options,
    );
    this.taskId = taskId;
    this.scheduleName = scheduleName;
  }
}
