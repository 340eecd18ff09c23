/**
 * What the integrity tag covers and how it is written down: the bytes the MAC is computed
 * over (one encoding per tag version) and the stored tag string, which names its version and
 * its key (docs/adr/0035-integrity-tag-v2.md).
 *
 * Version 2 covers everything that decides what a task runs, and where and how: the payload
 * (its hash and, when claim-checked, the object's reference), the attempts and timeout, the
 * ordering key and message group, the lane, `onDead`, `runAt` and the parents. Version 1
 * (ADR 0016) covered id, type, payload hash and `maxAttempts` only; it is still accepted, so
 * that records tagged before the upgrade keep running.
 */
import type { ObjectRef } from '../core/record.js';
import { canonicalJson } from '../store/record.js';

/** The fields the version-2 tag covers, under the names records and new tasks give them. */
export interface TaggedFields {
  readonly id: string;
  readonly type: string;
  /** `payloadHash` of the type and the canonical payload JSON. */
  readonly payloadHash: string;
  /** The claim-checked payload's object; absent for an inline payload. */
  readonly payloadRef?: ObjectRef | undefined;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly orderingKey?: string | undefined;
  readonly messageGroupId: string;
  readonly lane?: string | undefined;
  readonly onDead?: 'park' | undefined;
  readonly runAt?: number | undefined;
  readonly parents?: readonly string[] | undefined;
  readonly onParentDead?: 'run' | undefined;
}

/** The fields the version-1 tag covered (ADR 0016). */
export type LegacyTaggedFields = Pick<TaggedFields, 'id' | 'type' | 'payloadHash' | 'maxAttempts'>;

/** Separates the parts of a version-2 tag; neither base64 nor the version uses it. */
const SEPARATOR = ':';
const V2_PREFIX = `v2${SEPARATOR}`;

/**
 * The bytes a version-2 MAC is computed over: the canonical JSON (keys sorted) of the
 * version string and an object of every covered field, absent ones as null. Named fields,
 * not positions, so a field added later cannot be read as another one.
 */
export function macInput(fields: TaggedFields): Uint8Array {
  const ref = fields.payloadRef;
  const covered = {
    id: fields.id,
    type: fields.type,
    payloadHash: fields.payloadHash,
    // Every part of the reference: where the object is and which bytes it must hold.
    payloadRef:
      ref === undefined
        ? null
        : { bucket: ref.bucket, key: ref.key, size: ref.size, sha256: ref.sha256 },
    maxAttempts: fields.maxAttempts,
    timeoutMs: fields.timeoutMs,
    orderingKey: fields.orderingKey ?? null,
    messageGroupId: fields.messageGroupId,
    lane: fields.lane ?? null,
    onDead: fields.onDead ?? null,
    runAt: fields.runAt ?? null,
    // A set as far as the task is concerned: sorted, so the stored order cannot matter.
    parents:
      fields.parents === undefined || fields.parents.length === 0
        ? null
        : [...fields.parents].sort(),
    onParentDead: fields.onParentDead ?? null,
  };
  return Buffer.from(canonicalJson(['tasklane-integrity-v2', covered]), 'utf8');
}

/**
 * The bytes a version-1 MAC was computed over (ADR 0016): the canonical JSON of a versioned
 * array of id, type, payload hash and maxAttempts. Only verified, never written any more.
 */
export function legacyMacInput(fields: LegacyTaggedFields): Uint8Array {
  const { id, type, payloadHash, maxAttempts } = fields;
  return Buffer.from(
    canonicalJson(['tasklane-integrity-v1', id, type, payloadHash, maxAttempts]),
    'utf8',
  );
}

/**
 * The short name of a key a tag records: the key id of a key ARN
 * (`arn:aws:kms:<region>:<account>:key/<id>` → `<id>`), else the name as given. Short, so the
 * tag costs few bytes, and equal for a key whether it was named by ARN or by id.
 */
export function keyName(keyId: string): string {
  const match = /^arn:[^:]+:kms:[^:]*:[^:]*:key\/(.+)$/.exec(keyId);
  return match?.[1] ?? keyId;
}

/** A stored tag, parsed. */
export type ParsedTag =
  | { readonly version: 1; readonly mac: Buffer }
  /** `key`: the {@link keyName} of the key it was made with, as the tag says. */
  | { readonly version: 2; readonly mac: Buffer; readonly key: string };

/** The stored form of a version-2 tag: `v2:<base64 MAC>:<key name>`. */
export function formatTag(mac: Uint8Array, keyId: string): string {
  return `${V2_PREFIX}${Buffer.from(mac).toString('base64')}${SEPARATOR}${keyName(keyId)}`;
}

/**
 * Reads a stored tag: `v2:<base64 MAC>:<key name>`, or a bare base64 MAC, version 1. The
 * MAC's length is not checked here.
 */
export function parseTag(tag: string): ParsedTag {
  if (!tag.startsWith(V2_PREFIX)) return { version: 1, mac: Buffer.from(tag, 'base64') };
  const rest = tag.slice(V2_PREFIX.length);
  const end = rest.indexOf(SEPARATOR);
  if (end < 0) return { version: 2, mac: Buffer.from(rest, 'base64'), key: '' };
  return {
    version: 2,
    mac: Buffer.from(rest.slice(0, end), 'base64'),
    key: rest.slice(end + 1),
  };
}
