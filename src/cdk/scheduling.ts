/**
 * EventBridge Scheduler for one executor: its schedule group, the role that task schedules
 * deliver with, and the sweeper's `rate(1 minute)` schedule.
 */
import { Stack } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSchedule, ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Inputs of {@link ExecutorScheduling}. */
export interface ExecutorSchedulingProps {
  readonly scheduleGroupName: string;
  /** Where task schedules deliver: the FIFO work queue. */
  readonly workQueue: IQueue;
  /** Standard queue for deliveries that failed after their retries. */
  readonly deadLetterQueue: IQueue;
  readonly sweeper: IFunction;
  /** The queues' customer-managed key: sending to them needs GenerateDataKey and Decrypt. */
  readonly encryptionKey?: IKey | undefined;
}

/** The schedule group, the scheduler role, and the sweeper's schedule. */
export class ExecutorScheduling extends Construct {
  readonly scheduleGroup: ScheduleGroup;
  /**
   * The execution role of task schedules: `sqs:SendMessage` to the work queue, and to the
   * schedule DLQ, which Scheduler also sends with this role. Nothing else.
   */
  readonly schedulerRole: Role;
  readonly sweeperSchedule: CfnSchedule;

  constructor(scope: Construct, id: string, props: ExecutorSchedulingProps) {
    super(scope, id);
    const { workQueue, deadLetterQueue, sweeper, encryptionKey } = props;
    const keyUse = encryptionKey
      ? [
          new PolicyStatement({
            actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
            resources: [encryptionKey.keyArn],
          }),
        ]
      : [];
    this.scheduleGroup = new ScheduleGroup(this, 'Group', {
      scheduleGroupName: props.scheduleGroupName,
    });
    this.schedulerRole = this.schedulerExecutionRole('SchedulerRole', 'Delivers scheduled tasks', [
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [workQueue.queueArn, deadLetterQueue.queueArn],
      }),
      ...keyUse,
    ]);
    const sweeperRole = this.schedulerExecutionRole('SweeperScheduleRole', 'Starts the sweeper', [
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [sweeper.functionArn] }),
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [deadLetterQueue.queueArn] }),
      ...keyUse,
    ]);
    this.sweeperSchedule = new CfnSchedule(this, 'SweeperSchedule', {
      description: 'Requeues expired leases and sends tasks whose message was never sent',
      groupName: this.scheduleGroup.scheduleGroupName,
      scheduleExpression: 'rate(1 minute)',
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      target: {
        arn: sweeper.functionArn,
        roleArn: sweeperRole.roleArn,
        // The next run comes a minute later; a run that cannot start goes to the DLQ at once.
        retryPolicy: { maximumEventAgeInSeconds: 60, maximumRetryAttempts: 0 },
        deadLetterConfig: { arn: deadLetterQueue.queueArn },
      },
    });
  }

  /** A role only EventBridge Scheduler of this account can assume, with one managed policy. */
  private schedulerExecutionRole(id: string, purpose: string, statements: PolicyStatement[]): Role {
    const role = new Role(this, id, {
      description: purpose,
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    new ManagedPolicy(this, `${id}Policy`, { roles: [role], statements, description: purpose });
    return role;
  }
}
