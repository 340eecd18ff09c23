import { App, Stack } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type IVpc, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { exampleStack } from '../helpers/infra.js';

/** Every unacknowledged finding (error or warning) of a pack, as `rule @ construct path`. */
function findings(pack: NagPack, scope: IConstruct): string[] {
  const report = pack.validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) => `${violation.severity}: ${violation.ruleName} @ ${resource.constructPath}`,
    ),
  );
}

const packs = (bundle = false) => {
  const app = new App(bundle ? {} : { context: { 'aws:cdk:bundling-stacks': [] } });
  return { app, packs: [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)] };
};

describe('cdk-nag over the example stack', () => {
  const stack = exampleStack({ bundle: true });
  const { packs: [awsSolutions, nist] = [] } = packs();

  it('has no unacknowledged AwsSolutions errors or warnings', () => {
    expect(findings(awsSolutions as NagPack, stack)).toEqual([]);
  });

  it('has no unacknowledged NIST 800-53 R5 errors or warnings', () => {
    expect(findings(nist as NagPack, stack)).toEqual([]);
  });

  it('acknowledges each finding on one resource, with a reason', () => {
    const acknowledgements = stack.executor.nagAcknowledgements;

    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { id, path, reason } of acknowledgements) {
      expect(id).toMatch(/^(AwsSolutions|NIST\.800\.53\.R5)-\w+/);
      expect(path).toMatch(/^TasklaneExample\/Executor\/.+\/Resource$/);
      expect(reason.length).toBeGreaterThan(60);
    }
    const keys = acknowledgements.map(({ id, path }) => `${id} @ ${path}`);
    expect(new Set(keys).size).toBe(keys.length);
    // No VPC, key or alarm actions: 15 NIST ones (8 of them the alarms' actions), the
    // sweeper's schedule-group wildcards and the worker's wake wildcard (AwsSolutions-IAM5).
    const perPack = (prefix: string) => acknowledgements.filter((a) => a.id.startsWith(prefix));
    expect(perPack('NIST.800.53.R5-')).toHaveLength(15);
    const schedules =
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/TasklaneExample.at';
    expect(perPack('AwsSolutions-').map((a) => `${a.id} @ ${a.path}`)).toEqual([
      ...['task.*', 'task_*'].map(
        (pattern) => `${schedules}/${pattern}] @ TasklaneExample/Executor/Sweeper/Policy/Resource`,
      ),
      `${schedules}/task_w*] @ TasklaneExample/Executor/Worker/Policy/Resource`,
    ]);
  });

  it('with every optional prop set, stays clean with fewer acknowledgements', () => {
    // Arrange: a VPC, a customer-managed key and an alarm topic, as a user would pass them.
    // (test/infra/encryption.test.ts checks the key with every grant as well.)
    const { app, packs: all } = packs();
    const stack = new Stack(app, 'Full');
    // aws-cdk-lib's Vpc declares optional members that IVpc does not, which
    // exactOptionalPropertyTypes refuses; the construct takes any IVpc.
    const vpc = new Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0 }) as IVpc;
    const key = new Key(stack, 'Key', { enableKeyRotation: true });
    const topic = new Topic(stack, 'Alarms', { masterKey: key, enforceSSL: true });

    // Act
    const executor = new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      vpc,
      reservedConcurrency: 20,
      encryptionKey: key,
      alarmActions: [new SnsAction(topic)],
    });
    const ours = all.flatMap((pack) =>
      findings(pack, stack).filter((finding) => finding.includes('/Executor/')),
    );

    // Assert
    expect(ours).toEqual([]);
    expect(executor.nagAcknowledgements.map((a) => a.id).sort()).toEqual([
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-IAM5[Resource::*]',
      // The sweeper recreates overdue delayed tasks' schedules, and only those.
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/Full.at/task.*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/Full.at/task_*]',
      // The worker creates sleeping tasks' wakes, and only those.
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/Full.at/task_w*]',
      'NIST.800.53.R5-DynamoDBInBackupPlan',
      'NIST.800.53.R5-LambdaDLQ',
    ]);
  });
});

describe('cdk-nag over an executor with lanes', () => {
  it('finds nothing unacknowledged on the lanes’ queues, mappings, alarms and grants', () => {
    const { app, packs: all } = packs();
    const stack = new Stack(app, 'Laned');

    new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      lanes: { bulk: { maxConcurrency: 2 }, urgent: { maxConcurrency: 50 } },
      restrictSenders: true,
    });
    const ours = all.flatMap((pack) =>
      findings(pack, stack).filter((finding) => finding.includes('/Executor/')),
    );

    expect(ours).toEqual([]);
  });
});

describe('cdk-nag packs (control)', () => {
  it('do report findings: a bare queue breaks AwsSolutions SQS3 and SQS4', () => {
    const { app, packs: [awsSolutions] = [] } = packs();
    const stack = new Stack(app, 'Bare');
    new Queue(stack, 'Queue');

    const found = findings(awsSolutions as NagPack, stack);

    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('AwsSolutions-SQS3 @ Bare/Queue/Resource'),
        expect.stringContaining('AwsSolutions-SQS4 @ Bare/Queue/Resource'),
      ]),
    );
  });
});
