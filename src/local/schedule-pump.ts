/**
 * The local stand-in for EventBridge Scheduler's delivery. moto stores schedules but never
 * fires them; the pump reads the executor's groups' schedules (recurring and delayed), works out which firings are due, and
 * sends each to its target queue as the service would: the target's input with the
 * `<aws.scheduler.*>` context attributes substituted, in the target's message group.
 *
 * Time is whatever the injected clock (or `tick(now)`) says, so a test can drive an hour of
 * schedules in milliseconds. Each tick delivers the recurring firings due in
 * `(previous tick, now]`, and every one-time schedule due by `now` that it has not yet
 * delivered; a one-time schedule with ActionAfterCompletion DELETE is then deleted.
 *
 * Each group delivers as its own role, as in AWS, where each group's role trusts Scheduler
 * only for that group (docs/adr/0036-trust-model-hardening.md): recurring firings are signed
 * with {@link LOCAL_SCHEDULER_SENDER_ID}, delayed tasks with
 * {@link LOCAL_DELAYED_SCHEDULER_SENDER_ID}; given `roles`, a schedule naming another
 * group's role is not delivered, as Scheduler could not assume it.
 */
import { randomBytes } from 'node:crypto';
import {
  DeleteScheduleCommand,
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  ListSchedulesCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SchedulerContext, substituteContext } from '../core/message.js';
import { silentLogger, type TaskLogger } from '../observability/logger.js';
import { parseScheduleExpression } from '../scheduler/expression.js';
import { delayedScheduleGroupName } from '../scheduler/names.js';
import { formatScheduledTime, occurrences } from '../scheduler/occurrences.js';
import { pause } from './pause.js';

/**
 * The access key id the local pump signs its sends with. The emulator reports it as the
 * messages' SenderId, as SQS reports the scheduler role's id, so a worker given it as
 * `schedulerSenderId` tells the pump's firings from a producer's (ADR 0013).
 */
export const LOCAL_SCHEDULER_SENDER_ID = 'schedulerpump';

/**
 * The access key id the pump signs delayed tasks' deliveries with: the stand-in for the
 * delayed group's role, whose firings the worker rejects.
 */
export const LOCAL_DELAYED_SCHEDULER_SENDER_ID = 'schedulerpumpdelayed';

/** Options of {@link createSchedulePump}. */
export interface SchedulePumpOptions {
  readonly scheduler: SchedulerClient;
  /**
   * The client the pump delivers with. Give it credentials of its own (access key id
   * {@link LOCAL_SCHEDULER_SENDER_ID}), not a producer's: the worker believes a firing only
   * from the scheduler's SenderId.
   */
  readonly sqs: SQSClient;
  /**
   * The client the pump delivers the delayed group's schedules with: credentials of their own
   * (access key id {@link LOCAL_DELAYED_SCHEDULER_SENDER_ID}). @default `sqs`
   */
  readonly delayedSqs?: SQSClient;
  /**
   * Each group's delivery role. Given, a schedule whose target names another role is not
   * delivered (an error, no dead letter), as Scheduler cannot assume a role that does not
   * trust the schedule's group. @default no check
   */
  readonly roles?: { readonly recurring: string; readonly delayed: string };
  /** The group of recurring schedules. */
  readonly groupName: string;
  /** The group of delayed tasks' one-time schedules. @default `<groupName>.at` */
  readonly delayedGroupName?: string;
  /** @default Date.now */
  readonly clock?: () => number;
  /** Recurring firings at or before this instant are never delivered. @default clock() now */
  readonly since?: number;
  /**
   * Deliveries of each firing. Scheduler delivers at least once; 2 makes every firing
   * arrive twice (each with its own execution id), to prove the consumer idempotent.
   * @default 1
   */
  readonly deliveriesPerFiring?: number;
  readonly logger?: TaskLogger;
}

/** One message the pump sent (or failed to send). */
export interface PumpDelivery {
  readonly schedule: string;
  /** Epoch ms of the firing. */
  readonly scheduledAt: number;
  readonly executionId: string;
  /** SQS message id; undefined when the send failed. */
  readonly messageId: string | undefined;
  /** Why the send failed; the input then went to the schedule's dead-letter queue, if any. */
  readonly error?: string;
}

