import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
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
  it('allows exactly a signal’s write: a check of the task, the signal items (head, signal, id), the wake’s message', () => {
    // Act
    const template = granted((executor, role) => executor.grantSignal(role));

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Grants-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Grants-work.fifo' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectEquals({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            // The task and its head read; the task's state checked, never written (ADR 0066).
            Action: ['dynamodb:GetItem', 'dynamodb:ConditionCheckItem'],
            Resource: arnOf(table),
          },
          {
            Effect: 'Allow',
            Action: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
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

  it('has no statement that may write a task item: every write is held to signal keys', () => {
    // Act
    const template = granted((executor, role) => executor.grantSignal(role));

    // Assert
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statements = policies.flatMap(
      (policy) =>
        (policy as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } })
          .Properties.PolicyDocument.Statement,
    );
    const writes = ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'];
    const writing = statements.filter((statement) =>
      [statement.Action].flat().some((action) => writes.includes(String(action))),
    );
    expect(writing.length).toBeGreaterThan(0);
    for (const statement of writing) {
      expect(statement.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['signal *'] },
      });
    }
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions).toContain('dynamodb:ConditionCheckItem');
  });
});
