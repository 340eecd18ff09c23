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
  /** `arn:<partition>:scheduler:<region>:<account>:schedule/<group>/*`. */
  readonly schedulesArn: string;
  readonly schedulerRoleArn: string;
  /** Records a cdk-nag acknowledgement (see `acknowledgeFinding` in nag-acknowledgements.ts). */
  readonly acknowledge: (scope: IConstruct, id: string, reason: string, covering?: boolean) => void;
}

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

/** TaskClient.enqueue and enqueueBatch, immediate and delayed. */
export function enqueueGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    // DeleteItem: a delayed task whose schedule could not be created is rolled back.
    actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    resourceArns: [targets.tableArn],
  })
    .combine(targets.workQueue.grantSendMessages(grantee))
    .combine(
      scheduleGrant(targets, grantee, ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']),
    )
    .combine(passSchedulerRoleGrant(targets, grantee));
}

/** TaskClient.get, list and wait. */
export function readGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:GetItem'],
    resourceArns: [targets.tableArn],
  }).combine(
    Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:Query'],
      resourceArns: [targets.statusIndexArn],
    }),
  );
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
