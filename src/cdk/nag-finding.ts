/** How cdk-nag names a finding, so that an acknowledgement covers exactly one wildcard. */
import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The id cdk-nag gives an AwsSolutions-IAM5 finding for `arn` in a policy of `scope`'s
 * stack: the resolved ARN flattened the way cdk-nag does (`Ref` → `<Name>`, joins
 * concatenated), e.g. `…[Resource::arn:<AWS::Partition>:scheduler:…:schedule/orders/*]`.
 */
export function iam5Finding(scope: IConstruct, arn: string): string {
  return `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(arn))}]`;
}

function flatten(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const node = value as Record<string, unknown>;
  if (Array.isArray(node['Fn::Join'])) {
    const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(flatten).join(delimiter);
  }
  if (node.Ref !== undefined) return `<${flatten(node.Ref)}>`;
  if (Array.isArray(node['Fn::GetAtt'])) {
    const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  return JSON.stringify(value);
}
