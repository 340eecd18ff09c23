/** What the executor's customer-managed key needs beyond the grants: CloudWatch Logs' use. */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/**
 * Lets CloudWatch Logs of the stack's region use `key` for the executor's log groups,
 * `/tasklane/<name>/*` only (the encryption context names the log group). A key imported
 * into the app has a policy that CDK cannot change, so this adds nothing to it, and the
 * key's owner must allow the same.
 */
export function allowLogsToUseKey(scope: Construct, key: IKey, executorName: string): void {
  const stack = Stack.of(scope);
  const logGroups = stack.formatArn({
    service: 'logs',
    resource: 'log-group',
    resourceName: `/tasklane/${executorName}/*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: [
        'kms:Encrypt*',
        'kms:Decrypt*',
        'kms:ReEncrypt*',
        'kms:GenerateDataKey*',
        'kms:Describe*',
      ],
      resources: ['*'],
      conditions: { ArnLike: { 'kms:EncryptionContext:aws:logs:arn': logGroups } },
    }),
  );
}
