import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { arnOf, exampleStack, exampleTemplate, idOf } from '../helpers/infra.js';

describe('TaskExecutor worker', () => {
  const template = exampleTemplate();

  it('runs Node.js 24 on ARM64, with the table and queue in its environment', () => {
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'TasklaneExample-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 60,
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_TABLE_NAME: { Ref: table },
          TASKLANE_QUEUE_URL: { Ref: queue },
          // Known up front: the visibility controller needs no GetQueueUrl call.
          TASKLANE_QUEUE_ARN: arnOf(queue),
        }),
      },
      ReservedConcurrentExecutions: Match.absent(),
    });
  });

  it("believes recurring firings only from the recurring role: its RoleId is the worker's sender id", () => {
    const recurring = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers recurring schedules',
    });
    const delayed = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_SCHEDULER_SENDER_ID: { 'Fn::GetAtt': [recurring, 'RoleId'] },
          // Named so that a firing it delivered is refused as a producer's forgery.
          TASKLANE_DELAYED_SCHEDULER_SENDER_ID: { 'Fn::GetAtt': [delayed, 'RoleId'] },
        }),
      },
    });
  });

  it('maps the work queue with ReportBatchItemFailures, batch size and maxConcurrency', () => {
    const custom = exampleTemplate({ executor: { batchSize: 5, maxConcurrency: 40 } });
    const queue = idOf(custom, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });

    custom.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: arnOf(queue),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 40 },
    });
  });

  it('reserves concurrency when asked', () => {
    const custom = exampleTemplate({ executor: { reservedConcurrency: 50, maxConcurrency: 50 } });

    custom.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('worker'),
      ReservedConcurrentExecutions: 50,
    });
  });

  it('logs to its own log group with a retention', () => {
    const logs = idOf(template, 'AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/worker',
    });

    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/worker',
      RetentionInDays: 365,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('worker'),
      LoggingConfig: { LogGroup: { Ref: logs } },
    });
  });

  it('may do exactly what the worker calls, through its own managed policy', () => {
    // Arrange
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'TasklaneExample-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' });
    const logs = idOf(template, 'AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/worker',
    });
    const delayed = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' });

    // Assert
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Description: 'What the Tasklane worker of TasklaneExample may do',
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: arnOf(logs),
          },
          {
            Effect: 'Allow',
            // PutItem: a recurring schedule's firing creates its task record.
            Action: [
              'dynamodb:GetItem',
              'dynamodb:PutItem',
              'dynamodb:UpdateItem',
              'dynamodb:ConditionCheckItem',
            ],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: [
              'sqs:SendMessage',
              'sqs:ReceiveMessage',
              'sqs:DeleteMessage',
              'sqs:ChangeMessageVisibility',
              'sqs:GetQueueAttributes',
              'sqs:GetQueueUrl',
            ],
            Resource: arnOf(queue),
          },
          {
            Effect: 'Allow',
            // Only sleeping tasks' wakes, in the delayed group: task_w<hash>.
            Action: 'scheduler:CreateSchedule',
            Resource: {
              'Fn::Join': [
                '',
                Match.arrayWith([
                  Match.stringLikeRegexp(':schedule/TasklaneExample\\.at/task_w\\*$'),
                ]),
              ],
            },
          },
          {
            Effect: 'Allow',
            // Only the delayed group's role: a wake is a one-time schedule, never a firing.
            Action: 'iam:PassRole',
            Resource: arnOf(delayed),
            Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
          },
        ],
      }),
    });
  });

  it('wakes long sleepers by one-time schedules in the delayed group, as the delayed role', () => {
    const scheduleDlq = idOf(template, 'AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-schedule-dlq',
    });
    const recurring = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers recurring schedules',
    });
    const delayed = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane worker of TasklaneExample',
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_SCHEDULE_GROUP: 'TasklaneExample',
          TASKLANE_DELAYED_SCHEDULE_GROUP: 'TasklaneExample.at',
          TASKLANE_SCHEDULER_ROLE_ARN: arnOf(recurring),
          TASKLANE_DELAYED_SCHEDULER_ROLE_ARN: arnOf(delayed),
          TASKLANE_SCHEDULE_DLQ_ARN: arnOf(scheduleDlq),
        }),
      },
    });
  });

  it('synthesizes without warnings', () => {
    Annotations.fromStack(exampleStack()).hasNoWarning('*', Match.anyValue());
  });

  it('uses no inline policies and no AWS managed policies', () => {
    template.resourceCountIs('AWS::IAM::Policy', 0);
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.Policies).toBeUndefined();
    }
  });
});
