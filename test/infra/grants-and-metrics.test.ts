import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../infra/task-executor.js';
import { arnOf, idOf } from '../helpers/infra.js';

describe('TaskExecutor grants', () => {
  function granted(grant: (executor: TaskExecutor, role: Role) => void) {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Grants');
    const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
    const role = new Role(stack, 'Producer', {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
    });
    grant(executor, role);
    return Template.fromStack(stack);
  }

  it('grantEnqueue allows writing records, sending messages and creating schedules', () => {
    // Act
    const template = granted((executor, role) => executor.grantEnqueue(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    const schedulerRole = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers scheduled tasks',
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
            Resource: arnOf(queue),
          },
          {
            Effect: 'Allow',
            Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':schedule/Grants/\\*$')])],
            },
          },
          {
            Effect: 'Allow',
            Action: 'iam:PassRole',
            Resource: arnOf(schedulerRole),
            Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
          },
        ],
      },
    });
  });

  it('grantRead allows reading records and querying the status index', () => {
    // Act
    const template = granted((executor, role) => executor.grantRead(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(table) },
          {
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: [arnOf(table), { 'Fn::Join': ['', [arnOf(table), '/index/byStatus']] }],
          },
        ],
      },
    });
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

  it('passes metric options through', () => {
    expect(executor.metricWorkerErrors({ period: Duration.minutes(1) }).period.toMinutes()).toBe(1);
  });
});
