import {
  ConflictException,
  CreateScheduleGroupCommand,
  GetScheduleGroupCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ExecutorSettings, QueueSettings } from '../settings/executor.js';
import { DEFAULT_LANE, type LaneLocation, type LaneLocations } from '../settings/lanes.js';
import { createTable, type DynamoDBClient } from '../store/table.js';
import { LOCAL_DELAYED_SCHEDULER_SENDER_ID, LOCAL_SCHEDULER_SENDER_ID } from './schedule-pump.js';

/** What {@link provision} created or found. */
export interface ProvisionedExecutor {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The work queue's ARN: the target of every schedule. */
  readonly queueArn: string;
  /** With lanes: every lane's queues, the default lane's included (docs/lanes.md). */
  readonly lanes?: LaneLocations;
  /** Present when a Scheduler client was given: the scheduling resources. */
  readonly scheduler?: ProvisionedScheduler;
}

/** The scheduling part of {@link ProvisionedExecutor}, shaped as TaskClient options take it. */
export interface ProvisionedScheduler {
  /** The group of recurring schedules. */
  readonly scheduleGroup: string;
  /** The group of delayed tasks' one-time schedules (`<scheduleGroup>.at`). */
  readonly delayedScheduleGroup: string;
  readonly scheduleDeadLetterArn: string;
  readonly scheduleDeadLetterQueueUrl: string;
  /**
   * The role schedules name. Emulators do not assume it, so provisioning only names it; in
   * AWS the CDK construct creates it, allowed to send to the work queue only.
   */
  readonly schedulerRoleArn: string;
  /** The role delayed tasks' schedules name; the pump delivers them as it (ADR 0036). */
  readonly delayedSchedulerRoleArn: string;
  /**
   * The SenderId the worker accepts firings from: in an emulator, the access key id the
   * local schedule pump signs recurring firings with (in AWS, the recurring role's unique id).
   */
  readonly schedulerSenderId: string;
  /** The SenderId of the delayed group's deliveries, whose firings the worker rejects. */
  readonly delayedSchedulerSenderId: string;
}

/**
 * Creates the executor's queues and table in an emulator (or any account), from the same
 * settings the CDK construct uses, and its schedule group when a Scheduler client is given.
 * Idempotent: existing resources are reused.
 */
export async function provision(
  settings: ExecutorSettings,
  clients: { sqs: SQSClient; dynamodb: DynamoDBClient; scheduler?: SchedulerClient },
): Promise<ProvisionedExecutor> {
  const { sqs, dynamodb } = clients;
  const own = await provisionQueuePair(sqs, settings, settings.workQueue, settings.deadLetterQueue);
  const { table } = settings;
  await createTable(dynamodb, table);
  const { queueUrl, queueArn } = own;
  const lanes: Record<string, LaneLocation> = {};
  for (const [lane, laneSettings] of Object.entries(settings.lanes)) {
    lanes[lane] =
      lane === DEFAULT_LANE
        ? own
        : await provisionQueuePair(
            sqs,
            settings,
            laneSettings.workQueue,
            laneSettings.deadLetterQueue,
          );
  }
  const scheduler =
    clients.scheduler === undefined
      ? undefined
      : await provisionScheduler(settings, sqs, clients.scheduler, queueArn);
  return {
    tableName: table.name,
    queueUrl,
    deadLetterQueueUrl: own.deadLetterQueueUrl,
    queueArn,
    ...(Object.keys(lanes).length === 0 ? {} : { lanes }),
    ...(scheduler === undefined ? {} : { scheduler }),
  };
}

/** Creates a work queue and its DLQ (the RedrivePolicy naming it), unless they exist. */
async function provisionQueuePair(
  sqs: SQSClient,
  settings: ExecutorSettings,
  work: QueueSettings,
  deadLetter: QueueSettings,
): Promise<{ queueUrl: string; queueArn: string; deadLetterQueueUrl: string }> {
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: deadLetter.name,
      Attributes: { ...deadLetter.attributes },
    }),
  );
  const deadLetterQueueUrl = dlq.QueueUrl ?? '';
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: work.name,
      Attributes: {
        ...work.attributes,
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: await arnOf(sqs, deadLetterQueueUrl),
          maxReceiveCount: settings.maxReceiveCount,
        }),
      },
    }),
  );
  const queueUrl = created.QueueUrl ?? '';
  return { queueUrl, queueArn: await arnOf(sqs, queueUrl), deadLetterQueueUrl };
}

async function provisionScheduler(
  settings: ExecutorSettings,
  sqs: SQSClient,
  scheduler: SchedulerClient,
  queueArn: string,
): Promise<ProvisionedScheduler> {
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: settings.scheduler.deadLetterQueue.name,
      Attributes: { ...settings.scheduler.deadLetterQueue.attributes },
    }),
  );
  const dlqUrl = dlq.QueueUrl ?? '';
  await provisionScheduleGroup(settings.scheduler.groupName, scheduler);
  await provisionScheduleGroup(settings.scheduler.delayedGroupName, scheduler);
  const [, partition, , region, account] = queueArn.split(':');
  const roleName = `${settings.scheduler.groupName}-scheduler`.slice(0, 64);
  const delayedRoleName = `${settings.scheduler.groupName}-delayed`.slice(0, 64);
  return {
    scheduleGroup: settings.scheduler.groupName,
    delayedScheduleGroup: settings.scheduler.delayedGroupName,
    scheduleDeadLetterArn: await arnOf(sqs, dlqUrl),
    scheduleDeadLetterQueueUrl: dlqUrl,
    schedulerRoleArn: `arn:${partition ?? 'aws'}:iam::${account ?? region}:role/${roleName}`,
    delayedSchedulerRoleArn: `arn:${partition ?? 'aws'}:iam::${account ?? region}:role/${delayedRoleName}`,
    schedulerSenderId: LOCAL_SCHEDULER_SENDER_ID,
    delayedSchedulerSenderId: LOCAL_DELAYED_SCHEDULER_SENDER_ID,
  };
}

async function arnOf(sqs: SQSClient, queueUrl: string): Promise<string> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return out.Attributes?.QueueArn ?? '';
}

/**
 * Creates a schedule group unless it exists, and says whether it did. moto's CloudFormation
 * skips AWS::Scheduler::* resources, so a stack deployed into moto needs this step for its
 * group.
 *
 * It looks first and creates only a group that is missing: moto 5.2.1 answers a
 * CreateScheduleGroup for an existing name by replacing the group, and every schedule in it
 * with it, where AWS refuses with ConflictException (docs/emulator.md). A group created by
 * someone else between the look and the create is left as it is.
 */
export async function provisionScheduleGroup(
  name: string,
  scheduler: SchedulerClient,
): Promise<boolean> {
  try {
    await scheduler.send(new GetScheduleGroupCommand({ Name: name }));
    return false;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  try {
    await scheduler.send(new CreateScheduleGroupCommand({ Name: name }));
    return true;
  } catch (err) {
    if (!(err instanceof ConflictException)) throw err;
    return false;
  }
}