/** What one tick did. */
export interface PumpTick {
  readonly now: number;
  readonly deliveries: readonly PumpDelivery[];
  /** One-time schedules deleted after completion. */
  readonly deleted: readonly string[];
}

/** A running pump. */
export interface SchedulePump {
  /** Delivers everything due up to `now` (default: the clock) since the previous tick. */
  tick(now?: number): Promise<PumpTick>;
  /** Ticks every `intervalMs` (default 1000) until `signal` aborts; errors are logged. */
  run(options: {
    signal: AbortSignal;
    intervalMs?: number;
    onTick?: (tick: PumpTick) => void;
  }): Promise<void>;
}

/** Creates a pump over an executor's schedule groups, recurring and delayed. */
export function createSchedulePump(options: SchedulePumpOptions): SchedulePump {
  const delayedGroup = options.delayedGroupName ?? delayedScheduleGroupName(options.groupName);
  const groups = [options.groupName, delayedGroup];
  const delivery = (group: string) =>
    group === delayedGroup
      ? { sqs: options.delayedSqs ?? options.sqs, role: options.roles?.delayed }
      : { sqs: options.sqs, role: options.roles?.recurring };
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const copies = options.deliveriesPerFiring ?? 1;
  let last = options.since ?? clock();
  const completed = new Set<string>();
  const queueUrls = new Map<string, Promise<string>>();

  const queueUrl = (arn: string): Promise<string> => {
    let url = queueUrls.get(arn);
    if (url === undefined) {
      const [, , , , account, name] = arn.split(':');
      url = options.sqs
        .send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }))
        .then((out) => out.QueueUrl ?? '');
      url.catch(() => queueUrls.delete(arn));
      queueUrls.set(arn, url);
    }
    return url;
  };

  const deliver = async (
    schedule: GetScheduleCommandOutput,
    group: string,
    scheduledAt: number,
  ): Promise<PumpDelivery> => {
    const as = delivery(group);
    const executionId = randomBytes(8).toString('hex');
    const input = substituteContext(schedule.Target?.Input ?? '', {
      [SchedulerContext.SCHEDULED_TIME]: formatScheduledTime(scheduledAt),
      [SchedulerContext.EXECUTION_ID]: executionId,
      [SchedulerContext.ATTEMPT_NUMBER]: '1',
      [SchedulerContext.SCHEDULE_ARN]: schedule.Arn ?? '',
    });
    const base = { schedule: schedule.Name ?? '', scheduledAt, executionId };
    if (as.role !== undefined && schedule.Target?.RoleArn !== as.role) {
      // AWS would fail to assume the role, so neither the target nor the DLQ gets anything.
      const error = `Scheduler cannot assume ${schedule.Target?.RoleArn ?? 'no role'} for a schedule of group ${group}: only ${as.role} trusts that group`;
      logger.warn('schedule pump: delivery refused', { schedule: base.schedule, error });
      return { ...base, messageId: undefined, error };
    }
    try {
      const out = await as.sqs.send(
        new SendMessageCommand({
          QueueUrl: await queueUrl(schedule.Target?.Arn ?? ''),
          MessageBody: input,
          MessageGroupId: schedule.Target?.SqsParameters?.MessageGroupId,
        }),
      );
      return { ...base, messageId: out.MessageId };
    } catch (err) {
      const error = (err as Error).message;
      logger.warn('schedule pump: delivery failed', { schedule: base.schedule, error });
      await deadLetter(as.sqs, schedule, input, error).catch((dlqError: unknown) => {
        logger.error('schedule pump: dead-letter send failed', {
          schedule: base.schedule,
          error: (dlqError as Error).message,
        });
      });
      return { ...base, messageId: undefined, error };
    }
  };

  const deadLetter = async (
    sqs: SQSClient,
    schedule: GetScheduleCommandOutput,
    input: string,
    error: string,
  ) => {
    const arn = schedule.Target?.DeadLetterConfig?.Arn;
    if (arn === undefined) return;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: await queueUrl(arn),
        MessageBody: input,
        MessageAttributes: {
          ERROR_MESSAGE: { DataType: 'String', StringValue: error.slice(0, 1000) || 'unknown' },
          SCHEDULE_ARN: { DataType: 'String', StringValue: schedule.Arn ?? 'unknown' },
          TARGET_ARN: { DataType: 'String', StringValue: schedule.Target?.Arn ?? 'unknown' },
        },
      }),
    );
  };

  const remove = async ({ name, group }: { name: string; group: string }): Promise<boolean> => {
    try {
      await options.scheduler.send(new DeleteScheduleCommand({ Name: name, GroupName: group }));
      return true;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return false;
      throw err;
    }
  };

  const tick = async (now = clock()): Promise<PumpTick> => {
    const after = last;
    const due: { schedule: GetScheduleCommandOutput; group: string; at: number }[] = [];
    const toDelete: { name: string; group: string }[] = [];
    const schedules: { schedule: GetScheduleCommandOutput; group: string }[] = [];
    for (const group of groups) {
      for (const schedule of await enabledSchedules(options.scheduler, group)) {
        schedules.push({ schedule, group });
      }
    }
    for (const { schedule, group } of schedules) {
      const parsed = parseScheduleExpression(schedule.ScheduleExpression);
      if (!parsed.ok) {
        logger.warn('schedule pump: expression not understood', {
          schedule: schedule.Name,
          problem: parsed.problem,
        });
        continue;
      }
      const timing = {
        expression: parsed.expression,
        timezone: schedule.ScheduleExpressionTimezone,
        startDate: schedule.StartDate?.getTime(),
        endDate: schedule.EndDate?.getTime(),
        createdAt: schedule.CreationDate?.getTime(),
      };
      const key = `${schedule.Arn}|${schedule.ScheduleExpression}`;
      if (parsed.expression.kind === 'at') {
        // A one-time schedule fires once, however late the pump gets to it.
        if (completed.has(key)) continue;
        const [at] = occurrences(timing, Number.NEGATIVE_INFINITY, now);
        if (at === undefined) continue;
        due.push({ schedule, group, at });
        completed.add(key);
        if (schedule.ActionAfterCompletion === 'DELETE')
          toDelete.push({ name: schedule.Name ?? '', group });
        continue;
      }
      for (const at of occurrences(timing, after, now)) due.push({ schedule, group, at });
      const end = timing.endDate;
      if (end !== undefined && end <= now && schedule.ActionAfterCompletion === 'DELETE') {
        toDelete.push({ name: schedule.Name ?? '', group });
      }
    }
    due.sort((a, b) => a.at - b.at);
    const deliveries: PumpDelivery[] = [];
    for (const { schedule, group, at } of due) {
      for (let copy = 0; copy < copies; copy++) deliveries.push(await deliver(schedule, group, at));
    }
    const deleted: string[] = [];
    for (const one of toDelete) if (await remove(one)) deleted.push(one.name);
    last = Math.max(last, now);
    return { now, deliveries, deleted };
  };

  return {
    tick,
    async run({ signal, intervalMs = 1000, onTick }) {
      while (!signal.aborted) {
        try {
          const result = await tick();
          onTick?.(result);
        } catch (err) {
          logger.warn('schedule pump: tick failed', { error: (err as Error).message });
        }
        await pause(intervalMs, signal);
      }
    },
  };
}

/**
 * The group's ENABLED schedules in full (ListSchedules returns only summaries); none when
 * the group does not exist (an emulator provisioned before delayed tasks had a group).
 */
async function enabledSchedules(
  scheduler: SchedulerClient,
  groupName: string,
): Promise<GetScheduleCommandOutput[]> {
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await scheduler
      .send(new ListSchedulesCommand({ GroupName: groupName, NextToken: token }))
      .catch((err: unknown) => {
        if (err instanceof ResourceNotFoundException) return { Schedules: [], NextToken: '' };
        throw err;
      });
    for (const s of page.Schedules ?? []) {
      if (s.State !== 'DISABLED' && s.Name !== undefined) names.push(s.Name);
    }
    token = page.NextToken;
  } while (token !== undefined && token !== '');
  const out: GetScheduleCommandOutput[] = [];
  for (const name of names) {
    try {
      const schedule = await scheduler.send(
        new GetScheduleCommand({ Name: name, GroupName: groupName }),
      );
      // The summary's state may be stale by now; the full definition decides.
      if (schedule.State !== 'DISABLED') out.push(schedule);
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
    }
  }
  return out;
}
