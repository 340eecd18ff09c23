/** The local executor's integrity key: created in the emulator's KMS when asked for. */
import { KmsMacClient, type KmsMacClientOptions } from '../integrity/kms-mac.js';

/** Where the key is named: a local executor's location. */
interface KeyedLocation {
  readonly integrity?: { readonly keyId: string } | undefined;
}

/** With `integrity: true` and no key in the location, a new HMAC key in the emulator's KMS. */
export async function withIntegrityKey<L extends KeyedLocation>(
  options: { readonly integrity?: boolean | undefined },
  location: L,
  kms: KmsMacClientOptions,
): Promise<L> {
  if (options.integrity !== true || location.integrity !== undefined) return location;
  const keyId = await new KmsMacClient(kms).createHmacKey('Tasklane local integrity tag');
  return { ...location, integrity: { keyId } };
}

/** The integrity option of the client, worker and sweeper: the key, through the emulator. */
export function integrityOptions(
  location: KeyedLocation,
  endpoint: string,
): { integrity?: { keyId: string; endpoint: string } } {
  const keyId = location.integrity?.keyId;
  return keyId === undefined ? {} : { integrity: { keyId, endpoint } };
}
