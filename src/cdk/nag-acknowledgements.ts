/**
 * The cdk-nag findings the executor acknowledges, each on the one resource it concerns and
 * each only while the prop that would fix it is unset. Everything else is fixed in the
 * resources themselves: own managed policies instead of AWS managed ones, a DLQ for the
 * sweeper, reserved concurrency for the sweeper, SSE and enforceSSL on every queue, PITR.
 */
import { type CfnResource, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { ExecutorFunction } from './executor-functions.js';
import { DELAYED_WILDCARD_REASON, WAKE_WILDCARD_REASON } from './executor-grants.js';
import type { ExecutorMonitoring } from './monitoring.js';
import { iam5Finding } from './nag-finding.js';
import type { TaskExecutorProps } from './task-executor-props.js';

/**
 * What {@link acknowledgeNagFindings} needs. `executor` is the TaskExecutor, described by the
 * parts read here so that this module does not import the construct that calls it.
 */
export interface NagContext {
  readonly executor: {
    readonly table: IConstruct;
    readonly delayedSchedulesArns: readonly string[];
    readonly monitoring: ExecutorMonitoring;
  };
  readonly worker: ExecutorFunction;
  readonly sweeper: ExecutorFunction;
  readonly props: TaskExecutorProps;
  /** The worker's wake schedules (`schedule/<group>.at/task_w*`). */
  readonly wakeSchedulesArn: string;
}

/** One acknowledged finding: the rule, the resource's construct path, and why. */
export interface NagAcknowledgement {
  readonly id: string;
  readonly path: string;
  readonly reason: string;
}

const NIST = 'NIST.800.53.R5';

/**
 * Acknowledges one finding on `scope`'s resource (its default child when it is an L2) and
 * returns the record of it. With `covering`, the acknowledgement goes on `scope` itself and
 * so covers the resources under it, e.g. the policies a role holds, which are written late.
 */
export function acknowledgeFinding(
  scope: IConstruct,
  id: string,
  reason: string,
  covering = false,
): NagAcknowledgement {
  const resource = covering
    ? scope
    : ((scope.node.defaultChild as CfnResource | undefined) ?? scope);
  Validations.of(resource).acknowledge({ id, reason });
  return { id, path: resource.node.path, reason };
}

/** Acknowledges the findings that the props leave open, and returns them for the record. */
export function acknowledgeNagFindings(context: NagContext): NagAcknowledgement[] {
  const { executor, worker, sweeper, props } = context;
  const done: NagAcknowledgement[] = [];
  const acknowledge = (scope: IConstruct, id: string, reason: string) => {
    done.push(acknowledgeFinding(scope, id, reason));
  };

  acknowledge(
    executor.table,
    `${NIST}-DynamoDBInBackupPlan`,
    'Point-in-time recovery is on (continuous backups, restore to any second of the last 35 days). The table holds operational task state that expires by TTL; archives beyond 35 days belong to the account-wide AWS Backup policy, which selects resources by tag.',
  );
  acknowledge(
    worker.function,
    `${NIST}-LambdaDLQ`,
    'Only the SQS event source mapping invokes the worker, synchronously. A function DLQ or on-failure destination applies to asynchronous invocations only, and an SQS mapping cannot have one; messages that keep failing go to the work queue’s own DLQ (RedrivePolicy), and DynamoDB records every failed attempt.',
  );
  // The sweeper recreates an overdue delayed task's one-time schedule.
  for (const arn of executor.delayedSchedulesArns) {
    acknowledge(sweeper.policy, iam5Finding(sweeper.policy, arn), DELAYED_WILDCARD_REASON);
  }
  // The worker creates a long sleeper's wake (docs/adr/0048-durable-sleep-signals-pause.md).
  const wakes = context.wakeSchedulesArn;
  acknowledge(worker.policy, iam5Finding(worker.policy, wakes), WAKE_WILDCARD_REASON);
  if (props.reservedConcurrency === undefined) {
    acknowledge(
      worker.function,
      `${NIST}-LambdaConcurrency`,
      'The event source mapping’s maxConcurrency bounds the worker’s concurrency without taking executions from the account’s pool. Set reservedConcurrency to reserve them as well.',
    );
  }
  if (props.vpc !== undefined) {
    for (const fn of [worker, sweeper]) {
      acknowledge(
        fn.policy,
        'AwsSolutions-IAM5[Resource::*]',
        'Lambda creates and deletes the function’s network interfaces in the VPC with these EC2 actions, which support no resource-level permissions; they are the statements of AWS’s own AWSLambdaVPCAccessExecutionRole.',
      );
    }
  } else {
    for (const fn of [worker, sweeper]) {
      acknowledge(
        fn.function,
        `${NIST}-LambdaInsideVPC`,
        'The function talks only to AWS APIs (SQS, DynamoDB, CloudWatch Logs), over TLS with IAM authentication, and reaches no private network. Pass vpc to run it in one (with endpoints or NAT for those APIs).',
      );
    }
  }
  if ((props.logEncryptionKey ?? props.encryptionKey) === undefined) {
    for (const fn of [worker, sweeper]) {
      acknowledge(
        fn.logGroup,
        `${NIST}-CloudWatchLogGroupEncrypted`,
        'CloudWatch Logs encrypts every log group at rest with its own keys. Pass encryptionKey (or logEncryptionKey) for a customer-managed key.',
      );
    }
  }
  if ((props.alarmActions ?? []).length === 0) {
    const monitoring = executor.monitoring;
    for (const alarm of [
      monitoring.deadLetterAlarm,
      monitoring.scheduleDeadLetterAlarm,
      monitoring.oldestMessageAgeAlarm,
      monitoring.workerErrorsAlarm,
      monitoring.workerThrottlesAlarm,
      monitoring.sweeperErrorsAlarm,
      monitoring.sweeperNotRunningAlarm,
      monitoring.deadTasksAlarm,
      ...[...monitoring.laneAlarms.values()].flatMap((l) => [
        l.deadLetterAlarm,
        l.oldestMessageAgeAlarm,
      ]),
    ]) {
      acknowledge(
        alarm,
        `${NIST}-CloudWatchAlarmAction`,
        'Who gets paged is the deployer’s choice: pass alarmActions (an SNS topic, an incident tool). Without actions the alarm still changes state and shows on the executor’s dashboard.',
      );
    }
  }
  return done;
}
