import {
  ConflictException,
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  ListSchedulesCommand,
  ResourceNotFoundException,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { Defaults } from '../constants.js';
import {
  PayloadTooLargeError,
  ScheduleNotFoundError,
  ValidationError,
  type ValidationIssue,
} from '../errors.js';
import { firingTemplate, parseMessage } from '../message.js';
import { parseScheduleExpression, timezoneProblem } from '../scheduler/expression.js';
import { isDelayedScheduleName, scheduleNameProblem } from '../scheduler/names.js';
import type { PayloadOf, TaskDefinition } from '../worker/task-definition.js';
import { prepareTask } from './prepare.js';
import type { SchedulerTarget } from './scheduler-target.js';

/** Options of `TaskClient.schedule`. Give exactly one of `cron` and `rate`. */
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
  /** No firing before this time. A rate schedule's firings count from it. @default now */
  readonly startDate?: Date;
  /** No firing from this time on. @default never */
  readonly endDate?: Date;
  /** Create it paused (Scheduler State DISABLED). @default false */
  readonly paused?: boolean;
  /** @default none */
  readonly description?: string;
}

/** Outcome of `TaskClient.schedule`. */
export interface ScheduleResult {
  readonly name: string;
  readonly arn: string;
  /** False when a schedule of this name existed and was updated. */
  readonly created: boolean;
}

/** One schedule of the executor's group, as listed. */
export interface ScheduleSummary {
  readonly name: string;
  readonly arn: string;
  readonly state: 'ENABLED' | 'DISABLED';
  /** `delayed`: the one-time schedule of a delayed task. */
  readonly kind: 'recurring' | 'delayed';
}

/** One recurring schedule in full. */
export interface ScheduleDetails extends ScheduleSummary {
  readonly expression: string;
  readonly timezone: string;
  /** The task type of its firings; undefined when the target input is not a Tasklane firing. */
  readonly taskType: string | undefined;
  readonly payload: unknown;
  readonly startDate: Date | undefined;
  readonly endDate: Date | undefined;
}

const CONTEXT_ATTRIBUTE = '<aws.scheduler.';

/**
 * Recurring schedules in the executor's group. Every input is validated before the first
 * call to Scheduler, so invalid input writes nothing.
 */
export class RecurringSchedules {
  constructor(private readonly target: SchedulerTarget) {}

  /** Creates a schedule, or updates the one of the same name. */
  async schedule(name: string, options: RecurringScheduleOptions): Promise<ScheduleResult> {
    const input = await this.validate(name, options);
    const client = this.target.client;
    try {
      const out = await client.send(new CreateScheduleCommand(input));
      return { name, arn: out.ScheduleArn ?? '', created: true };
    } catch (err) {
      if (!(err instanceof ConflictException)) throw err;
    }
    const { ActionAfterCompletion: _, ClientToken: __, ...update } = input;
    const out = await client.send(new UpdateScheduleCommand(update));
    return { name, arn: out.ScheduleArn ?? '', created: false };
  }

  /** Deletes a schedule; false when it did not exist. */
  async unschedule(name: string): Promise<boolean> {
    checkName(name);
    try {
      await this.target.client.send(
        new DeleteScheduleCommand({ Name: name, GroupName: this.target.groupName }),
      );
      return true;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return false;
      throw err;
    }
  }

  /**
   * Pauses (DISABLED) or resumes (ENABLED) a schedule. UpdateSchedule replaces the whole
   * definition, so the current one is read and written back with the new state.
   *
   * @throws ScheduleNotFoundError when no schedule has this name.
   */
  async setState(name: string, state: 'ENABLED' | 'DISABLED'): Promise<void> {
    checkName(name);
    const current = await this.read(name);
    if (current === undefined) throw new ScheduleNotFoundError(name);
    await this.target.client.send(
      new UpdateScheduleCommand({
        Name: name,
        GroupName: this.target.groupName,
        ScheduleExpression: current.ScheduleExpression,
        ScheduleExpressionTimezone: current.ScheduleExpressionTimezone,
        FlexibleTimeWindow: current.FlexibleTimeWindow ?? { Mode: 'OFF' },
        Target: current.Target,
        StartDate: current.StartDate,
        EndDate: current.EndDate,
        Description: current.Description,
        KmsKeyArn: current.KmsKeyArn,
        ActionAfterCompletion: current.ActionAfterCompletion,
        State: state,
      }),
    );
  }

