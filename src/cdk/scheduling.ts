/**
 * EventBridge Scheduler for one executor: its schedule groups (recurring schedules, and
 * delayed tasks' one-time ones in `<group>.at`), one delivery role per task group, and the
 * sweeper's `rate(1 minute)` schedule in a group of its own (`<group>.sys`).
 *
 * Each group has its own role, which trusts Scheduler only for that group's schedules
 * (`aws:SourceArn`): the worker believes a firing only from the recurring group's role, and
 * producers may pass only the delayed group's, so a producer's one-time schedule can never
 * deliver as the recurring role (docs/adr/0036-trust-model-hardening.md).
 */
import { Stack } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSchedule, ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DELAYED_SCHEDULER_SENDER_ID_ENV,
  SCHEDULER_SENDER_ID_ENV,
} from '../worker/firing-trust.js';

/** Inputs of {@link ExecutorScheduling}. */
export interface ExecutorSchedulingProps {
  /** The group of recurring schedules. */
  readonly scheduleGroupName: string;
  /** The group of delayed tasks' one-time schedules. */
  readonly delayedScheduleGroupName: string;
  /** Where task schedules deliver: every lane's FIFO work queue. */
  readonly workQueues: readonly IQueue[];
  /** Standard queue for deliveries that failed after their retries. */
  readonly deadLetterQueue: IQueue;
  readonly sweeper: IFunction;
  /**
   * The worker: it believes a recurring firing only from the recurring group's role, whose
   * unique id the SenderId of a message sent under the role starts with (ADR 0013, ADR 0036).
   */
  readonly worker: LambdaFunction;
  /** The queues' customer-managed key: sending to them needs GenerateDataKey and Decrypt. */
  readonly encryptionKey?: IKey | undefined;
}

/**
 * The group of the executor's own schedules (the sweeper's): `<group>.sys`. Executor names
 * allow no `.`, so it is never another executor's task group, and at most 64 characters.
 */
export function systemScheduleGroupName(scheduleGroupName: string): string {
  return `${scheduleGroupName}.sys`;
}

/** The schedule groups, the scheduler role, and the sweeper's schedule. */
export class ExecutorScheduling extends Construct {
  /** The group of recurring schedules. */
  readonly scheduleGroup: ScheduleGroup;
  /**
   * The group of delayed tasks' one-time schedules, `<group>.at`, apart from recurring
   * ones so that listing those never pages through pending delayed tasks.
   */
  readonly delayedScheduleGroup: ScheduleGroup;
  /**
   * The group of the sweeper's schedule, `<group>.sys`, apart from the task group so that
   * no grant on the task group (`schedule/<group>/*`) reaches it.
   */
  readonly systemScheduleGroup: ScheduleGroup;
  /**
   * The execution role of recurring schedules, assumable by Scheduler only for the recurring
   * group: `sqs:SendMessage` to the lanes' work queues, and to the schedule DLQ, which
   * Scheduler also sends with this role. Nothing else. Its firings are the only ones the
   * worker admits; only `grantManageSchedules` may pass it.
   */
  readonly schedulerRole: Role;
  /**
   * The execution role of delayed tasks' one-time schedules, assumable by Scheduler only for
   * the delayed group (`<group>.at`), with the same permissions. What producers, operators
   * and the sweeper pass; the worker admits no firing it sent.
   */
  readonly delayedSchedulerRole: Role;
  readonly sweeperSchedule: CfnSchedule;

  constructor(scope: Construct, id: string, props: ExecutorSchedulingProps) {
    super(scope, id);
    const { workQueues, deadLetterQueue, sweeper, encryptionKey } = props;
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
    this.delayedScheduleGroup = new ScheduleGroup(this, 'DelayedGroup', {
      scheduleGroupName: props.delayedScheduleGroupName,
    });
    const systemGroupName = systemScheduleGroupName(props.scheduleGroupName);
    const delivery = () => [
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [...workQueues.map((q) => q.queueArn), deadLetterQueue.queueArn],
      }),
      ...keyUse,
    ];
    this.schedulerRole = this.schedulerExecutionRole(
      'SchedulerRole',
      'Delivers recurring schedules',
      [props.scheduleGroupName],
      delivery(),
    );
    this.delayedSchedulerRole = this.schedulerExecutionRole(
      'DelayedSchedulerRole',
      'Delivers delayed tasks',
      [props.delayedScheduleGroupName],
      delivery(),
    );
    props.worker.addEnvironment(SCHEDULER_SENDER_ID_ENV, this.schedulerRole.roleId);
    props.worker.addEnvironment(DELAYED_SCHEDULER_SENDER_ID_ENV, this.delayedSchedulerRole.roleId);
    const sweeperRole = this.schedulerExecutionRole(
      'SweeperScheduleRole',
      'Starts the sweeper',
      [systemGroupName],
      [
        new PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [sweeper.functionArn],
        }),
        new PolicyStatement({
          actions: ['sqs:SendMessage'],
          resources: [deadLetterQueue.queueArn],
        }),
        ...keyUse,
      ],
    );
    this.systemScheduleGroup = new ScheduleGroup(this, 'SystemGroup', {
      scheduleGroupName: systemGroupName,
    });
    this.sweeperSchedule = new CfnSchedule(this, 'SweeperSchedule', {
      description: 'Requeues expired leases and sends tasks whose message was never sent',
      groupName: this.systemScheduleGroup.scheduleGroupName,
      scheduleExpression: 'rate(1 minute)',
      flexibleTimeWindow: { mode: 'OFF' },
      state: 'ENABLED',
      // Scheduler encrypts the schedule's target settings with the key; the sweeper's role
      // may decrypt with it (keyUse).
      ...(encryptionKey ? { kmsKeyArn: encryptionKey.keyArn } : {}),
      target: {
        arn: sweeper.functionArn,
        roleArn: sweeperRole.roleArn,
        // The next run comes a minute later; a run that cannot start goes to the DLQ at once.
        retryPolicy: { maximumEventAgeInSeconds: 60, maximumRetryAttempts: 0 },
        deadLetterConfig: { arn: deadLetterQueue.queueArn },
      },
    });
    // The group's name is a literal, not a reference: the schedule must wait for the group.
    this.sweeperSchedule.node.addDependency(this.systemScheduleGroup);
  }

  /**
   * A role only EventBridge Scheduler can assume, and only for a schedule of one of
   * `groupNames` in this account (`aws:SourceArn` is the schedule group's ARN, which is
   * what Scheduler passes; `aws:SourceAccount` this account), with one managed policy.
   */
  private schedulerExecutionRole(
    id: string,
    purpose: string,
    groupNames: readonly string[],
    statements: PolicyStatement[],
  ): Role {
    const stack = Stack.of(this);
    // Literal ARNs, not references: moto's CloudFormation skips AWS::Scheduler::*, and a
    // reference to a skipped resource fails a deployment into the emulator.
    const groupArns = groupNames.map((groupName) =>
      stack.formatArn({
        service: 'scheduler',
        resource: 'schedule-group',
        resourceName: groupName,
      }),
    );
    const role = new Role(this, id, {
      description: purpose,
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': groupArns.length === 1 ? groupArns[0] : groupArns },
        },
      }),
    });
    new ManagedPolicy(this, `${id}Policy`, { roles: [role], statements, description: purpose });
    return role;
  }
}
