import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { arnOf, idOf } from '../helpers/infra.js';

function payloadStack(props: Partial<TaskExecutorProps> = { payloadBucket: true }) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Payloads');
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...props,
  });
  const role = new Role(stack, 'Producer', {
    assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
  });
  return { app, stack, executor, role };
}

/** `<bucket ARN>/<prefix>*` as CDK writes it. */
const objects = (bucket: string, prefix: string) => ({
  'Fn::Join': ['', [arnOf(bucket), `/${prefix}*`]],
});

/** Every S3 statement of the policies in the template, as `action resource`. */
function s3Statements(template: Template, type: string): unknown[] {
  return Object.values(template.findResources(type)).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as { Action: unknown }[]).filter((s) =>
      JSON.stringify(s.Action).includes('s3:'),
    ),
  );
}

describe('TaskExecutor payloadBucket', () => {
  it('creates a private, TLS-only, S3-encrypted bucket whose objects expire after retention + 14 days', () => {
    const { stack } = payloadStack();

    const template = Template.fromStack(stack);

    const rule = (prefix: string) => ({
      Id: `expire-${prefix}`,
      Prefix: `${prefix}/`,
      Status: 'Enabled',
      ExpirationInDays: 44,
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
        ],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: { Rules: [rule('payloads'), rule('results'), rule('signals')] },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('encrypts with the executor’s key, with a bucket key, when it has one', () => {
    const { stack } = payloadStack();
    const key = new Key(stack, 'DataKey', { enableKeyRotation: true });
    new TaskExecutor(stack, 'Keyed', {
      name: 'Keyed',
      workerEntry: 'functions/worker.ts',
      encryptionKey: key,
      payloadBucket: { expiration: Duration.days(3) },
    });

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: arnOf(idOf(template, 'AWS::KMS::Key', { EnableKeyRotation: true })),
            },
          },
        ],
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Prefix: 'payloads/', ExpirationInDays: 3 })]),
      },
    });
  });

  it('sets no expiration with retention forever, but still aborts incomplete uploads', () => {
    const { stack } = payloadStack({ payloadBucket: true, retention: 'forever' });

    const template = Template.fromStack(stack);

    const rules = Object.values(template.findResources('AWS::S3::Bucket'))[0]?.Properties
      .LifecycleConfiguration.Rules as Record<string, unknown>[];
    expect(rules.map((r) => r.ExpirationInDays)).toEqual([undefined, undefined, undefined]);
    expect(rules.map((r) => r.AbortIncompleteMultipartUpload)).toEqual([
      { DaysAfterInitiation: 1 },
      { DaysAfterInitiation: 1 },
      { DaysAfterInitiation: 1 },
    ]);
  });

  it('names the bucket to the worker and in the stack outputs', () => {
    const { stack } = payloadStack();

    const template = Template.fromStack(stack);

    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'the Tasklane worker of Payloads',
      Environment: { Variables: Match.objectLike({ TASKLANE_PAYLOAD_BUCKET: { Ref: bucket } }) },
    });
    template.hasOutput('ExecutorPayloadBucketName', { Value: { Ref: bucket } });
  });

  it('creates nothing, and names nothing, without the prop', () => {
    const { stack } = payloadStack({});

    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::S3::Bucket', 0);
    expect(Object.keys(template.findOutputs('*'))).not.toContain('ExecutorPayloadBucketName');
  });
});

