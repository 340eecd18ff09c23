import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { arnOf, idOf } from '../helpers/infra.js';

function handlerStack() {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Handlers');
  const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
  const bucket = new Bucket(stack, 'Reports', { enforceSSL: true });
  return { stack, executor, bucket };
}

/** The worker's one managed policy. */
function workerPolicy(template: Template) {
  const [policy] = Object.values(
    template.findResources('AWS::IAM::ManagedPolicy', {
      Properties: { Description: 'What the Tasklane worker of Handlers may do' },
    }),
  );
  return policy?.Properties.PolicyDocument.Statement as unknown[];
}

describe('TaskExecutor.workerPrincipal', () => {
  it('lands a handler’s grant in the worker’s managed policy', () => {
    const { stack, executor, bucket } = handlerStack();

    const grant = bucket.grantRead(executor.workerPrincipal);

    expect(grant.success).toBe(true);
    const template = Template.fromStack(stack);
    const [reports = ''] = Object.keys(template.findResources('AWS::S3::Bucket'));
    expect(workerPolicy(template)).toContainEqual({
      Effect: 'Allow',
      Action: expect.arrayContaining(['s3:GetObject*', 's3:List*']),
      Resource: [arnOf(reports), { 'Fn::Join': ['', [arnOf(reports), '/*']] }],
    });
  });

  it('writes no inline policy: the grant stays in the one customer-managed policy', () => {
    const { stack, executor, bucket } = handlerStack();
    const key = new Key(stack, 'HandlerKey', { enableKeyRotation: true });

    bucket.grantReadWrite(executor.workerPrincipal);
    key.grantDecrypt(executor.workerPrincipal);

    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::IAM::Policy', 0);
    const keyId = idOf(template, 'AWS::KMS::Key', { EnableKeyRotation: true });
    expect(workerPolicy(template)).toContainEqual({
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: arnOf(keyId),
    });
  });

  it('is the worker function’s role', () => {
    const { stack, executor } = handlerStack();

    const fragment = stack.resolve(executor.workerPrincipal.policyFragment.principalJson);

    const template = Template.fromStack(stack);
    const worker = idOf(template, 'AWS::Lambda::Function', {
      Description: 'the Tasklane worker of Handlers',
    });
    const role = template.toJSON().Resources[worker].Properties.Role['Fn::GetAtt'][0] as string;
    expect(fragment).toEqual({ AWS: [arnOf(role)] });
  });
});
