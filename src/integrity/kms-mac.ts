/**
 * The KMS calls the integrity tag needs (GenerateMac, VerifyMac and, for the local executor,
 * CreateKey), through the AWS SDK's KMS client. Credentials and region come from an SDK client
 * Tasklane already has (its DynamoDB client), so the KMS calls run as the same principal as the
 * table calls. The client, and the SDK's KMS package, are loaded on first use, so a worker without
 * integrity never loads them.
 * (docs/adr/0016-integrity-tag.md)
 */

import type { KMSClient } from '@aws-sdk/client-kms';
import { awsClientConfig } from '../aws/clients.js';
import { type KmsSdk, loadKms } from '../aws/sdk.js';
import { ConfigurationError } from '../core/errors.js';
import type { DynamoDBClient } from '../store/table.js';

/** What the integrity tag needs from KMS: an HMAC key's GenerateMac and VerifyMac. */
export interface MacService {
  /** The HMAC of `message` under `keyId` (KMS GenerateMac, HMAC_SHA_256). */
  generateMac(keyId: string, message: Uint8Array): Promise<Uint8Array>;
  /** Whether `mac` is the HMAC of `message` under `keyId` (KMS VerifyMac). */
  verifyMac(keyId: string, message: Uint8Array, mac: Uint8Array): Promise<boolean>;
}

/** The MAC algorithm of an HMAC_256 key. */
export const MAC_ALGORITHM = 'HMAC_SHA_256';

/** Options of {@link KmsMacClient}. */
export interface KmsMacClientOptions {
  /** Signs as this client's principal, in its region. */
  readonly credentialsFrom: DynamoDBClient;
  /**
   * The KMS endpoint. @default `AWS_ENDPOINT_URL_KMS`, else `AWS_ENDPOINT_URL`, else the
   * region's `https://kms.<region>.amazonaws.com`
   */
  readonly endpoint?: string | undefined;
}

/** {@link MacService} over the SDK's KMS client; see the module comment. */
export class KmsMacClient implements MacService {
  private client: KMSClient | undefined;

  constructor(private readonly options: KmsMacClientOptions) {}

  async generateMac(keyId: string, message: Uint8Array): Promise<Uint8Array> {
    const out = await this.send('GenerateMac', (sdk) =>
      this.kms(sdk).send(
        new sdk.GenerateMacCommand({ KeyId: keyId, MacAlgorithm: MAC_ALGORITHM, Message: message }),
      ),
    );
    if (out.Mac === undefined) throw new Error('KMS GenerateMac returned no Mac');
    return out.Mac;
  }

  async verifyMac(keyId: string, message: Uint8Array, mac: Uint8Array): Promise<boolean> {
    try {
      const out = await this.send('VerifyMac', (sdk) =>
        this.kms(sdk).send(
          new sdk.VerifyMacCommand({
            KeyId: keyId,
            MacAlgorithm: MAC_ALGORITHM,
            Message: message,
            Mac: mac,
          }),
        ),
      );
      return out.MacValid === true;
    } catch (err) {
      // KMS answers a wrong MAC with this exception rather than MacValid: false.
      if (err instanceof Error && err.name === 'KMSInvalidMacException') return false;
      throw err;
    }
  }

  /** Creates an HMAC_256 GENERATE_VERIFY_MAC key and returns its id (the local executor). */
  async createHmacKey(description: string): Promise<string> {
    const out = await this.send('CreateKey', (sdk) =>
      this.kms(sdk).send(
        new sdk.CreateKeyCommand({
          KeySpec: 'HMAC_256',
          KeyUsage: 'GENERATE_VERIFY_MAC',
          Description: description,
        }),
      ),
    );
    const keyId = out.KeyMetadata?.KeyId;
    if (keyId === undefined) throw new Error('KMS CreateKey returned no KeyId');
    return keyId;
  }

  private kms(sdk: KmsSdk): KMSClient {
    if (this.client === undefined) {
      const source = this.options.credentialsFrom.config;
      const endpoint =
        this.options.endpoint ?? process.env.AWS_ENDPOINT_URL_KMS ?? process.env.AWS_ENDPOINT_URL;
      this.client = new sdk.KMSClient({
        ...awsClientConfig(),
        region: source.region,
        credentials: source.credentials,
        ...(endpoint === undefined ? {} : { endpoint }),
      });
    }
    return this.client;
  }

  /** Runs one KMS call; a missing key or a refused grant is a misconfiguration (ADR 0011). */
  private async send<T>(action: string, call: (sdk: KmsSdk) => Promise<T>): Promise<T> {
    const sdk = await loadKms();
    try {
      return await call(sdk);
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      if (err instanceof sdk.NotFoundException || name === 'AccessDeniedException') {
        throw new ConfigurationError(
          `KMS ${action} on the integrity key failed: ${name}: ${(err as Error).message}. Check the key id (TASKLANE_INTEGRITY_KEY_ID) and the kms:${action} grant.`,
        );
      }
      throw err;
    }
  }
}
