/**
 * The IAM grants a TaskExecutor hands out, one per TaskClient feature, each with exactly the
 * actions that feature calls. The TaskExecutor's grant methods delegate here and list the
 * actions in their JSDoc.
 *
 * Schedule names are made at run time (one per delayed task or recurring job), so schedule
 * actions are scoped to the executor's group, `schedule/<group>/*`: the narrowest ARN IAM
 * accepts. `scheduler:ListSchedules` supports no resource type at all and needs `*`.
 * Both wildcards are acknowledged to cdk-nag on the policy that holds them.
 */
import { Names, Stack } from 'aws-cdk-lib';
import {
  Grant,
  type IGrantable,
  type IPrincipal,
  type IRole,
  ManagedPolicy,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';

/** The executor's resources that grants point at. */
export interface GrantTargets {
  /** The construct that owns the grants (names the ListSchedules policy). */
  readonly owner: Construct;
  readonly tableArn: string;
  /** `<table ARN>/index/<status index>`. */
  readonly statusIndexArn: string;
  readonly workQueue: IQueue;
  /** The work queue's FIFO DLQ, which redrive reads. */
  readonly deadLetterQueue: IQueue;
  /** The customer-managed key of the queues and the table, when there is one. */
  readonly encryptionKey?: IKey | undefined;
  /** `arn:<partition>:scheduler:<region>:<account>:schedule/<group>/*`. */
  readonly schedulesArn: string;
  readonly schedulerRoleArn: string;
  /** Records a cdk-nag acknowledgement (see `acknowledgeFinding` in nag-acknowledgements.ts). */
  readonly acknowledge: (scope: IConstruct, id: string, reason: string, covering?: boolean) => void;
}

/**
 * What a worker calls on the table: the store's reads and conditional updates, and the
 * record a recurring schedule's firing creates (PutItem).
 */
export const WORKER_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

/**
 * What a worker calls on the work queue: the event source mapping's (or the poll loop's)
 * receive and delete, the visibility controller's heartbeats, and GetQueueAttributes or
 * GetQueueUrl when the queue ARN is not configured.
 */
export const WORKER_QUEUE_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
];

/**
 * KMS actions of a principal that writes to, and reads from, the encrypted queues and table:
 * SQS sends need GenerateDataKey and receives Decrypt; DynamoDB calls the key on the caller's
 * behalf for its writes and reads. Listed one by one (no `GenerateDataKey*`).
 */
export const KEY_USE_ACTIONS = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'];

/** Why `schedule/<group>/*` is as narrow as a schedule statement gets. */
export const GROUP_WILDCARD_REASON =
  'EventBridge Scheduler names schedules at run time (one per delayed task or recurring job) and supports no finer resource than a schedule ARN; the statement is scoped to the executor’s own schedule group, schedule/<group>/*, the narrowest pattern that covers them.';
const LIST_SCHEDULES_REASON =
  'scheduler:ListSchedules supports no resource type (Service Authorization Reference for EventBridge Scheduler), so IAM only accepts "*"; the client always passes the executor’s GroupName. The action lists names and states only, and sits alone in this policy so that no other statement shares the acknowledgement.';

/**
 * Statements on the executor's schedules. The group wildcard is acknowledged on the
 * principal (a role), covering whichever of its policies the statement lands in; the
 * finding names the exact ARN pattern, so it covers no other wildcard.
 */
export function scheduleGrant(
  targets: GrantTargets,
  grantee: IGrantable,
  actions: string[],
): Grant {
  const grant = Grant.addToPrincipal({ grantee, actions, resourceArns: [targets.schedulesArn] });
  const principal = grantee.grantPrincipal;
  if (grant.principalStatement !== undefined && Construct.isConstruct(principal)) {
    const finding = iam5Finding(principal, targets.schedulesArn);
    targets.acknowledge(principal, finding, GROUP_WILDCARD_REASON, true);
  }
  return grant;
}

/** `iam:PassRole` of the scheduler role, to EventBridge Scheduler only. */
export function passSchedulerRoleGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['iam:PassRole'],
    resourceArns: [targets.schedulerRoleArn],
    conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
  });
}

/**
 * `actions` on the executor's customer-managed key, or an empty grant without one. The
 * statement names the key's ARN, never `*`.
 */
export function keyGrant(targets: GrantTargets, grantee: IGrantable, actions: string[]): Grant {
  if (targets.encryptionKey === undefined) return Grant.drop(grantee, 'no encryption key');
  return Grant.addToPrincipal({
    grantee,
    actions,
    resourceArns: [targets.encryptionKey.keyArn],
  });
}

