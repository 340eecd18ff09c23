import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { arnOf, idOf } from '../helpers/infra.js';

/** An executor with the given props, and a producer role holding grantEnqueue. */
function integrityStack(props: Partial<TaskExecutorProps>) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const nag: NagPack[] = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)];
  const stack = new Stack(app, 'Tagged');
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...props,
  });
  const producer = new Role(stack, 'Producer', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  executor.grantEnqueue(producer);
  return { stack, nag, executor, template: Template.fromStack(stack) };
}

/** The actions of every statement of the producer role's policy. */
function producerActions(template: Template): string[] {
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: {
      Roles: [
        {
          Ref: idOf(template, 'AWS::IAM::Role', {
            Description: Match.absent(),
            AssumeRolePolicyDocument: Match.objectLike({
              Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })],
            }),
          }),
        },
      ],
    },
  });
  return Object.values(policies).flatMap((p) =>
    (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) =>
      Array.isArray(s.Action) ? s.Action : [s.Action],
    ),
  );
}

function functionPolicy(fn: 'worker' | 'sweeper') {
  return `What the Tasklane ${fn} of Tagged may do`;
}

describe('TaskExecutor integrity', () => {
  const { stack, nag, executor, template } = integrityStack({ integrity: true });
  const key = idOf(template, 'AWS::KMS::Key', { KeySpec: 'HMAC_256' });

  it('creates an HMAC_256 key for generating and verifying MACs, retained on delete', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeySpec: 'HMAC_256',
      KeyUsage: 'GENERATE_VERIFY_MAC',
    });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain' });
    expect(executor.integrityKey).toBeDefined();
  });

  it('passes the key to the worker and the sweeper as TASKLANE_INTEGRITY_KEY_ID', () => {
    for (const fn of ['worker', 'sweeper']) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: `the Tasklane ${fn} of Tagged`,
        Environment: {
          Variables: Match.objectLike({ TASKLANE_INTEGRITY_KEY_ID: arnOf(key) }),
        },
      });
    }
  });

  it('lets the worker verify and generate MACs, and the sweeper only verify', () => {
    const allows = (fn: 'worker' | 'sweeper', actions: string | string[]) =>
      template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
        Description: functionPolicy(fn),
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Action: actions, Resource: arnOf(key) })]),
        },
      });
    allows('worker', ['kms:GenerateMac', 'kms:VerifyMac']);
    allows('sweeper', 'kms:VerifyMac');
  });

  it('gives a producer kms:GenerateMac on the key and nothing else of it', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'kms:GenerateMac', Resource: arnOf(key) }),
        ]),
      },
    });
    expect(producerActions(template)).not.toContain('kms:VerifyMac');
  });

  it('gives a signal sender kms:VerifyMac on the key, for signal tokens, and nothing else of it', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const own = new Stack(app, 'Signalled');
    const signalled = new TaskExecutor(own, 'Executor', {
      workerEntry: 'functions/worker.ts',
      integrity: true,
    });
    const webhook = new Role(own, 'Webhook', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    signalled.grantSignal(webhook);
    const granted = Template.fromStack(own);
    const hmac = idOf(granted, 'AWS::KMS::Key', { KeySpec: 'HMAC_256' });

    const statements = Object.values(
      granted.findResources('AWS::IAM::Policy', {
        Properties: {
          Roles: [{ Ref: idOf(granted, 'AWS::IAM::Role', { Description: Match.absent() }) }],
        },
      }),
    ).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
    );
    expect(statements.filter((st) => JSON.stringify(st.Resource).includes(hmac))).toEqual([
      { Effect: 'Allow', Action: 'kms:VerifyMac', Resource: arnOf(hmac) },
    ]);
  });

  it('publishes the key as the IntegrityKeyId output', () => {
    template.hasOutput('ExecutorIntegrityKeyId', { Value: arnOf(key) });
  });

  it('stays clean under cdk-nag (the executor’s resources; the test’s own role aside)', () => {
    const findings = nag.flatMap((pack) =>
      pack
        .validateScope(stack)
        .violations.flatMap((v) =>
          v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
        ),
    );

    expect(findings.filter((f) => f.includes('/Executor/'))).toEqual([]);
  });
});

describe('TaskExecutor without integrity', () => {
  it('creates no key, sets no variable and grants no MAC action', () => {
    const { template } = integrityStack({});

    expect(template.findResources('AWS::KMS::Key')).toEqual({});
    expect(JSON.stringify(template.toJSON())).not.toMatch(
      /GenerateMac|VerifyMac|TASKLANE_INTEGRITY_KEY_ID/,
    );
  });
});

describe('TaskExecutor integrityKey', () => {
  it('uses the given key instead of creating one', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Given');
    const given = new Key(stack, 'Mac', {
      keySpec: KeySpec.HMAC_256,
      keyUsage: KeyUsage.GENERATE_VERIFY_MAC,
    });

    const executor = new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      integrityKey: given,
    });
    const template = Template.fromStack(stack);

    expect(executor.integrityKey).toBe(given);
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toHaveLength(1);
    template.hasOutput('ExecutorIntegrityKeyId', {
      Value: arnOf(idOf(template, 'AWS::KMS::Key', {})),
    });
  });
});

describe('TaskExecutor previousIntegrityKeys', () => {
  it('names the previous keys to the worker and the sweeper, which may only verify with them', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Rotated');
    const mac = { keySpec: KeySpec.HMAC_256, keyUsage: KeyUsage.GENERATE_VERIFY_MAC };
    const current = new Key(stack, 'Current', mac);
    const previous = new Key(stack, 'Previous', { ...mac, description: 'the previous key' });

    new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      integrityKey: current,
      previousIntegrityKeys: [previous],
    });
    const template = Template.fromStack(stack);

    const previousArn = arnOf(idOf(template, 'AWS::KMS::Key', { Description: 'the previous key' }));
    for (const fn of ['worker', 'sweeper'] as const) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: `the Tasklane ${fn} of Rotated`,
        Environment: {
          Variables: Match.objectLike({ TASKLANE_INTEGRITY_PREVIOUS_KEY_IDS: previousArn }),
        },
      });
      template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
        Description: `What the Tasklane ${fn} of Rotated may do`,
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Action: 'kms:VerifyMac', Resource: previousArn }),
          ]),
        },
      });
    }
  });
});
