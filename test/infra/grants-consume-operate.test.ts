import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { arnOf, idOf } from '../helpers/infra.js';

function granted(grant: (executor: TaskExecutor, role: Role) => void): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Grants');
  const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
  const role = new Role(stack, 'Operator', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  grant(executor, role);
  return Template.fromStack(stack);
}

describe('TaskExecutor.grantConsume', () => {
  it('allows what a worker outside Lambda calls: the store’s writes and the queue’s receive loop', () => {
    // Act
    const template = granted((executor, role) => executor.grantConsume(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
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
        ],
      }),
    });
  });
});

describe('TaskExecutor.grantOperate', () => {
  it('allows redrive, cancel and purge, and nothing that enqueues new work', () => {
    // Act
    const template = granted((executor, role) => executor.grantOperate(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    const dlq = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-dlq.fifo' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: [
              'dynamodb:GetItem',
              'dynamodb:UpdateItem',
              'dynamodb:DeleteItem',
              'dynamodb:BatchGetItem',
            ],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: 'dynamodb:Query',
            Resource: { 'Fn::Join': ['', [arnOf(table), '/index/byStatus']] },
          },
          {
            Effect: 'Allow',
            Action: ['sqs:SendMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'],
            Resource: arnOf(queue),
          },
          {
            Effect: 'Allow',
            Action: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'],
            Resource: arnOf(dlq),
          },
          {
            Effect: 'Allow',
            // Cancel deletes delayed tasks' schedules only, never a recurring one.
            Action: 'scheduler:DeleteSchedule',
            Resource: ['task\\.', 'task_'].map((prefix) => ({
              'Fn::Join': [
                '',
                Match.arrayWith([Match.stringLikeRegexp(`:schedule/Grants\\.at/${prefix}\\*$`)]),
              ],
            })),
          },
        ],
      }),
    });
  });
});

describe('TaskExecutor.grantSignal', () => {
  it('allows exactly a signal’s write: the count and wake on the task, the signal’s own item, the wake’s message', () => {
    // Act
    const template = granted((executor, role) => executor.grantSignal(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arnOf(table) },
          {
            Effect: 'Allow',
            Action: 'dynamodb:UpdateItem',
            Resource: arnOf(table),
            // Only the signal count and the wake: never the payload, the lease or the history.
            Condition: {
              'ForAllValues:StringEquals': {
                'dynamodb:Attributes': [
                  'pk',
                  'statusShard',
                  'statusAt',
                  'status',
                  'signals',
                  'stepEpoch',
                  'wait',
                  'wokenAt',
                  'k',
                  'n',
                ],
              },
            },
          },
          {
            Effect: 'Allow',
            Action: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
            Resource: arnOf(table),
            // Only signal items: `signal <task id> …`, never a task's key.
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['signal *'] } },
          },
          {
            Effect: 'Allow',
            Action: ['sqs:SendMessage', 'sqs:ChangeMessageVisibility'],
            Resource: arnOf(queue),
          },
        ],
      }),
    });
  });
});
