import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import {
  DEBOUNCED_UPDATE_ATTRIBUTES,
  PRODUCER_UPDATE_ATTRIBUTES,
} from '../../src/store/producer-writes.js';
import { arnOf, idOf } from '../helpers/infra.js';

/** `schedule/Grants/*` in the stack's partition, region and account. */
const groupSchedules = {
  'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':schedule/Grants/\\*$')])],
};
/** The delayed tasks' schedules, in their own group: `schedule/Grants.at/task.*` and `task_*`. */
const delayedSchedules = ['task\\.', 'task_'].map((prefix) => ({
  'Fn::Join': [
    '',
    Match.arrayWith([Match.stringLikeRegexp(`:schedule/Grants\\.at/${prefix}\\*$`)]),
  ],
}));
const passedToScheduler = {
  StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
};

function grantsStack() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Grants');
  const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
  const role = new Role(stack, 'Producer', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  return { app, stack, executor, role };
}

describe('TaskExecutor grants', () => {
  function granted(grant: (executor: TaskExecutor, role: Role) => void) {
    const { stack, executor, role } = grantsStack();
    grant(executor, role);
    return Template.fromStack(stack);
  }

  it('grantEnqueue allows writing records, sending messages and delayed tasks’ schedules', () => {
    // Act
    const template = granted((executor, role) => executor.grantEnqueue(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    const schedulerRole = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers delayed tasks',
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: arnOf(table) },
          {
            Effect: 'Allow',
            // Only the attributes its own updates name; no DeleteItem (a rollback is a move).
            Action: 'dynamodb:UpdateItem',
            Resource: arnOf(table),
            Condition: {
              'ForAllValues:StringEquals': {
                'dynamodb:Attributes': [...PRODUCER_UPDATE_ATTRIBUTES],
              },
            },
          },
          {
            Effect: 'Allow',
            // A debounce key's pointer only.
            Action: 'dynamodb:GetItem',
            Resource: arnOf(table),
            Condition: {
              'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['debounce *'] },
            },
          },
          {
            Effect: 'Allow',
            // A debounced task's payload, in place, and only a debounced task's.
            Action: 'dynamodb:UpdateItem',
            Resource: arnOf(table),
            Condition: {
              'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['debounce-*'] },
              'ForAllValues:StringEquals': {
                'dynamodb:Attributes': [...DEBOUNCED_UPDATE_ATTRIBUTES],
              },
            },
          },
          {
            Effect: 'Allow',
            Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
            Resource: arnOf(queue),
          },
          {
            Effect: 'Allow',
            Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
            // Not the whole group: recurring schedules stay out of a producer's reach.
            Resource: delayedSchedules,
          },
          {
            Effect: 'Allow',
            // The delayed group's role only: a producer's schedule never delivers as the
            // recurring role, whose firings the worker believes.
            Action: 'iam:PassRole',
            Resource: arnOf(schedulerRole),
            Condition: passedToScheduler,
          },
        ],
      },
    });
  });

  it('grantEnqueue gives no DeleteItem and no unconditioned GetItem or UpdateItem on the table', () => {
    // Act
    const template = granted((executor, role) => executor.grantEnqueue(role));

    // Assert
    const producer = idOf(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })],
      }),
    });
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter(
        (policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: producer }]),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
    const actions = (statement: Record<string, unknown>) => [statement.Action].flat();
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.flatMap(actions)).not.toContain('dynamodb:DeleteItem');
    const updates = statements.filter((s) => actions(s).includes('dynamodb:UpdateItem'));
    expect(updates.map((s) => s.Condition)).toEqual([
      { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...PRODUCER_UPDATE_ATTRIBUTES] } },
      {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['debounce-*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...DEBOUNCED_UPDATE_ATTRIBUTES] },
      },
    ]);
    const reads = statements.filter((s) => actions(s).includes('dynamodb:GetItem'));
    expect(reads.map((s) => s.Condition)).toEqual([
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['debounce *'] } },
    ]);
  });

  it("grantEnqueue's UpdateItem may not name the history workers, the sweeper and operators write", () => {
    // Act
    const template = granted((executor, role) => executor.grantEnqueue(role));

    // Assert
    const named = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
      .filter((s) => [s.Action].flat().includes('dynamodb:UpdateItem'))
      .flatMap((s) => {
        const condition = s.Condition as Record<string, Record<string, string[]>>;
        return condition['ForAllValues:StringEquals']?.['dynamodb:Attributes'] ?? [];
      });
    expect(named).toContain('producerHistory');
    expect(named).not.toContain('history');
    expect(named).not.toContain('historyTruncated');
  });

  it('grantRead allows get and wait (GetItem), list and counts (Query on the status index, the items it lists, a Scan for unkeyed statuses), and watch (the table stream, found with DescribeTable)', () => {
    const template = granted((executor, role) => executor.grantRead(role));

    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: [
              'dynamodb:GetItem',
              'dynamodb:BatchGetItem',
              'dynamodb:Scan',
              'dynamodb:DescribeTable',
            ],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: ['dynamodb:DescribeStream', 'dynamodb:GetShardIterator', 'dynamodb:GetRecords'],
            Resource: { 'Fn::GetAtt': [table, 'StreamArn'] },
          },
          {
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: { 'Fn::Join': ['', [arnOf(table), '/index/byStatus']] },
          },
        ],
      }),
    });
  });

  it('grantManageSchedules allows managing the group’s schedules and passing the role', () => {
    // Act
    const template = granted((executor, role) => executor.grantManageSchedules(role));

    // Assert
    const producer = idOf(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })],
      }),
    });
    const schedulerRole = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers recurring schedules',
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: producer }],
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: [
              'scheduler:CreateSchedule',
              'scheduler:UpdateSchedule',
              'scheduler:DeleteSchedule',
              'scheduler:GetSchedule',
            ],
            Resource: groupSchedules,
          },
          {
            Effect: 'Allow',
            Action: 'iam:PassRole',
            Resource: arnOf(schedulerRole),
            Condition: passedToScheduler,
          },
        ],
      }),
    });
  });

  it('grantManageSchedules puts ListSchedules, which takes no ARN, alone in a managed policy', () => {
    const template = granted((executor, role) => executor.grantManageSchedules(role));

    const producer = idOf(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })],
      }),
    });
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Roles: [{ Ref: producer }],
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'scheduler:ListSchedules', Resource: '*' }],
      }),
    });
  });

  it('acknowledges the schedule wildcards on the grantee’s policies, each with its reason', () => {
    // Arrange
    const { app, stack, executor, role } = grantsStack();
    const awsSolutions = new AwsSolutionsChecks(app);

    // Act
    executor.grantEnqueue(role);
    executor.grantManageSchedules(role);
    executor.grantRead(role);
    const schedules = 'arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule';
    const findings = awsSolutions
      .validateScope(stack)
      .violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
      )
      .filter((finding) => finding.includes('/Producer/'));

    // Assert
    expect(findings).toEqual([]);
    const onProducer = executor.nagAcknowledgements.filter((a) =>
      a.path.startsWith('Grants/Producer'),
    );
    expect(onProducer.map(({ id, path }) => `${id} @ ${path}`)).toEqual([
      `AwsSolutions-IAM5[Resource::${schedules}/Grants.at/task.*] @ Grants/Producer`,
      `AwsSolutions-IAM5[Resource::${schedules}/Grants.at/task_*] @ Grants/Producer`,
      `AwsSolutions-IAM5[Resource::${schedules}/Grants/*] @ Grants/Producer`,
      expect.stringMatching(
        /^AwsSolutions-IAM5\[Resource::\*\] @ Grants\/Producer\/\w+ListSchedules\/Resource$/,
      ),
    ]);
    for (const { reason } of onProducer) expect(reason.length).toBeGreaterThan(60);
  });
});

