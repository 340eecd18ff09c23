/**
 * The integrity tag: a KMS HMAC over what decides what a task runs, and where and how
 * (src/integrity/mac-input.ts), made by whoever writes those fields (the producer at
 * creation and at a debounce fold, the worker for a recurring firing) and checked by the
 * worker before the handler runs and by the sweeper before a re-send. A principal that can
 * write the table but cannot call kms:GenerateMac cannot change those fields, or plant a
 * record, without the check failing. (docs/adr/0016-integrity-tag.md,
 * docs/adr/0035-integrity-tag-v2.md, docs/security.md)
 */

import { payloadSource } from '../claim-check/payload-source.js';
import type { TaskRecord } from '../core/record.js';
import { canonicalJson, payloadHash } from '../store/record.js';
import type { DynamoDBClient } from '../store/table.js';
import {
  INTEGRITY_PREVIOUS_KEYS_ENV,
  type IntegrityOptions,
  type IntegrityProblem,
  integrityKeyId,
} from './integrity-settings.js';
import { KmsMacClient, type MacService } from './kms-mac.js';
import {
  formatTag,
  keyName,
  legacyMacInput,
  macInput,
  parseTag,
  type TaggedFields,
} from './mac-input.js';

export {
  INTEGRITY_FAILED,
  INTEGRITY_KEY_ENV,
  INTEGRITY_PREVIOUS_KEYS_ENV,
  type IntegrityOptions,
  type IntegrityProblem,
  integrityFailure,
} from './integrity-settings.js';
export { macInput, type TaggedFields } from './mac-input.js';

/** Bytes of an HMAC_SHA_256 MAC. */
const MAC_BYTES = 32;

/** The outcome of {@link IntegrityTag.verify}. */
export type IntegrityVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly problem: IntegrityProblem };

/** The stored fields {@link IntegrityTag.verify} reads. */
export type TaggedRecord = Pick<
  TaskRecord,
  | 'id'
  | 'type'
  | 'payload'
  | 'payloadRef'
  | 'payloadHash'
  | 'maxAttempts'
  | 'timeoutMs'
  | 'orderingKey'
  | 'messageGroupId'
  | 'runAt'
  | 'integrityTag'
  | 'lane'
  | 'onDead'
  | 'parents'
  | 'onParentDead'
>;

/** Makes tags with one KMS HMAC key, and checks them with it or a previous one. */
export class IntegrityTag {
  constructor(
    readonly keyId: string,
    private readonly mac: MacService,
    /** Keys that may have tagged records before {@link keyId}; see {@link IntegrityOptions}. */
    readonly previousKeyIds: readonly string[] = [],
  ) {}

  /**
   * The tag of what a writer is about to store: `v2:<base64 MAC>:<key name>` over
   * {@link macInput}. One GenerateMac. The writer must store exactly these fields with it.
   */
  async tag(fields: TaggedFields): Promise<string> {
    return formatTag(await this.mac.generateMac(this.keyId, macInput(fields)), this.keyId);
  }

  /**
   * Checks a stored record's tag against its stored fields. An inline payload's hash is
   * recomputed from the payload, never taken from the record, so a changed payload fails even
   * if the writer left `payloadHash` alone; a claim-checked payload is covered by its
   * reference and hash, which the worker's read checks the object against (ADR 0023). A
   * record with both is refused without a KMS call, as is a missing tag. Otherwise one
   * VerifyMac, with the key the tag names when it is the current or a previous one.
   */
  async verify(record: TaggedRecord): Promise<IntegrityVerdict> {
    const tag = record.integrityTag;
    if (tag === undefined || tag === '') return { ok: false, problem: 'missing' };
    const source = payloadSource(record);
    if (source.kind === 'ambiguous') return { ok: false, problem: 'ambiguous-payload' };
    const hash =
      source.kind === 'inline'
        ? payloadHash(record.type, canonicalJson(source.payload ?? null))
        : record.payloadHash;
    const parsed = parseTag(tag);
    // A tag that cannot be a MAC is refused here: KMS would answer it with a validation
    // error, which would read as an outage and have the message retried.
    if (parsed.mac.length !== MAC_BYTES) return { ok: false, problem: 'mismatch' };
    const { id, type, maxAttempts } = record;
    const [keyId, input] =
      parsed.version === 1
        ? // Tagged before tags named their key: by the current key, or by none that verifies.
          [this.keyId, legacyMacInput({ id, type, payloadHash: hash, maxAttempts })]
        : [
            this.keyNamed(parsed.key),
            macInput({
              ...record,
              payloadHash: hash,
              payloadRef: source.kind === 'claim-checked' ? source.ref : undefined,
            }),
          ];
    const valid = await this.mac.verifyMac(keyId, input, parsed.mac);
    return valid ? { ok: true } : { ok: false, problem: 'mismatch' };
  }

  /**
   * The HMAC of `message` under the current key (one GenerateMac), and that key's name: for
   * what else the executor's key vouches for, a signal token (integrity/signal-token.ts).
   */
  async sign(message: Uint8Array): Promise<{ readonly mac: Uint8Array; readonly key: string }> {
    return { mac: await this.mac.generateMac(this.keyId, message), key: keyName(this.keyId) };
  }

  /**
   * Whether `mac` is the HMAC of `message` under the trusted key named `key` (else the
   * current one): one VerifyMac.
   */
  checkSigned(message: Uint8Array, mac: Uint8Array, key: string): Promise<boolean> {
    return this.mac.verifyMac(this.keyNamed(key), message, mac);
  }

  /**
   * The trusted key a tag names, else the current key. Only ever one of the configured keys:
   * the name in the record only picks among them, so a forged name buys nothing, and the
   * MAC under a trusted key is what vouches for the record.
   */
  private keyNamed(name: string): string {
    const keys = [this.keyId, ...this.previousKeyIds];
    return keys.find((key) => keyName(key) === name) ?? this.keyId;
  }
}

/** What a holder of the executor's key does with it: the part of {@link IntegrityTag} used. */
export type IntegrityKey = Pick<IntegrityTag, 'tag' | 'verify' | 'sign' | 'checkSigned'>;

/**
 * The integrity tag to use, or undefined when integrity is off: on when a key id is given
 * in `options` or the environment.
 */
export function resolveIntegrity(
  options: IntegrityOptions | undefined,
  dynamodb: DynamoDBClient,
  env: NodeJS.ProcessEnv = process.env,
): IntegrityTag | undefined {
  const keyId = integrityKeyId(options, env);
  if (keyId === undefined) return undefined;
  const previous =
    options?.previousKeyIds ??
    (env[INTEGRITY_PREVIOUS_KEYS_ENV] ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== '');
  const mac =
    options?.mac ?? new KmsMacClient({ credentialsFrom: dynamodb, endpoint: options?.endpoint });
  return new IntegrityTag(keyId, mac, previous);
}
