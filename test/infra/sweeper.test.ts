import { Match } from 'aws-cdk-lib/assertions';
import { describe, it } from 'vitest';
import { arnOf, exampleTemplate, idOf } from '../helpers/infra.js';

describe('TaskExecutor sweeper', () => {
  const template = exampleTemplate();
  const ids = () => ({
    table: idOf(template, 'AWS::DynamoDB::Table', { TableName: 'TasklaneExample-tasks' }),
    queue: idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-work.fifo' }),
    dlq: idOf(template, 'AWS::SQS::Queue', { QueueName: 'TasklaneExample-dlq.fifo' }),
    scheduleDlq: idOf(template, 'AWS::SQS::Queue', {
      QueueName: 'TasklaneExample-schedule-dlq',
    }),
    schedulerRole: idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers recurring schedules',
    }),
    delayedRole: idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' }),
    logs: idOf(template, 'AWS::Logs::LogGroup', {
      LogGroupName: '/tasklane/TasklaneExample/sweeper',
    }),
  });

  it('deploys the handler pre-bundled in the package, on Node.js 24', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
  });

  it('finds the table, the queue and the scheduling settings in its environment', () => {
    const { table, queue, dlq, scheduleDlq, schedulerRole, delayedRole } = ids();

    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane sweeper of TasklaneExample',
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_TABLE_NAME: { Ref: table },
          TASKLANE_QUEUE_URL: { Ref: queue },
          TASKLANE_QUEUE_ARN: arnOf(queue),
          TASKLANE_SCHEDULE_GROUP: 'TasklaneExample',
          TASKLANE_SCHEDULER_ROLE_ARN: arnOf(schedulerRole),
          TASKLANE_DELAYED_SCHEDULER_ROLE_ARN: arnOf(delayedRole),
          TASKLANE_SCHEDULE_DLQ_ARN: arnOf(scheduleDlq),
          // The dead-letter pass reads it (docs/adr/0052-running-leaves-the-status-index.md).
          TASKLANE_DLQ_URL: { Ref: dlq },
        }),
      },
    });
  });

  it('may do exactly what a sweep calls, through its own managed policy', () => {
    // Arrange
    const { table, queue, dlq, scheduleDlq, delayedRole, logs } = ids();

    // Assert: no GetItem, DeleteItem or Scan; Query only on the status index.
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Description: 'What the Tasklane sweeper of TasklaneExample may do',
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: arnOf(logs),
          },
          // Its own Lambda DLQ, for failed runs.
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf(scheduleDlq) },
          {
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: { 'Fn::Join': ['', [arnOf(table), '/index/byStatus']] },
          },
          {
            Effect: 'Allow',
            Action: ['dynamodb:UpdateItem', 'dynamodb:BatchGetItem'],
            Resource: arnOf(table),
          },
          { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf(queue) },
          {
            Effect: 'Allow',
            // Only delayed tasks' schedules, in their group: task.<id> and task_<hash>.
            Action: 'scheduler:CreateSchedule',
            Resource: ['task\\.', 'task_'].map((prefix) => ({
              'Fn::Join': [
                '',
                Match.arrayWith([
                  Match.stringLikeRegexp(`:schedule/TasklaneExample\\.at/${prefix}\\*$`),
                ]),
              ],
            })),
          },
          {
            Effect: 'Allow',
            // Only the delayed group's role: it recreates one-time schedules, never firings.
            Action: 'iam:PassRole',
            Resource: arnOf(delayedRole),
            Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
          },
          // A suspended task whose wake was lost is woken by showing its held message.
          { Effect: 'Allow', Action: 'sqs:ChangeMessageVisibility', Resource: arnOf(queue) },
          // The dead-letter pass receives the DLQ's messages, and deletes none (ADR 0052).
          { Effect: 'Allow', Action: 'sqs:ReceiveMessage', Resource: arnOf(dlq) },
        ],
      }),
    });
  });
});