  /** Lists the group's schedules, page by page. */
  async list(options: { includeDelayed?: boolean } = {}): Promise<ScheduleSummary[]> {
    const out: ScheduleSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.target.client.send(
        new ListSchedulesCommand({ GroupName: this.target.groupName, NextToken: token }),
      );
      for (const s of page.Schedules ?? []) {
        const name = s.Name ?? '';
        const kind = isDelayedScheduleName(name) ? 'delayed' : 'recurring';
        if (kind === 'delayed' && options.includeDelayed !== true) continue;
        out.push({ name, arn: s.Arn ?? '', state: stateOf(s.State), kind });
      }
      token = page.NextToken;
    } while (token !== undefined && token !== '');
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Reads one schedule; undefined when there is none. */
  async get(name: string): Promise<ScheduleDetails | undefined> {
    checkName(name);
    const s = await this.read(name);
    if (s === undefined) return undefined;
    const parsed = parseMessage(
      (s.Target?.Input ?? '')
        .replace('<aws.scheduler.scheduled-time>', '1970-01-01T00:00:00Z')
        .replace('<aws.scheduler.execution-id>', 'x')
        .replace('<aws.scheduler.attempt-number>', '0'),
    );
    const firing = parsed.ok && parsed.kind === 'firing' ? parsed.firing : undefined;
    return {
      name,
      arn: s.Arn ?? '',
      state: stateOf(s.State),
      kind: isDelayedScheduleName(name) ? 'delayed' : 'recurring',
      expression: s.ScheduleExpression ?? '',
      timezone: s.ScheduleExpressionTimezone ?? 'UTC',
      taskType: firing?.type,
      payload: firing?.payload,
      startDate: s.StartDate,
      endDate: s.EndDate,
    };
  }

  private async read(name: string): Promise<GetScheduleCommandOutput | undefined> {
    try {
      return await this.target.client.send(
        new GetScheduleCommand({ Name: name, GroupName: this.target.groupName }),
      );
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return undefined;
      throw err;
    }
  }

  /**
   * Checks everything, reporting every problem at once, then builds CreateSchedule's input.
   *
   * @throws ValidationError, PayloadTooLargeError, ConfigurationError.
   */
  private async validate(
    name: string,
    options: RecurringScheduleOptions,
  ): Promise<CreateScheduleCommandInput> {
    const issues: ValidationIssue[] = [];
    const nameProblem = scheduleNameProblem(name);
    if (nameProblem !== undefined) issues.push({ path: 'name', message: nameProblem });
    const expression = checkExpression(issues, options);
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
      if (payloadJson.includes(CONTEXT_ATTRIBUTE)) {
        issues.push({
          path: 'payload',
          message: `must not contain '${CONTEXT_ATTRIBUTE}…>': Scheduler would substitute it`,
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
    if (issues.length > 0 || expression === undefined || payloadJson === undefined) {
      throw new ValidationError(`schedule ${JSON.stringify(String(name).slice(0, 80))}`, issues);
    }
    const input = firingTemplate({
      schedule: name,
      type: options.task.type,
      payload: JSON.parse(payloadJson),
      orderingKey: options.orderingKey,
    });
    return {
      Name: name,
      GroupName: this.target.groupName,
      ScheduleExpression: expression,
      ScheduleExpressionTimezone: timezone,
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: options.paused === true ? 'DISABLED' : 'ENABLED',
      StartDate: options.startDate,
      EndDate: options.endDate,
      Description: options.description,
      ActionAfterCompletion: 'NONE',
      Target: await this.target.target(input, options.orderingKey ?? name),
    };
  }
}

function checkName(name: string): void {
  const problem = scheduleNameProblem(name);
  if (problem !== undefined) {
    throw new ValidationError('schedule name', [{ path: 'name', message: problem }]);
  }
}

/** Returns the wrapped expression, or undefined after recording the problem. */
function checkExpression(
  issues: ValidationIssue[],
  options: RecurringScheduleOptions,
): string | undefined {
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
  return parsed.expression.text;
}

function checkDates(issues: ValidationIssue[], options: RecurringScheduleOptions): void {
  const valid = (path: 'startDate' | 'endDate'): number | undefined => {
    const value: unknown = options[path];
    if (value === undefined) return undefined;
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getTime();
    issues.push({ path, message: `expected a valid Date, received ${JSON.stringify(value)}` });
    return undefined;
  };
  const start = valid('startDate');
  const end = valid('endDate');
  if (start !== undefined && end !== undefined && end <= start) {
    issues.push({ path: 'endDate', message: 'expected a time after startDate' });
  }
}

function stateOf(state: string | undefined): 'ENABLED' | 'DISABLED' {
  return state === 'DISABLED' ? 'DISABLED' : 'ENABLED';
}
