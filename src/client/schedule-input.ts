import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { Defaults } from '../core/constants.js';
import { PayloadTooLargeError, ValidationError, type ValidationIssue } from '../core/errors.js';
import { firingTemplate, SchedulerContext, unkeyedGroup } from '../core/message.js';
import {
  parseScheduleExpression,
  type ScheduleExpression,
  timezoneProblem,
} from '../scheduler/expression.js';
import { instantProblem } from '../scheduler/limits.js';
import { scheduleNameProblem } from '../scheduler/names.js';
import type { SchedulerTarget } from '../scheduler/target.js';
import type { PayloadOf, TaskDefinition } from '../tasks/task-definition.js';
import { prepareTask } from './prepare.js';

/** Options of `TaskClient.schedules.set`. Give exactly one of `cron` and `rate`. */
export interface RecurringScheduleOptions<D extends TaskDefinition = TaskDefinition> {
  /** The task type each firing runs. */
  readonly task: D;
  /** The payload of every firing's task; at most 8 KB as JSON. */
  readonly payload: PayloadOf<D>;
  /**
   * AWS cron: `minutes hours day-of-month month day-of-week year`, with or without the
   * `cron(...)` wrapper; one of the day fields must be `?`. E.g. `0 9 ? * MON-FRI *`.
   */
  readonly cron?: string;
  /** `value unit`, with or without `rate(...)`, e.g. `5 minutes`, `1 hour`, `7 days`. */
  readonly rate?: string;
  /** IANA zone the cron expression is evaluated in. @default 'UTC' */
  readonly timezone?: string;
  /**
   * Message group of the firings. @default the schedule's name: firings of one schedule run
   * one after another, never overlapping
   */
  readonly orderingKey?: string;
  /**
   * No firing before this time. A rate schedule's firings count from it. A start more than
   * a minute in the past is not sent as is (Scheduler refuses one over 5 minutes old): a
   * rate is re-anchored on its next firing, keeping its phase, and a cron's is dropped. See
   * docs/scheduling.md. At most the end of 2199.
   * @default now; on an update, the schedule's current start (its phase is kept)
   */
  readonly startDate?: Date;
  /** No firing from this time on. @default never */
  readonly endDate?: Date;
  /**
   * Paused (Scheduler State DISABLED) or not.
   * @default false when created; when updated, the schedule's current state
   */
  readonly paused?: boolean;
  /** @default none */
  readonly description?: string;
}

/** A recurring schedule's input, checked: CreateSchedule's input and the parsed expression. */
export interface ValidSchedule {
  readonly input: CreateScheduleCommandInput;
  readonly expression: ScheduleExpression;
}

/**
 * Checks everything, reporting every problem at once, then builds CreateSchedule's input.
 *
 * @throws ValidationError, PayloadTooLargeError, ConfigurationError.
 */
export async function validateSchedule(
  target: SchedulerTarget,
  name: string,
  options: RecurringScheduleOptions,
): Promise<ValidSchedule> {
  const issues: ValidationIssue[] = [];
  const nameProblem = scheduleNameProblem(name);
  if (nameProblem !== undefined) issues.push({ path: 'name', message: nameProblem });
  const parsed = checkExpression(issues, options);
  const expression = parsed?.text;
  const timezone = options.timezone ?? 'UTC';
  const zoneProblem = timezoneProblem(timezone);
  if (zoneProblem !== undefined) issues.push({ path: 'timezone', message: zoneProblem });
  checkDates(issues, options);
  if (options.description !== undefined && String(options.description).length > 512) {
    issues.push({ path: 'description', message: 'expected at most 512 characters' });
  }
  let payloadJson: string | undefined;
  try {
    const prepared = await prepareTask(
      options.task,
      options.payload,
      options.orderingKey === undefined ? {} : { orderingKey: options.orderingKey },
      Defaults.MAX_SCHEDULE_PAYLOAD_BYTES,
    );
    payloadJson = prepared.payloadJson;
    if (payloadJson.includes(SchedulerContext.PREFIX)) {
      issues.push({
        path: 'payload',
        message: `must not contain '${SchedulerContext.PREFIX}…>': Scheduler would substitute it`,
      });
    }
  } catch (err) {
    if (err instanceof ValidationError) issues.push(...err.issues);
    else if (err instanceof PayloadTooLargeError) {
      issues.push({
        path: 'payload',
        message: `expected at most ${err.limitBytes} bytes as JSON (it travels in the schedule), received ${err.sizeBytes}`,
      });
    } else throw err;
  }
  if (
    issues.length > 0 ||
    parsed === undefined ||
    expression === undefined ||
    payloadJson === undefined
  ) {
    throw new ValidationError(`schedule ${JSON.stringify(String(name).slice(0, 80))}`, issues);
  }
  const firing = firingTemplate({
    schedule: name,
    type: options.task.type,
    payload: JSON.parse(payloadJson),
    orderingKey: options.orderingKey,
  });
  const input: CreateScheduleCommandInput = {
    Name: name,
    GroupName: target.groupName,
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: timezone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: options.paused === true ? 'DISABLED' : 'ENABLED',
    StartDate: options.startDate,
    EndDate: options.endDate,
    Description: options.description,
    ActionAfterCompletion: 'NONE',
    ...target.encryption(),
    Target: await target.target(
      firing,
      options.orderingKey ?? unkeyedGroup(name),
      options.task.lane,
      'recurring',
    ),
  };
  return { input, expression: parsed };
}

export function checkName(name: string): void {
  const problem = scheduleNameProblem(name);
  if (problem !== undefined) {
    throw new ValidationError('schedule name', [{ path: 'name', message: problem }]);
  }
}

/** Returns the parsed expression, or undefined after recording the problem. */
function checkExpression(
  issues: ValidationIssue[],
  options: RecurringScheduleOptions,
): ScheduleExpression | undefined {
  const { cron, rate } = options as { cron?: unknown; rate?: unknown };
  if ((cron === undefined) === (rate === undefined)) {
    issues.push({
      path: 'cron',
      message: `expected exactly one of cron and rate, received ${cron === undefined ? 'neither' : 'both'}`,
    });
    return undefined;
  }
  const [path, raw] = cron === undefined ? ['rate', rate] : ['cron', cron];
  const text =
    typeof raw === 'string' && !raw.trim().startsWith(`${path}(`) ? `${path}(${raw.trim()})` : raw;
  const parsed = parseScheduleExpression(text);
  if (!parsed.ok) {
    issues.push({ path, message: parsed.problem });
    return undefined;
  }
  if (parsed.expression.kind !== path) {
    issues.push({
      path,
      message: `expected a ${path} expression, received ${JSON.stringify(raw)}`,
    });
    return undefined;
  }
  return parsed.expression;
}

function checkDates(issues: ValidationIssue[], options: RecurringScheduleOptions): void {
  const valid = (path: 'startDate' | 'endDate'): number | undefined => {
    const value: unknown = options[path];
    if (value === undefined) return undefined;
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
      issues.push({ path, message: `expected a valid Date, received ${JSON.stringify(value)}` });
      return undefined;
    }
    const problem = instantProblem(value.getTime());
    if (problem === undefined) return value.getTime();
    issues.push({ path, message: problem });
    return undefined;
  };
  const start = valid('startDate');
  const end = valid('endDate');
  if (start !== undefined && end !== undefined && end <= start) {
    issues.push({ path: 'endDate', message: 'expected a time after startDate' });
  }
}