describe('TaskExecutor metrics', () => {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Metrics');
  const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });

  it.each([
    ['metricDeadLetterDepth', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum'],
    ['metricOldestMessageAge', 'AWS/SQS', 'ApproximateAgeOfOldestMessage', 'Maximum'],
    ['metricWorkerErrors', 'AWS/Lambda', 'Errors', 'Sum'],
  ] as const)('%s reads %s %s (%s)', (method, namespace, metricName, statistic) => {
    const metric = executor[method]();

    expect(metric).toMatchObject({ namespace, metricName, statistic });
  });

  it('metricDeadTasks reads the EMF TasksDead count of this executor (Sum)', () => {
    expect(executor.metricDeadTasks()).toMatchObject({
      namespace: 'Tasklane',
      metricName: 'TasksDead',
      dimensions: { service: 'tasklane-Metrics' },
      statistic: 'Sum',
    });
  });

  it('metricTasks reads timings at p99 and counts as sums', () => {
    expect(executor.metricTasks('QueueLatency').statistic).toBe('p99');
    expect(executor.metricTasks('TasksStarted').statistic).toBe('Sum');
  });

  it('passes metric options through', () => {
    expect(executor.metricWorkerErrors({ period: Duration.minutes(1) }).period.toMinutes()).toBe(1);
  });
});
