/**
 * TaskExecutor.grantPauseLanes: exactly what `TaskClient.pauseLane`, `resumeLane` and
 * `laneStates` call (src/client/lane-pause.ts, lane-mappings.ts), on an executor with lanes:
 * the lanes' control items only, the work queues' attributes, and the worker's event source
 * mappings, the Lambda statements in a managed policy of their own, cdk-nag clean.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal, User } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { laneControlKey } from '../../src/store/lane-control-key.js';
import { idOf } from '../helpers/infra.js';

interface Statement {
  readonly Action: string | string[];
  readonly Resource?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

function pauseLanesStack(options: { key?: boolean; user?: boolean } = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const awsSolutions = new AwsSolutionsChecks(app);
  const stack = new Stack(app, 'Lanes');
  const key = options.key === true ? new Key(stack, 'Key', { enableKeyRotation: true }) : undefined;
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    lanes: { bulk: { maxConcurrency: 2 }, urgent: { maxConcurrency: 50 } },
    ...(key === undefined ? {} : { encryptionKey: key }),
  });
  const role = new Role(stack, 'LaneOperator', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  executor.grantPauseLanes(role);
  if (options.user === true) executor.grantPauseLanes(new User(stack, 'Operator'));
  const template = Template.fromStack(stack);
  return {
    stack,
    awsSolutions,
    executor,
    template,
    roleId: idOf(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })],
      }),
    }),
  };
}

/** The statements of the policies attached to `roleId`, inline ones and managed ones apart. */
function statementsOf(template: Template, roleId: string) {
  const attached = (roles: unknown) =>
    Array.isArray(roles) && roles.some((r) => (r as { Ref?: string }).Ref === roleId);
  const of = (type: string) =>
    Object.values(template.findResources(type))
      .filter((policy) => attached(policy.Properties.Roles))
      .map((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
  return { inline: of('AWS::IAM::Policy').flat(), managed: of('AWS::IAM::ManagedPolicy') };
}

const actionsOf = (statements: Statement[]) =>
  statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort();

describe('TaskExecutor.grantPauseLanes', () => {
  it('grants UpdateItem and BatchGetItem on the lanes’ control items only (dynamodb:LeadingKeys)', () => {
    const { template, roleId } = pauseLanesStack();

    const { inline } = statementsOf(template, roleId);

    const table = inline.filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect(actionsOf(table)).toEqual(['dynamodb:BatchGetItem', 'dynamodb:UpdateItem']);
    expect(table[0]?.Condition).toEqual({
      'ForAllValues:StringEquals': {
        'dynamodb:LeadingKeys': ['default', 'bulk', 'urgent'].map(laneControlKey),
      },
    });
    expect(table[0]?.Resource).toMatchObject({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
  });

  it('grants sqs:GetQueueAttributes on every lane’s work queue, and no other SQS action', () => {
    const { template, roleId } = pauseLanesStack();

    const { inline } = statementsOf(template, roleId);

    const sqs = inline.filter((s) => actionsOf([s]).some((a) => a.startsWith('sqs:')));
    expect(actionsOf(sqs)).toEqual(['sqs:GetQueueAttributes']);
    const queues = sqs.flatMap((s) => s.Resource as { 'Fn::GetAtt': [string, string] }[]);
    expect(queues.map((q) => q['Fn::GetAtt'][0]).sort()).toEqual(
      Object.keys(
        template.findResources('AWS::SQS::Queue', {
          Properties: { QueueName: Match.stringLikeRegexp('-work\\.fifo$') },
        }),
      ).sort(),
    );
  });

  it('puts ListEventSourceMappings (*) and UpdateEventSourceMapping of the worker’s mappings alone in a managed policy', () => {
    const { template, roleId } = pauseLanesStack();
    const worker = idOf(template, 'AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('worker'),
    });

    const { inline, managed } = statementsOf(template, roleId);

    expect(actionsOf(inline).filter((a) => a.startsWith('lambda:'))).toEqual([]);
    expect(managed).toEqual([
      [
        { Effect: 'Allow', Action: 'lambda:ListEventSourceMappings', Resource: '*' },
        {
          Effect: 'Allow',
          Action: 'lambda:UpdateEventSourceMapping',
          Resource: {
            'Fn::Join': [
              '',
              expect.arrayContaining([expect.stringMatching(/:event-source-mapping:\*$/)]),
            ],
          },
          Condition: {
            StringEquals: { 'lambda:FunctionArn': [{ 'Fn::GetAtt': [worker, 'Arn'] }] },
          },
        },
      ],
    ]);
  });

  it('grants nothing beyond those actions, plus kms:Decrypt and kms:Encrypt with an encryption key', () => {
    const plain = pauseLanesStack();
    const keyed = pauseLanesStack({ key: true });

    const all = ({ template, roleId }: ReturnType<typeof pauseLanesStack>) => {
      const { inline, managed } = statementsOf(template, roleId);
      return actionsOf([...inline, ...managed.flat()]);
    };

    const expected = [
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
      'lambda:ListEventSourceMappings',
      'lambda:UpdateEventSourceMapping',
      'sqs:GetQueueAttributes',
    ];
    expect(all(plain)).toEqual(expected);
    expect(all(keyed)).toEqual(['kms:Decrypt', 'kms:Encrypt', ...expected].sort());
  });

  it('leaves no AwsSolutions finding on the grantee, each wildcard acknowledged with its reason', () => {
    const { stack, awsSolutions, executor } = pauseLanesStack();

    const findings = awsSolutions
      .validateScope(stack)
      .violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
      )
      .filter((finding) => finding.includes('/LaneOperator/'));

    expect(findings).toEqual([]);
    const ours = executor.nagAcknowledgements.filter((a) =>
      a.path.startsWith('Lanes/LaneOperator'),
    );
    expect(ours.map((a) => a.id)).toEqual([
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:lambda:<AWS::Region>:<AWS::AccountId>:event-source-mapping:*]',
    ]);
    for (const { path, reason } of ours) {
      expect(path).toMatch(/^Lanes\/LaneOperator\/\w+PauseLanes\/Resource$/);
      expect(reason.length).toBeGreaterThan(60);
    }
  });

  it('puts the Lambda statements in the policy of a grantee that is not a role', () => {
    const { template } = pauseLanesStack({ user: true });

    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      (p.Properties.Users ?? []).some((u: { Ref?: string }) => u.Ref?.startsWith('Operator')),
    );
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(actionsOf(statements)).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
      'lambda:ListEventSourceMappings',
      'lambda:UpdateEventSourceMapping',
      'sqs:GetQueueAttributes',
    ]);
  });
});
