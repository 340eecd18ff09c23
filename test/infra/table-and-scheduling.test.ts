import { RemovalPolicy } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { arnOf, exampleTemplate, idOf } from '../helpers/infra.js';

describe('TaskExecutor table', () => {
  const template = exampleTemplate();

  it('is on-demand with PITR, TTL on expiresAt, and deletion protection', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'TasklaneExample-tasks',
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      DeletionProtectionEnabled: true,
    });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('has the sparse status index keyed by statusShard and statusAt', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byStatus',
          KeySchema: [
            { AttributeName: 'statusShard', KeyType: 'HASH' },
            { AttributeName: 'statusAt', KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: ['type', 'orderingKey', 'updatedAt', 'lane'],
          },
        },
      ],
    });
  });

  it('lets deletion protection and the removal policy be relaxed for test stacks', () => {
    const custom = exampleTemplate({
      executor: { deletionProtection: false, removalPolicy: RemovalPolicy.DESTROY },
    });

    custom.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    custom.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });
});

/** `arn:<partition>:scheduler:<region>:<account>:schedule-group/<name>`, as CDK joins it. */
const groupArn = (name: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':scheduler:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:schedule-group/${name}`,
    ],
  ],
});

describe('TaskExecutor scheduling', () => {
  const template = exampleTemplate();

  it('creates a schedule group named after the executor', () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'TasklaneExample' });
  });

  it('creates a group of its own for delayed tasks’ schedules, `<name>.at`', () => {
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', {
      Name: 'TasklaneExample.at',
    });
  });

  it.each([
    ['Delivers recurring schedules', 'TasklaneExample'],
    ['Delivers delayed tasks', 'TasklaneExample.at'],
  ])(
    'lets the role "%s" only send to the work queue (and its DLQ), only for its group %s',
    (description, group) => {
      // Arrange
      const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });
      const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-schedule-dlq' });
      const role = idOf(template, 'AWS::IAM::Role', { Description: description });

      // Assert
      template.hasResourceProperties('AWS::IAM::Role', {
        Description: description,
        AssumeRolePolicyDocument: {
          Statement: [
            {
              Action: 'sts:AssumeRole',
              Effect: 'Allow',
              Principal: { Service: 'scheduler.amazonaws.com' },
              // Only for this account's schedules of its own group: Scheduler passes the
              // schedule group's ARN as aws:SourceArn, so a producer's one-time schedule can
              // never deliver as the recurring role, whose firings the worker believes.
              Condition: {
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
                ArnEquals: { 'aws:SourceArn': groupArn(group) },
              },
            },
          ],
        },
      });
      // Every policy of any kind that names the role: exactly one, with one statement.
      const policies = ['AWS::IAM::ManagedPolicy', 'AWS::IAM::Policy'].flatMap((type) =>
        Object.values(
          template.findResources(type, {
            Properties: { Roles: Match.arrayWith([{ Ref: role }]) },
          }),
        ),
      );
      template.hasResourceProperties('AWS::IAM::Role', {
        Description: description,
        ManagedPolicyArns: Match.absent(),
        Policies: Match.absent(),
      });
      expect(policies.map((p) => p.Properties.PolicyDocument)).toEqual([
        {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [arnOf(queue), arnOf(dlq)] },
          ],
        },
      ]);
    },
  );

  it('starts the sweeper every minute, in a group of its own, with its own role and a DLQ', () => {
    // Arrange: the task group is what grants reach (schedule/TasklaneExample/*); the
    // sweeper's group is another one, so no producer or schedule manager can delete it.
    const sweeper = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
    });
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-schedule-dlq' });
    const role = idOf(template, 'AWS::IAM::Role', { Description: 'Starts the sweeper' });
    const systemGroup = idOf(template, 'AWS::Scheduler::ScheduleGroup', {
      Name: 'TasklaneExample.sys',
    });

    // Assert
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      GroupName: 'TasklaneExample.sys',
      State: 'ENABLED',
      // Without encryptionKey, Scheduler's own AWS-owned key.
      KmsKeyArn: Match.absent(),
      Target: {
        Arn: arnOf(sweeper),
        RoleArn: arnOf(role),
        DeadLetterConfig: { Arn: arnOf(dlq) },
        RetryPolicy: Match.anyValue(),
      },
    });
    template.hasResourceProperties('AWS::IAM::Role', {
      Description: 'Starts the sweeper',
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnEquals: { 'aws:SourceArn': groupArn('TasklaneExample.sys') },
            },
          }),
        ],
      },
    });
    template.hasResource('AWS::Scheduler::Schedule', {
      DependsOn: Match.arrayWith([systemGroup]),
    });
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Roles: [{ Ref: role }],
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arnOf(sweeper) },
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf(dlq) },
        ],
      }),
    });
  });

  it('gives the sweeper one concurrent execution and a DLQ for failed runs', () => {
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-schedule-dlq' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
      ReservedConcurrentExecutions: 1,
      DeadLetterConfig: { TargetArn: arnOf(dlq) },
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
  });
});
