import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role, ServicePrincipal, User } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { ValidationError } from '../../src/core/errors.js';
import { arnOf, idOf } from '../helpers/infra.js';

function guardedStack(restrictSenders: boolean | undefined) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const nag: NagPack[] = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)];
  const stack = new Stack(app, 'Guarded');
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...(restrictSenders === undefined ? {} : { restrictSenders }),
  });
  const ecs = new ServicePrincipal('ecs-tasks.amazonaws.com');
  executor.grantEnqueue(new Role(stack, 'Producer', { assumedBy: ecs }));
  executor.grantOperate(new User(stack, 'Operator'));
  executor.grantRead(new Role(stack, 'Reader', { assumedBy: ecs }));
  return { stack, nag, executor, template: Template.fromStack(stack) };
}

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
function idStartingWith(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} ${prefix}*, found ${ids.length}`);
  return ids[0] as string;
}

/** Every statement of every queue policy that denies SendMessage. */
function sendDenials(template: Template): unknown[] {
  return Object.values(template.findResources('AWS::SQS::QueuePolicy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as { Effect: string; Action: unknown }[]).filter(
      (s) => s.Effect === 'Deny' && s.Action === 'sqs:SendMessage',
    ),
  );
}

describe('TaskExecutor restrictSenders', () => {
  it('denies SendMessage on the work queue to all but the scheduler, the sweeper, the worker and granted senders', () => {
    // Act
    const { template } = guardedStack(true);

    // Assert
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Guarded-work.fifo' });
    const scheduler = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers recurring schedules',
    });
    const delayed = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' });
    const sweeper = idStartingWith(template, 'AWS::IAM::Role', 'ExecutorSweeperRole');
    const worker = idStartingWith(template, 'AWS::IAM::Role', 'ExecutorWorkerRole');
    const producer = idStartingWith(template, 'AWS::IAM::Role', 'Producer');
    const operator = idStartingWith(template, 'AWS::IAM::User', 'Operator');
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'OnlyTasklaneSenders',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'sqs:SendMessage',
            Resource: arnOf(queue),
            Condition: {
              ArnNotEquals: {
                // Not the reader: grantRead sends nothing.
                'aws:PrincipalArn': [
                  arnOf(scheduler),
                  arnOf(delayed),
                  arnOf(sweeper),
                  arnOf(worker),
                  arnOf(producer),
                  arnOf(operator),
                ],
              },
            },
          },
        ]),
      },
    });
    expect(sendDenials(template)).toHaveLength(1);
  });

  it('adds no deny statement by default', () => {
    // Act
    const { template } = guardedStack(undefined);

    // Assert
    expect(sendDenials(template)).toEqual([]);
  });

  it('refuses to grant a send to a principal the policy cannot name', () => {
    // Arrange
    const { executor, stack } = guardedStack(true);

    // Act
    const attempt = () => executor.grantEnqueue(new AccountRootPrincipal());

    // Assert
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/grantEnqueue with restrictSenders[\s\S]*expected an IAM role or user/);
    expect(stack.node.tryFindChild('Producer')).toBeDefined();
  });

  it('stays clean under cdk-nag', () => {
    // Arrange
    const { nag, stack } = guardedStack(true);

    // Act
    const findings = nag.flatMap((pack) =>
      pack
        .validateScope(stack)
        .violations.flatMap((v) =>
          v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
        ),
    );

    // Assert: the grantees (a user with an inline policy) are the app's choice, not the executor's.
    expect(findings.filter((f) => f.includes(' @ Guarded/Executor/'))).toEqual([]);
  });
});
