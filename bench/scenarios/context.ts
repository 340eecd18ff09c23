/** What every scenario gets from the runner. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { BenchProfile } from '../config.js';
import type { ConsumerKind } from '../consumers/protocol.js';
import type { Checks } from '../lib/checks.js';

/** The runner's shared state. */
export interface BenchContext {
  readonly profile: BenchProfile;
  /** Uncounted clients for provisioning and clean-up. */
  readonly admin: { readonly sqs: SQSClient; readonly dynamodb: DynamoDBClient };
  /** Bundled consumer entry points, by kind. */
  readonly consumers: Readonly<Record<ConsumerKind, string>>;
  /** A scratch directory for bundles. */
  readonly workDir: string;
  readonly checks: Checks;
  log(message: string): void;
}
