import {
  CreateTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  ConflictException,
  CreateScheduleGroupCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type ExecutorSettings, tableKeyDefinition } from '../resources.js';
import { LOCAL_SCHEDULER_SENDER_ID } from './schedule-pump.js';

/** What {@link provision} created or found. */
export interface ProvisionedExecutor {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The work queue's ARN: the target of every schedule. */
  readonly queueArn: string;
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
  /**
   * The SenderId the worker accepts firings from: in an emulator, the access key id the
   * local schedule pump signs with (in AWS, the scheduler role's unique id).
   */
  readonly schedulerSenderId: string;
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
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: settings.deadLetterQueue.name,
      Attributes: { ...settings.deadLetterQueue.attributes },
    }),
  );
  const dlqUrl = dlq.QueueUrl ?? '';
  const dlqAttrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const work = await sqs.send(
    new CreateQueueCommand({
      QueueName: settings.workQueue.name,
      Attributes: {
        ...settings.workQueue.attributes,
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqAttrs.Attributes?.QueueArn,
          maxReceiveCount: settings.maxReceiveCount,
        }),
      },
    }),
  );
  const { table } = settings;
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: 'PAY_PER_REQUEST',
        ...tableKeyDefinition(table),
      }),
    );
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 60 }, { TableName: table.name });
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: table.name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  const queueUrl = work.QueueUrl ?? '';
  const queueArn = await arnOf(sqs, queueUrl);
  const scheduler =
    clients.scheduler === undefined
      ? undefined
      : await provisionScheduler(settings, sqs, clients.scheduler, queueArn);
  return {
    tableName: table.name,
    queueUrl,
    deadLetterQueueUrl: dlqUrl,
    queueArn,
    ...(scheduler === undefined ? {} : { scheduler }),
  };
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
  return {
    scheduleGroup: settings.scheduler.groupName,
    delayedScheduleGroup: settings.scheduler.delayedGroupName,
    scheduleDeadLetterArn: await arnOf(sqs, dlqUrl),
    scheduleDeadLetterQueueUrl: dlqUrl,
    schedulerRoleArn: `arn:${partition ?? 'aws'}:iam::${account ?? region}:role/${roleName}`,
    schedulerSenderId: LOCAL_SCHEDULER_SENDER_ID,
  };
}

async function arnOf(sqs: SQSClient, queueUrl: string): Promise<string> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return out.Attributes?.QueueArn ?? '';
}

/**
 * Creates a schedule group unless it exists. moto's CloudFormation skips
 * AWS::Scheduler::* resources, so a stack deployed into moto needs this step for its group.
 */
export async function provisionScheduleGroup(
  name: string,
  scheduler: SchedulerClient,
): Promise<void> {
  try {
    await scheduler.send(new CreateScheduleGroupCommand({ Name: name }));
  } catch (err) {
    if (!(err instanceof ConflictException)) throw err;
  }
}