describe('TaskExecutor payload grants', () => {
  it('gives the worker GetObject on payloads/* and signals/*, PutObject on results/*, nothing else in S3', () => {
    const { stack } = payloadStack();

    const template = Template.fromStack(stack);

    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    expect(s3Statements(template, 'AWS::IAM::ManagedPolicy')).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(bucket, 'payloads/') },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects(bucket, 'results/') },
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(bucket, 'signals/') },
    ]);
  });

  it('grantEnqueue adds PutObject on payloads/* only', () => {
    const { stack, executor, role } = payloadStack();

    executor.grantEnqueue(role);

    const template = Template.fromStack(stack);
    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    expect(s3Statements(template, 'AWS::IAM::Policy')).toEqual([
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects(bucket, 'payloads/') },
    ]);
  });

  it('grantSignal adds PutObject on signals/* only', () => {
    const { stack, executor, role } = payloadStack();

    executor.grantSignal(role);

    const template = Template.fromStack(stack);
    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    expect(s3Statements(template, 'AWS::IAM::Policy')).toEqual([
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects(bucket, 'signals/') },
    ]);
  });

  it('grantRead adds GetObject on results/* only', () => {
    const { stack, executor, role } = payloadStack();

    executor.grantRead(role);

    const template = Template.fromStack(stack);
    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    expect(s3Statements(template, 'AWS::IAM::Policy')).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(bucket, 'results/') },
    ]);
  });

  it('grantConsume adds what the worker has; grantOperate adds nothing in S3', () => {
    const { stack, executor, role } = payloadStack();

    executor.grantConsume(role);
    executor.grantOperate(role);

    const template = Template.fromStack(stack);
    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    expect(s3Statements(template, 'AWS::IAM::Policy')).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(bucket, 'payloads/') },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: objects(bucket, 'results/') },
      { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(bucket, 'signals/') },
    ]);
  });

  it('uses a bucket of your own as given, creating none', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Own');
    const own = new Bucket(stack, 'Own', { enforceSSL: true });

    const executor = new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      payloadBucket: own,
    });

    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::S3::Bucket', 1);
    expect(executor.payloadBucket).toBe(own as unknown);
    const bucket = Object.keys(template.findResources('AWS::S3::Bucket'))[0] ?? '';
    expect(s3Statements(template, 'AWS::IAM::ManagedPolicy')).toContainEqual({
      Effect: 'Allow',
      Action: 's3:GetObject',
      Resource: objects(bucket, 'payloads/'),
    });
  });
});

describe('cdk-nag with a payload bucket', () => {
  function findings(pack: NagPack, scope: Stack): string[] {
    return pack
      .validateScope(scope)
      .violations.flatMap((v) =>
        v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
      );
  }

  it('stays clean under AwsSolutions and NIST 800-53 R5, every acknowledgement with a reason', () => {
    const { app, stack, executor, role } = payloadStack();
    executor.grantEnqueue(role);
    executor.grantRead(role);

    const found = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)].flatMap((pack) =>
      findings(pack, stack),
    );

    // The test's own role keeps CDK's inline default policy; the prefix wildcards in it are
    // acknowledged on the role, so no AwsSolutions-IAM5 finding remains.
    expect(found).toEqual([
      'NIST.800.53.R5-IAMNoInlinePolicy @ Payloads/Producer/DefaultPolicy/Resource',
    ]);
    const bucketAcks = executor.nagAcknowledgements.filter((a) => a.path.includes('PayloadBucket'));
    expect(bucketAcks.map((a) => a.id).sort()).toEqual([
      'AwsSolutions-S1',
      'NIST.800.53.R5-S3BucketLoggingEnabled',
      'NIST.800.53.R5-S3BucketReplicationEnabled',
      'NIST.800.53.R5-S3BucketVersioningEnabled',
      'NIST.800.53.R5-S3DefaultEncryptionKMS',
    ]);
    for (const { reason } of bucketAcks) expect(reason.length).toBeGreaterThan(60);
  });

  it('needs no logging acknowledgement with an access-log bucket', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Logged');
    const logs = new Bucket(stack, 'Logs', { enforceSSL: true });
    const executor = new TaskExecutor(stack, 'Executor', {
      workerEntry: 'functions/worker.ts',
      payloadBucket: { serverAccessLogsBucket: logs, serverAccessLogsPrefix: 'payloads/' },
    });

    const found = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)]
      .flatMap((pack) => findings(pack, stack))
      .filter((f) => f.includes('/Executor/'));

    expect(found).toEqual([]);
    const ids = executor.nagAcknowledgements.map((a) => a.id);
    expect(ids).not.toContain('AwsSolutions-S1');
    expect(ids).not.toContain('NIST.800.53.R5-S3BucketLoggingEnabled');
  });
});

describe('TaskExecutor payloadBucket cost graph', () => {
  /** The dashboard body of a stack, as one string. */
  function dashboardBody(stack: Stack): string {
    const [dashboard] = Object.values(
      Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'),
    );
    return JSON.stringify(dashboard?.Properties.DashboardBody);
  }

  it("adds a line priced with the claim check's S3 requests when there is a bucket", () => {
    const { stack } = payloadStack();

    const body = dashboardBody(stack);

    expect(body).toContain("with the claim check's S3 requests");
    expect(body).toContain('S3WriteRequests');
    expect(body).toContain('(FILL(s3w, 0) * 5 + FILL(s3r, 0) * 0.4)');
  });

  it('leaves the S3 line out without a bucket', () => {
    const { stack } = payloadStack({});

    const body = dashboardBody(stack);

    expect(body).not.toContain('S3WriteRequests');
  });
});
