/**
 * The integrity tag: a KMS HMAC over what decides what a task does, (id, type, payload,
 * maxAttempts), made by the producer at creation and checked by the worker before the
 * handler runs and by the sweeper before a re-send. A principal that can write the table but
 * cannot call kms:GenerateMac cannot change those fields, or plant a record, without the
 * check failing. (docs/adr/0016-integrity-tag.md, docs/security.md)
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EnvVars } from '../config.js';
import { canonicalJson, payloadHash, type TaskRecord } from '../store/record.js';
import { KmsMacClient, type MacService } from './kms-mac.js';

/** Environment variable with the HMAC key's id or ARN; the CDK construct sets it. */
export const INTEGRITY_KEY_ENV = EnvVars.INTEGRITY_KEY_ID;

/** The `lastError.name` and dead reason prefix of a task whose tag did not verify. */
export const INTEGRITY_FAILED = 'INTEGRITY_FAILED';

/** Bytes of an HMAC_SHA_256 MAC. */
const MAC_BYTES = 32;

/** Versions the MAC input, so a later encoding can never be confused with this one. */
const MAC_INPUT_VERSION = 'tasklane-integrity-v1';

/** The fields the tag covers. */
export interface TaggedFields {
  readonly id: string;
  readonly type: string;
  /** {@link payloadHash} of the type and the canonical payload JSON. */
  readonly payloadHash: string;
  readonly maxAttempts: number;
}

/**
 * The bytes the MAC is computed over: the canonical JSON of a versioned array of the
 * fields. An array, not concatenation, so no two field tuples encode alike.
 */
export function macInput(fields: TaggedFields): Uint8Array {
  const { id, type, payloadHash: hash, maxAttempts } = fields;
  return Buffer.from(canonicalJson([MAC_INPUT_VERSION, id, type, hash, maxAttempts]), 'utf8');
}

/** The outcome of {@link IntegrityTag.verify}. */
export type IntegrityVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly problem: 'missing' | 'mismatch' };

/** The integrity settings of a TaskClient, worker or sweeper. */
export interface IntegrityOptions {
  /** The KMS HMAC_256 key (id, ARN or alias). @default `TASKLANE_INTEGRITY_KEY_ID` */
  readonly keyId?: string | undefined;
  /** Computes and checks MACs. @default KMS, as the DynamoDB client's principal */
  readonly mac?: MacService | undefined;
  /** The KMS endpoint, for the default `mac`. @default as {@link KmsMacClient} */
  readonly endpoint?: string | undefined;
}

/** Makes and checks integrity tags with one KMS HMAC key. */
export class IntegrityTag {
  constructor(
    readonly keyId: string,
    private readonly mac: MacService,
  ) {}

  /** The tag of a new task: base64 of the KMS HMAC of {@link macInput}. One GenerateMac. */
  async tag(fields: TaggedFields): Promise<string> {
    return Buffer.from(await this.mac.generateMac(this.keyId, macInput(fields))).toString('base64');
  }

  /**
   * Checks a stored record's tag against its stored fields. The payload hash is recomputed
   * from the stored payload, never taken from the record, so a changed payload fails even if
   * the writer left `payloadHash` alone. One VerifyMac; none when the tag is missing.
   */
  async verify(
    record: Pick<
      TaskRecord,
      'id' | 'type' | 'payload' | 'maxAttempts' | 'integrityTag' | 'payloadRef' | 'payloadHash'
    >,
  ): Promise<IntegrityVerdict> {
    const tag = record.integrityTag;
    if (tag === undefined || tag === '') return { ok: false, problem: 'missing' };
    // A claim-checked payload is in S3: the tag covers the stored payload hash, and the
    // worker checks the object it reads against that hash before the handler runs (ADR 0023).
    const claimChecked = record.payloadRef !== undefined && record.payload === undefined;
    const fields: TaggedFields = {
      id: record.id,
      type: record.type,
      payloadHash: claimChecked
        ? record.payloadHash
        : payloadHash(record.type, canonicalJson(record.payload ?? null)),
      maxAttempts: record.maxAttempts,
    };
    const mac = Buffer.from(tag, 'base64');
    // A tag that cannot be a MAC is refused here: KMS would answer it with a validation
    // error, which would read as an outage and have the message retried.
    if (mac.length !== MAC_BYTES) return { ok: false, problem: 'mismatch' };
    const valid = await this.mac.verifyMac(this.keyId, macInput(fields), mac);
    return valid ? { ok: true } : { ok: false, problem: 'mismatch' };
  }
}

/**
 * The integrity tag to use, or undefined when integrity is off: on when a key id is given
 * in `options` or the environment.
 */
export function resolveIntegrity(
  options: IntegrityOptions | undefined,
  dynamodb: DynamoDBClient,
  env: NodeJS.ProcessEnv = process.env,
): IntegrityTag | undefined {
  const keyId = options?.keyId ?? env[INTEGRITY_KEY_ENV];
  if (keyId === undefined || keyId === '') return undefined;
  const mac =
    options?.mac ?? new KmsMacClient({ credentialsFrom: dynamodb, endpoint: options?.endpoint });
  return new IntegrityTag(keyId, mac);
}

/** The dead reason of a task whose tag did not verify. */
export function integrityFailure(problem: 'missing' | 'mismatch'): string {
  return problem === 'missing'
    ? `${INTEGRITY_FAILED}: the record has no integrity tag`
    : `${INTEGRITY_FAILED}: the integrity tag does not match the record's id, type, payload and maxAttempts`;
}
