import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { LaneEnvVars } from '../../src/settings/lanes.js';
import { EnvVars } from '../../src/settings/location.js';
import { arnOf, idOf } from '../helpers/infra.js';

/** An executor and a producer function wired with `connectProducer`. */
function wired(
  props: Partial<TaskExecutorProps> | ((stack: Stack) => Partial<TaskExecutorProps>) = {},
  read = false,
) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Orders');
  const executor = new TaskExecutor(stack, 'Tasks', {
    workerEntry: 'functions/worker.ts',
    ...(typeof props === 'function' ? props(stack) : props),
  });
  const api = new LambdaFunction(stack, 'Api', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => {};'),
    description: 'the producer',
  });
  executor.connectProducer(api, { read });
  return { app, stack, executor, api, template: Template.fromStack(stack) };
}

/** The producer function's environment variables, as synthesized. */
function producerVariables(template: Template): Record<string, unknown> {
  const [producer] = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Description: 'the producer' },
    }),
  );
  if (producer === undefined) throw new Error('no producer function in the template');
  const properties = producer.Properties as { Environment: { Variables: Record<string, unknown> } };
  return properties.Environment.Variables;
}

/** The variables every producer gets, whatever the executor deploys. */
const ALWAYS = [
  EnvVars.TABLE_NAME,
  EnvVars.QUEUE_URL,
  EnvVars.QUEUE_ARN,
  EnvVars.SCHEDULE_GROUP,
  EnvVars.DELAYED_SCHEDULE_GROUP,
  EnvVars.SCHEDULER_ROLE_ARN,
  EnvVars.DELAYED_SCHEDULER_ROLE_ARN,
  EnvVars.SCHEDULE_DLQ_ARN,
  EnvVars.RETENTION_MS,
  EnvVars.STATUS_SHARDS,
];

describe('TaskExecutor.connectProducer', () => {
  it('sets every variable an enqueue needs, delayed tasks included, and no more', () => {
    // Act
    const { template } = wired();

    // Assert
    const table = idOf(template, 'AWS::DynamoDB::Table', { TableName: 'Orders-tasks' });
    const queue = idOf(template, 'AWS::SQS::Queue', { QueueName: 'Orders-work.fifo' });
    const delayedRole = idOf(template, 'AWS::IAM::Role', { Description: 'Delivers delayed tasks' });
    const recurringRole = idOf(template, 'AWS::IAM::Role', {
      Description: 'Delivers recurring schedules',
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the producer',
      Environment: {
        Variables: {
          [EnvVars.TABLE_NAME]: { Ref: table },
          [EnvVars.QUEUE_URL]: { Ref: queue },
          [EnvVars.QUEUE_ARN]: arnOf(queue),
          [EnvVars.SCHEDULE_GROUP]: 'Orders',
          [EnvVars.DELAYED_SCHEDULE_GROUP]: 'Orders.at',
          [EnvVars.SCHEDULER_ROLE_ARN]: arnOf(recurringRole),
          [EnvVars.DELAYED_SCHEDULER_ROLE_ARN]: arnOf(delayedRole),
          [EnvVars.SCHEDULE_DLQ_ARN]: Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }),
          [EnvVars.RETENTION_MS]: String(30 * 86_400_000),
          [EnvVars.STATUS_SHARDS]: '8',
        },
      },
    });
    expect(Object.keys(producerVariables(template)).sort()).toEqual([...ALWAYS].sort());
  });

  it('adds the key, the integrity key, the claim-check bucket and the lanes when deployed', () => {
    // Act
    const { template } = wired((stack) => ({
      encryptionKey: new Key(stack, 'Key', { enableKeyRotation: true }),
      integrity: true,
      payloadBucket: true,
      lanes: { bulk: {} },
      retention: 'forever',
      statusShards: 16,
    }));

    // Assert
    const bucket = idOf(template, 'AWS::S3::Bucket', {});
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the producer',
      Environment: {
        Variables: Match.objectLike({
          [EnvVars.KMS_KEY_ARN]: Match.anyValue(),
          [EnvVars.INTEGRITY_KEY_ID]: Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }),
          [EnvVars.PAYLOAD_BUCKET]: { Ref: bucket },
          [LaneEnvVars.QUEUE_URLS]: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
          [LaneEnvVars.QUEUE_ARNS]: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
          [EnvVars.RETENTION_MS]: 'forever',
          [EnvVars.STATUS_SHARDS]: '16',
        }),
      },
    });
    expect(Object.keys(producerVariables(template)).sort()).toEqual(
      [
        ...ALWAYS,
        EnvVars.KMS_KEY_ARN,
        EnvVars.INTEGRITY_KEY_ID,
        EnvVars.PAYLOAD_BUCKET,
        LaneEnvVars.QUEUE_URLS,
        LaneEnvVars.QUEUE_ARNS,
      ].sort(),
    );
  });

  it('grants what grantEnqueue grants, and reads only with { read: true }', () => {
    // Act
    const enqueueOnly = wired().template;
    const reading = wired({}, true).template;

    // Assert
    const producerPolicy = (template: Template) =>
      Object.values(
        template.findResources('AWS::IAM::Policy', {
          Properties: {
            Roles: [{ Ref: Match.stringLikeRegexp('^ApiServiceRole') }],
          },
        }),
      ).flatMap((p) =>
        (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap(
          (s) => s.Action,
        ),
      );
    expect(producerPolicy(enqueueOnly)).toEqual(
      expect.arrayContaining([
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'sqs:SendMessage',
        'scheduler:CreateSchedule',
        'iam:PassRole',
      ]),
    );
    expect(producerPolicy(enqueueOnly)).not.toContain('dynamodb:Query');
    expect(producerPolicy(reading)).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchGetItem']),
    );
  });

  it('adds no cdk-nag finding but those of any grant to a function’s own role', () => {
    // Arrange
    const { app, stack } = wired({ integrity: true, payloadBucket: true }, true);
    const packs = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)];

    // Act
    const found = packs.flatMap((pack: NagPack) => findings(pack, stack));

    // Assert: the schedule wildcards are acknowledged on the producer's role. CDK puts any
    // grant to a function into its role's default (inline) policy, which NIST's
    // IAMNoInlinePolicy flags whatever is granted; the rest is the test function's own.
    expect(found.filter((f) => f.includes('/Tasks/'))).toEqual([]);
    expect(found.filter((f) => f.includes('/Api/ServiceRole/DefaultPolicy/'))).toEqual([
      'NIST.800.53.R5-IAMNoInlinePolicy @ Orders/Api/ServiceRole/DefaultPolicy/Resource',
    ]);
  });
});

/** Every unacknowledged finding of a pack, as `rule @ construct path`. */
function findings(pack: NagPack, scope: IConstruct): string[] {
  return pack
    .validateScope(scope)
    .violations.flatMap((violation) =>
      violation.violatingResources.map((r) => `${violation.ruleName} @ ${r.constructPath}`),
    );
}
