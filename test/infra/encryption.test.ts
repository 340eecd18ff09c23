import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { arnOf, idOf } from '../helpers/infra.js';

/** An executor with a customer-managed key, and a role holding every grant. */
function encryptedStack() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const nag: NagPack[] = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)];
  const stack = new Stack(app, 'Sealed');
  const key = new Key(stack, 'Key', { enableKeyRotation: true });
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    encryptionKey: key,
  });
  const role = new Role(stack, 'Client', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  executor.grantEnqueue(role);
  executor.grantRead(role);
  executor.grantConsume(role);
  executor.grantOperate(role);
  return { stack, nag, executor, template: Template.fromStack(stack) };
}

const KEY_USE = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'];

describe('TaskExecutor encryptionKey', () => {
  const { stack, nag, template } = encryptedStack();
  const key = idOf(template, 'AWS::KMS::Key', {});

  it('encrypts the three queues with the key', () => {
    for (const name of ['Sealed-work.fifo', 'Sealed-dlq.fifo', 'Sealed-schedule-dlq']) {
      template.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: name,
        KmsMasterKeyId: arnOf(key),
        SqsManagedSseEnabled: Match.absent(),
      });
    }
  });

  it('encrypts the table with the key', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'Sealed-tasks',
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: arnOf(key) },
    });
  });

  it('encrypts both functions’ log groups and environments with the key', () => {
    for (const fn of ['worker', 'sweeper']) {
      template.hasResourceProperties('AWS::Logs::LogGroup', {
        LogGroupName: `/tasklane/Sealed/${fn}`,
        KmsKeyId: arnOf(key),
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: `the Tasklane ${fn} of Sealed`,
        KmsKeyArn: arnOf(key),
      });
    }
  });

  it('lets CloudWatch Logs use the key for the executor’s log groups only', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: {
              Service: { 'Fn::Join': ['', ['logs.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
            },
            Condition: {
              ArnLike: {
                'kms:EncryptionContext:aws:logs:arn': {
                  'Fn::Join': [
                    '',
                    Match.arrayWith([Match.stringLikeRegexp(':log-group:/tasklane/Sealed/\\*$')]),
                  ],
                },
              },
            },
          }),
        ]),
      },
    });
  });

  it('lets the functions and both schedule groups’ roles use the key', () => {
    const keyUse = Match.objectLike({ Action: KEY_USE, Resource: arnOf(key) });
    for (const fn of ['worker', 'sweeper']) {
      template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
        Description: `What the Tasklane ${fn} of Sealed may do`,
        PolicyDocument: { Statement: Match.arrayWith([keyUse]) },
      });
    }
    for (const description of ['Delivers recurring schedules', 'Delivers delayed tasks']) {
      template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
        Description: description,
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
              Resource: arnOf(key),
            }),
          ]),
        },
      });
    }
  });

  it('encrypts the sweeper’s schedule with the key, which its role may decrypt with', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      KmsKeyArn: arnOf(key),
    });
    template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      Description: 'Starts the sweeper',
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
            Resource: arnOf(key),
          }),
        ]),
      },
    });
  });

  it('extends every grant to the key, by its ARN', () => {
    const client = idOf(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })],
      }),
    });

    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: client }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: KEY_USE, Resource: arnOf(key) }),
          Match.objectLike({ Action: 'kms:Decrypt', Resource: arnOf(key) }),
        ]),
      },
    });
  });

  it('stays clean under cdk-nag AwsSolutions and NIST 800-53 R5', () => {
    const findings = nag.flatMap((pack) =>
      pack
        .validateScope(stack)
        .violations.flatMap((v) =>
          v.violatingResources.map((r) => `${v.severity}: ${v.ruleName} @ ${r.constructPath}`),
        ),
    );
    // The grantee's own inline policy is the app's choice, not the executor's.
    const ours = findings.filter(
      (f) => !f.endsWith('IAMNoInlinePolicy @ Sealed/Client/DefaultPolicy/Resource'),
    );

    expect(ours).toEqual([]);
  });
});
