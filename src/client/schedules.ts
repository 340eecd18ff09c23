import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  type GetScheduleCommandOutput,
  ListSchedulesCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-scheduler';
import { ScheduleNotFoundError } from '../core/errors.js';
import { parseMessage, SchedulerContext, substituteContext } from '../core/message.js';
import { type ScheduleFiring, scheduleFirings } from '../scheduler/firings.js';
import { isDelayedScheduleName } from '../scheduler/names.js';
import { startDateToSend } from '../scheduler/start-date.js';
import type { SchedulerTarget } from '../scheduler/target.js';
import { checkName, type RecurringScheduleOptions, validateSchedule } from './schedule-input.js';
import { readSchedule, stateUpdate, updateStartDate, writeVerified } from './schedule-writes.js';

export type { RecurringScheduleOptions } from './schedule-input.js';

/** Outcome of `TaskClient.schedules.set`. */
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
  /** When Scheduler created it; a rate without a start date counts from then. */
  readonly createdAt: Date | undefined;
  /** Its next firings (up to 3), as Scheduler evaluates the expression; none once it ends. */
  readonly nextFirings: readonly ScheduleFiring[];
  /**
   * The firings it was due to make most recently (up to 5, newest first), each with the id
   * of the task it creates: `client.get(taskId)` finds the task. One that fell while the
   * schedule was paused, or that Scheduler could not deliver, has no task.
   */
  readonly recentFirings: readonly ScheduleFiring[];
}

/**
 * Recurring schedules in the executor's group. Every input is validated before the first
 * call to Scheduler, so invalid input writes nothing.
 */
export class RecurringSchedules {
  constructor(
    private readonly target: SchedulerTarget,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Creates a schedule, or updates the one of the same name. An update keeps the
   * schedule's state (paused or not) unless `paused` is given, and its rate's phase unless
   * `startDate` is; see {@link startDateToSend} for the StartDate actually sent.
   */
  async set(name: string, options: RecurringScheduleOptions): Promise<ScheduleResult> {
    const { input, expression } = await validateSchedule(this.target, name, options);
    const client = this.target.client;
    const created = startDateToSend({
      expression,
      startDate: options.startDate?.getTime(),
      endDate: options.endDate?.getTime(),
      now: this.clock(),
    });
    try {
      const out = await client.send(
        new CreateScheduleCommand({
          ...input,
          StartDate: created === undefined ? undefined : new Date(created),
        }),
      );
      return { name, arn: out.ScheduleArn ?? '', created: true };
    } catch (err) {
      if (!(err instanceof ConflictException)) throw err;
    }
    const { ActionAfterCompletion: _, ClientToken: __, State: ___, ...update } = input;
    const build = (current: GetScheduleCommandOutput) => ({
      ...update,
      State: options.paused === undefined ? stateOf(current.State) : input.State,
      StartDate: updateStartDate(
        input.ScheduleExpression,
        options.startDate,
        current,
        options.endDate,
        this.clock(),
      ),
    });
    const arn = await writeVerified(client, this.target.groupName, name, build);
    // Deleted between the create and the update: create it again.
    if (arn === undefined) return this.set(name, options);
    return { name, arn, created: false };
  }

  /** Deletes a schedule; false when it did not exist. */
  async delete(name: string): Promise<boolean> {
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

  /** Pauses a schedule (DISABLED); see {@link RecurringSchedules.setState}. */
  pause(name: string): Promise<void> {
    return this.setState(name, 'DISABLED');
  }

  /** Resumes a schedule (ENABLED); see {@link RecurringSchedules.setState}. */
  resume(name: string): Promise<void> {
    return this.setState(name, 'ENABLED');
  }

  /**
   * Pauses (DISABLED) or resumes (ENABLED) a schedule. UpdateSchedule replaces the whole
   * definition, so the current one is read and written back with the new state, then read
   * again, and written again if a concurrent update replaced it (see `writeVerified`).
   * A rate keeps its phase (see `startDateToSend`).
   *
   * @throws ScheduleNotFoundError when no schedule has this name.
   */
  private async setState(name: string, state: 'ENABLED' | 'DISABLED'): Promise<void> {
    checkName(name);
    const { client, groupName } = this.target;
    const build = (current: GetScheduleCommandOutput) => stateUpdate(current, state, this.clock());
    if ((await writeVerified(client, groupName, name, build)) === undefined) {
      throw new ScheduleNotFoundError(name);
    }
  }

  /**
   * Lists the recurring schedules, page by page: the main group holds no delayed task's
   * schedule, so this pages through recurring ones only. With `includeDelayed`, the
   * delayed tasks' group is listed too, which may be long.
   */
  async list(options: { includeDelayed?: boolean } = {}): Promise<ScheduleSummary[]> {
    const groups = [this.target.groupName];
    if (options.includeDelayed === true) groups.push(this.target.delayedGroupName);
    const out: ScheduleSummary[] = [];
    for (const group of groups) {
      let token: string | undefined;
      do {
        const page = await this.target.client.send(
          new ListSchedulesCommand({ GroupName: group, NextToken: token }),
        );
        for (const s of page.Schedules ?? []) {
          const name = s.Name ?? '';
          // An executor from before the split keeps older delayed schedules in the main group.
          const kind = isDelayedScheduleName(name) ? 'delayed' : 'recurring';
          if (kind === 'delayed' && options.includeDelayed !== true) continue;
          out.push({ name, arn: s.Arn ?? '', state: stateOf(s.State), kind });
        }
        token = page.NextToken;
      } while (token !== undefined && token !== '');
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Reads one schedule; undefined when there is none. */
  async get(name: string): Promise<ScheduleDetails | undefined> {
    checkName(name);
    const s = await this.read(name);
    if (s === undefined) return undefined;
    const parsed = parseMessage(
      substituteContext(s.Target?.Input ?? '', {
        [SchedulerContext.SCHEDULED_TIME]: '1970-01-01T00:00:00Z',
        [SchedulerContext.EXECUTION_ID]: 'x',
        [SchedulerContext.ATTEMPT_NUMBER]: '0',
      }),
    );
    const firing = parsed.ok && parsed.kind === 'firing' ? parsed.firing : undefined;
    const timing = {
      name,
      expression: s.ScheduleExpression ?? '',
      timezone: s.ScheduleExpressionTimezone ?? 'UTC',
      startDate: s.StartDate,
      endDate: s.EndDate,
      createdAt: s.CreationDate,
    };
    const firings = scheduleFirings(timing, this.clock());
    return {
      ...timing,
      arn: s.Arn ?? '',
      state: stateOf(s.State),
      kind: isDelayedScheduleName(name) ? 'delayed' : 'recurring',
      taskType: firing?.type,
      payload: firing?.payload,
      nextFirings: firings.next,
      recentFirings: firings.recent,
    };
  }

  private read(name: string): Promise<GetScheduleCommandOutput | undefined> {
    return readSchedule(this.target.client, this.target.groupName, name);
  }
}

function stateOf(state: string | undefined): 'ENABLED' | 'DISABLED' {
  return state === 'DISABLED' ? 'DISABLED' : 'ENABLED';
}
