/**
 * The grant behind TaskExecutor.grantPauseLanes: what `TaskClient.pauseLane`, `resumeLane`
 * and `laneStates` (and `tasklane pause --lane` / `resume --lane`) call, and nothing more
 * (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane"; src/client/lane-pause.ts
 * and lane-mappings.ts):
 *
 * - the lanes' control items: `UpdateItem` (the pause and resume rows) and `BatchGetItem`
 *   (the lanes' states, and the resume's read), only on the items `lane-control <lane>` of the
 *   executor's lanes (`dynamodb:LeadingKeys`);
 * - `sqs:GetQueueAttributes` on the work queues (the queue ARN, where the client knows only
 *   the URL);
 * - `lambda:ListEventSourceMappings`, which supports no resource type, so `*`; and
 *   `lambda:UpdateEventSourceMapping` of any mapping (their UUIDs are Lambda's) but only of
 *   the worker function (`lambda:FunctionArn`). These two go into a managed policy of their
 *   own (for a role), where their cdk-nag acknowledgements cover no other statement.
 */
import { ArnFormat, Names, Stack } from 'aws-cdk-lib';
import {
  Grant,
  type IGrantable,
  type IPrincipal,
  type IRole,
  ManagedPolicy,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { DEFAULT_LANE, laneControlKey } from '../settings/lanes.js';
import { type GrantTargets, keyGrant } from './executor-grants.js';
import { iam5Finding } from './nag-finding.js';

/** The parts of a TaskExecutor the lane grant reaches beyond the usual targets. */
export interface PauseLanesParts {
  /** The executor's lanes, by name (the default lane is added when missing). */
  readonly lanes: ReadonlyMap<string, unknown>;
  /** The worker function, whose event source mappings a pause switches. */
  readonly worker: { readonly functionArn: string };
}

/** The KMS actions of the control items' writes and reads, with a customer-managed key. */
const CONTROL_ITEM_KEY_ACTIONS = ['kms:Decrypt', 'kms:Encrypt'];

const LIST_MAPPINGS_REASON =
  'lambda:ListEventSourceMappings supports no resource type (Service Authorization Reference for AWS Lambda), so IAM only accepts "*"; the client always passes the lane’s queue ARN and the worker function. The action lists mappings’ settings only, and sits in this policy with the UpdateEventSourceMapping statement alone, so that no other statement shares the acknowledgement.';

const UPDATE_MAPPINGS_REASON =
  'An event source mapping’s ARN ends with its UUID, which Lambda assigns at deployment, so the statement names every mapping of the account and region, event-source-mapping:*; the condition lambda:FunctionArn limits it to the mappings of the executor’s worker function, which a lane pause disables and its resume enables.';

/** TaskClient.pauseLane, resumeLane and laneStates, and the CLI's `pause --lane`. */
export function pauseLanesGrant(
  targets: GrantTargets,
  parts: PauseLanesParts,
  grantee: IGrantable,
): Grant {
  const keys = [...new Set([DEFAULT_LANE, ...parts.lanes.keys()])].map(laneControlKey);
  const grant = Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
    resourceArns: [targets.tableArn],
    conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': keys } },
  })
    .combine(
      Grant.addToPrincipal({
        grantee,
        actions: ['sqs:GetQueueAttributes'],
        resourceArns: targets.workQueues.map((q) => q.queueArn),
      }),
    )
    .combine(keyGrant(targets, grantee, CONTROL_ITEM_KEY_ACTIONS));
  const [list, update] = lambdaStatements(targets.owner, [parts.worker.functionArn]);
  const principal = grantee.grantPrincipal;
  if (!isRole(principal)) {
    // Not a role (a user, an account…): the statements join the principal's own policy.
    principal.addToPrincipalPolicy(list);
    principal.addToPrincipalPolicy(update);
    return grant;
  }
  const id = `${Names.uniqueId(targets.owner)}PauseLanes`;
  if (principal.node.tryFindChild(id) === undefined) {
    const policy = new ManagedPolicy(principal, id, {
      description:
        'Pauses and resumes Tasklane lanes: finds and switches the worker’s event source mappings',
      roles: [principal],
      statements: [list, update],
    });
    targets.acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]', LIST_MAPPINGS_REASON);
    targets.acknowledge(
      policy,
      iam5Finding(policy, mappingsArn(targets.owner)),
      UPDATE_MAPPINGS_REASON,
    );
  }
  return grant;
}

function lambdaStatements(
  owner: Construct,
  workerFunctionArns: readonly string[],
): [PolicyStatement, PolicyStatement] {
  return [
    new PolicyStatement({ actions: ['lambda:ListEventSourceMappings'], resources: ['*'] }),
    new PolicyStatement({
      actions: ['lambda:UpdateEventSourceMapping'],
      resources: [mappingsArn(owner)],
      conditions: { StringEquals: { 'lambda:FunctionArn': [...workerFunctionArns] } },
    }),
  ];
}

/** `arn:<partition>:lambda:<region>:<account>:event-source-mapping:*`. */
function mappingsArn(scope: Construct): string {
  return Stack.of(scope).formatArn({
    service: 'lambda',
    resource: 'event-source-mapping',
    resourceName: '*',
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

function isRole(principal: IPrincipal): principal is IRole & Construct {
  return Construct.isConstruct(principal) && typeof (principal as IRole).roleArn === 'string';
}
