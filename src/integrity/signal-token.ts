/**
 * Signal tokens (docs/adr/0048-durable-sleep-signals-pause.md): `ctx.signalToken(name)` gives a
 * handler a string it can hand to a third party (a payment provider's callback, an approval
 * link) so that a webhook holding only `grantSignal` can deliver the signal without knowing
 * the task's id. The token carries the task's id, its creation time and the signal's name, and
 * an HMAC of them under the executor's integrity key (KMS GenerateMac; VerifyMac to use it),
 * so it cannot be altered to reach another task, a later task of the same id, or another
 * signal. Form: `st1.<base64url JSON [id, createdAt, name]>.<base64url MAC>.<key name>`.
 */
import { SignalTokenError } from '../core/errors.js';
import { canonicalJson } from '../store/record.js';
import type { IntegrityKey } from './tag.js';

const PREFIX = 'st1';
const MAC_BYTES = 32;
/** Longest token accepted: an id and a name of their longest, a MAC and a key name. */
const MAX_TOKEN_CHARS = 1024;

/** What a token names. */
export interface SignalTarget {
  readonly taskId: string;
  /** The task's creation time: a token names that task, not a later one of the same id. */
  readonly createdAt: number;
  readonly name: string;
}

/** The bytes a token's HMAC is made over: canonical JSON, with its own version string. */
function macMessage(target: SignalTarget): Uint8Array {
  return new TextEncoder().encode(
    canonicalJson(['tasklane-signal-v1', target.taskId, target.createdAt, target.name]),
  );
}

/** A new token for `target`: one GenerateMac. */
export async function makeSignalToken(tag: IntegrityKey, target: SignalTarget): Promise<string> {
  const { mac, key } = await tag.sign(macMessage(target));
  const fields = Buffer.from(JSON.stringify([target.taskId, target.createdAt, target.name]));
  return [
    PREFIX,
    fields.toString('base64url'),
    Buffer.from(mac).toString('base64url'),
    encodeURIComponent(key),
  ].join('.');
}

/**
 * What `token` names, once its HMAC verifies (one VerifyMac).
 *
 * @throws SignalTokenError when it is malformed or does not verify; the reason never quotes it.
 */
export async function readSignalToken(tag: IntegrityKey, token: unknown): Promise<SignalTarget> {
  const parsed = parseToken(token);
  const valid = await tag.checkSigned(macMessage(parsed.target), parsed.mac, parsed.key);
  if (!valid) {
    throw new SignalTokenError(
      "its HMAC does not verify under the executor's key (altered, or made by another executor)",
    );
  }
  return parsed.target;
}

function parseToken(token: unknown): {
  target: SignalTarget;
  mac: Uint8Array;
  key: string;
} {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) {
    throw new SignalTokenError(`expected a string of at most ${MAX_TOKEN_CHARS} characters`);
  }
  const parts = token.split('.');
  if (parts.length !== 4 || parts[0] !== PREFIX) {
    throw new SignalTokenError(`expected ${PREFIX}.<fields>.<mac>.<key>`);
  }
  const [, fields, mac, key] = parts as [string, string, string, string];
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(fields, 'base64url').toString('utf8'));
  } catch {
    throw new SignalTokenError('its fields are not base64url JSON');
  }
  const ok =
    Array.isArray(decoded) &&
    decoded.length === 3 &&
    typeof decoded[0] === 'string' &&
    typeof decoded[1] === 'number' &&
    typeof decoded[2] === 'string';
  if (!ok) throw new SignalTokenError('its fields are not [task id, creation time, name]');
  const macBytes = Buffer.from(mac, 'base64url');
  if (macBytes.length !== MAC_BYTES) throw new SignalTokenError('its MAC is not 32 bytes');
  let keyName: string;
  try {
    keyName = decodeURIComponent(key);
  } catch {
    throw new SignalTokenError('its key name is not URI-encoded');
  }
  const [taskId, createdAt, name] = decoded as [string, number, string];
  return { target: { taskId, createdAt, name }, mac: macBytes, key: keyName };
}
