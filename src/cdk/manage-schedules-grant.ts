/**
 * The grant behind TaskExecutor.grantManageSchedules: recurring schedules' actions on the
 * executor's group, and `scheduler:ListSchedules`, which takes no ARN, in a policy of its own.
 */
import { Names } from 'aws-cdk-lib';
import {
  Grant,
  type IGrantable,
  type IPrincipal,
  type IRole,
  ManagedPolicy,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  type GrantTargets,
  keyGrant,
  passSchedulerRoleGrant,
  SCHEDULE_KEY_ACTIONS,
  scheduleGrant,
} from './executor-grants.js';

const LIST_SCHEDULES_REASON =
  'scheduler:ListSchedules supports no resource type (Service Authorization Reference for EventBridge Scheduler), so IAM only accepts "*"; the client always passes the executor’s GroupName. The action lists names and states only, and sits alone in this policy so that no other statement shares the acknowledgement.';

/** TaskClient.schedules: set, delete, pause, resume, get, list. */
export function manageSchedulesGrant(targets: GrantTargets, grantee: IGrantable): Grant {
  const grant = scheduleGrant(
    targets,
    grantee,
    [
      'scheduler:CreateSchedule',
      'scheduler:UpdateSchedule',
      'scheduler:DeleteSchedule',
      'scheduler:GetSchedule',
    ],
    'group',
  )
    .combine(passSchedulerRoleGrant(targets, grantee, 'recurring'))
    .combine(keyGrant(targets, grantee, SCHEDULE_KEY_ACTIONS));
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
