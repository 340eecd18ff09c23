/**
 * Integrity's settings and names, apart from the tag's code (tag.ts): whether it is on, the
 * environment that turns it on, and how a failed check is named. Code every worker loads
 * imports these from here, so that a worker with integrity off never loads the tag's code
 * or its KMS client (docs/adr/0069-worker-chunks.md).
 */
import { AMBIGUOUS_PAYLOAD } from '../claim-check/payload-source.js';
import { EnvVars } from '../settings/location.js';
import type { MacService } from './kms-mac.js';

/** Environment variable with the HMAC key's id or ARN; the CDK construct sets it. */
export const INTEGRITY_KEY_ENV = EnvVars.INTEGRITY_KEY_ID;

/** Environment variable with the previous keys' ids or ARNs, comma-separated. */
export const INTEGRITY_PREVIOUS_KEYS_ENV = EnvVars.INTEGRITY_PREVIOUS_KEY_IDS;

/** The `lastError.name` and dead reason prefix of a task whose tag did not verify. */
export const INTEGRITY_FAILED = 'INTEGRITY_FAILED';

/** Why a record's tag did not verify. */
export type IntegrityProblem = 'missing' | 'mismatch' | 'ambiguous-payload';

/** The integrity settings of a TaskClient, worker or sweeper. */
export interface IntegrityOptions {
  /** The KMS HMAC_256 key (id, ARN or alias). @default `TASKLANE_INTEGRITY_KEY_ID` */
  readonly keyId?: string | undefined;
  /**
   * Keys that tagged records before `keyId` took over (ids or ARNs, not aliases): a record
   * whose tag names one of them is verified with it, so rotating the key leaves the tasks in
   * flight running (docs/security.md, "Rotating the integrity key").
   * @default `TASKLANE_INTEGRITY_PREVIOUS_KEY_IDS`, comma-separated, else none
   */
  readonly previousKeyIds?: readonly string[] | undefined;
  /** Computes and checks MACs. @default KMS, as the DynamoDB client's principal */
  readonly mac?: MacService | undefined;
  /** The KMS endpoint, for the default `mac`. @default as KmsMacClient (kms-mac.ts) */
  readonly endpoint?: string | undefined;
}

/**
 * The executor's key id when integrity is on (a key id is given in `options` or the
 * environment), else undefined.
 */
export function integrityKeyId(
  options: IntegrityOptions | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const keyId = options?.keyId ?? env[INTEGRITY_KEY_ENV];
  return keyId === '' ? undefined : keyId;
}

/** The dead reason of a task whose tag did not verify. */
export function integrityFailure(problem: IntegrityProblem): string {
  switch (problem) {
    case 'missing':
      return `${INTEGRITY_FAILED}: the record has no integrity tag`;
    case 'ambiguous-payload':
      return `${INTEGRITY_FAILED}: ${AMBIGUOUS_PAYLOAD}`;
    case 'mismatch':
      return `${INTEGRITY_FAILED}: the integrity tag does not match the record's payload or the fields that decide how and where it runs`;
  }
}
