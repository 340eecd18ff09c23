/**
 * The integrity tag's HMAC key and its grants (docs/security.md, "What the integrity tag
 * adds"). Producers get kms:GenerateMac; the worker kms:VerifyMac and kms:GenerateMac (it
 * tags the recurring firings it creates); the sweeper kms:VerifyMac; on a previous key, the
 * worker and the sweeper kms:VerifyMac only. Each statement names the key's ARN.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/** What a producer calls: one GenerateMac per created task. */
export const PRODUCER_INTEGRITY_ACTIONS = ['kms:GenerateMac'];
/** What a worker calls: VerifyMac per claimed attempt, GenerateMac per recurring firing. */
export const WORKER_INTEGRITY_ACTIONS = ['kms:GenerateMac', 'kms:VerifyMac'];
/** What the sweeper calls: VerifyMac per task it would send. */
export const SWEEPER_INTEGRITY_ACTIONS = ['kms:VerifyMac'];
/** What a signal sender does with the integrity key: verify a signal token's HMAC. */
export const SIGNALLER_INTEGRITY_ACTIONS = ['kms:VerifyMac'];
/** What the worker and the sweeper call on a previous key: VerifyMac of what it tagged. */
export const PREVIOUS_KEY_INTEGRITY_ACTIONS = ['kms:VerifyMac'];

/** The ARNs of `previousIntegrityKeys`, the keys that tagged records before the current one. */
export function previousIntegrityKeyArns(props: {
  readonly previousIntegrityKeys?: readonly IKey[];
}): string[] {
  return (props.previousIntegrityKeys ?? []).map((key) => key.keyArn);
}

/**
 * The executor's integrity key: `integrityKey` when given, else with `integrity: true` a new
 * HMAC_256 key (GENERATE_VERIFY_MAC; KMS does not rotate HMAC keys), else undefined.
 */
export function integrityKeyOf(
  scope: Construct,
  props: { readonly integrity?: boolean; readonly integrityKey?: IKey },
  name: string,
): IKey | undefined {
  if (props.integrityKey !== undefined) return props.integrityKey;
  if (props.integrity !== true) return undefined;
  return new Key(scope, 'IntegrityKey', {
    keySpec: KeySpec.HMAC_256,
    keyUsage: KeyUsage.GENERATE_VERIFY_MAC,
    description: `Tasklane ${name}: integrity tags of task records`,
    // Deleting the key would leave every stored tag unverifiable.
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** `actions` on the integrity key, or an empty grant when integrity is off. */
export function integrityGrant(
  key: IKey | undefined,
  grantee: IGrantable,
  actions: string[],
): Grant {
  if (key === undefined) return Grant.drop(grantee, 'integrity is off');
  return Grant.addToPrincipal({ grantee, actions, resourceArns: [key.keyArn] });
}