/** TaskClient.enqueue and enqueueBatch, immediate and delayed. */
export function enqueueGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    // DeleteItem: a delayed task whose schedule could not be created is rolled back.
    actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    resourceArns: [targets.tableArn],
  })
    .combine(
      // The queue's own grantSendMessages would add `kms:GenerateDataKey*` and
      // `kms:ReEncrypt*` for an encrypted queue; keyGrant lists the key's actions instead.
      Grant.addToPrincipal({
        grantee,
        actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        resourceArns: [targets.workQueue.queueArn],
      }),
    )
    .combine(
      scheduleGrant(targets, grantee, ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']),
    )
    .combine(passSchedulerRoleGrant(targets, grantee))
    .combine(keyGrant(targets, grantee, KEY_USE_ACTIONS));
}

/** A worker outside Lambda: `createWorker(tasks).poll()` on ECS, EC2 or a laptop. */
export function consumeGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: WORKER_TABLE_ACTIONS,
    resourceArns: [targets.tableArn],
  })
    .combine(
      Grant.addToPrincipal({
        grantee,
        actions: WORKER_QUEUE_ACTIONS,
        resourceArns: [targets.workQueue.queueArn],
      }),
    )
    .combine(keyGrant(targets, grantee, KEY_USE_ACTIONS));
}

/** TaskClient.redrive, cancel and purgeDead, with the reads they start from. */
export function operateGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return (
    Grant.addToPrincipal({
      grantee,
      // GetItem and UpdateItem: the transitions; DeleteItem: purgeDead.
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      resourceArns: [targets.tableArn],
    })
      .combine(
        Grant.addToPrincipal({
          grantee,
          // Selecting DEAD tasks (redrive all, purgeDead) pages the status index.
          actions: ['dynamodb:Query'],
          resourceArns: [targets.statusIndexArn],
        }),
      )
      .combine(
        Grant.addToPrincipal({
          grantee,
          // A redriven task's message, and a dead letter moved back.
          actions: ['sqs:SendMessage'],
          resourceArns: [targets.workQueue.queueArn],
        }),
      )
      .combine(
        Grant.addToPrincipal({
          grantee,
          // Redrive clears the DLQ of the messages of the tasks it brought back.
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'],
          resourceArns: [targets.deadLetterQueue.queueArn],
        }),
      )
      // Cancelling a delayed task deletes its one-time schedule.
      .combine(scheduleGrant(targets, grantee, ['scheduler:DeleteSchedule']))
      .combine(keyGrant(targets, grantee, KEY_USE_ACTIONS))
  );
}

/** TaskClient.get, list and wait. */
export function readGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:GetItem'],
    resourceArns: [targets.tableArn],
  })
    .combine(
      Grant.addToPrincipal({
        grantee,
        actions: ['dynamodb:Query'],
        resourceArns: [targets.statusIndexArn],
      }),
    )
    .combine(keyGrant(targets, grantee, ['kms:Decrypt']));
}

/** TaskClient.schedule, unschedule, pauseSchedule, resumeSchedule, getSchedule, listSchedules. */
export function manageSchedulesGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  const grant = scheduleGrant(targets, grantee, [
    'scheduler:CreateSchedule',
    'scheduler:UpdateSchedule',
    'scheduler:DeleteSchedule',
    'scheduler:GetSchedule',
  ]).combine(passSchedulerRoleGrant(targets, grantee));
  const principal = grantee.grantPrincipal;
  if (!isRole(principal)) {
    // Not a role (a user, an account…): the statement joins the principal's own policy.
    return grant.combine(
      Grant.addToPrincipal({ grantee, actions: ['scheduler:ListSchedules'], resourceArns: ['*'] }),
    );
  }
  const id = `${Names.uniqueId(targets.owner)}ListSchedules`;
  if (principal.node.tryFindChild(id) === undefined) {
    const policy = new ManagedPolicy(principal, id, {
      description: 'Lists Tasklane recurring schedules (scheduler:ListSchedules takes no ARN)',
      roles: [principal],
      statements: [new PolicyStatement({ actions: ['scheduler:ListSchedules'], resources: ['*'] })],
    });
    targets.acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]', LIST_SCHEDULES_REASON);
  }
  return grant;
}

function isRole(principal: IPrincipal): principal is IRole & Construct {
  return Construct.isConstruct(principal) && typeof (principal as IRole).roleArn === 'string';
}

/**
 * The id cdk-nag gives an AwsSolutions-IAM5 finding for `arn` in a policy of `scope`'s
 * stack: the resolved ARN flattened the way cdk-nag does (`Ref` → `<Name>`, joins
 * concatenated), e.g. `…[Resource::arn:<AWS::Partition>:scheduler:…:schedule/orders/*]`.
 */
export function iam5Finding(scope: IConstruct, arn: string): string {
  return `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(arn))}]`;
}

function flatten(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const node = value as Record<string, unknown>;
  if (Array.isArray(node['Fn::Join'])) {
    const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(flatten).join(delimiter);
  }
  if (node.Ref !== undefined) return `<${flatten(node.Ref)}>`;
  if (Array.isArray(node['Fn::GetAtt'])) {
    const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  return JSON.stringify(value);
}
