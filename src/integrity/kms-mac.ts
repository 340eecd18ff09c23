/**
 * The three KMS calls the integrity tag needs (GenerateMac, VerifyMac and, for the local
 * executor, CreateKey), over KMS's JSON 1.1 protocol and signed with Signature Version 4 by
 * the AWS SDK's own signer. Credentials and region come from an SDK client Tasklane already
 * has (its DynamoDB client), so the KMS calls run as the same principal as the table calls.
 * (docs/adr/0014-integrity-tag.md)
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { ConfigurationError } from '../errors.js';

/** What the integrity tag needs from KMS: an HMAC key's GenerateMac and VerifyMac. */
export interface MacService {
  /** The HMAC of `message` under `keyId` (KMS GenerateMac, HMAC_SHA_256). */
  generateMac(keyId: string, message: Uint8Array): Promise<Uint8Array>;
  /** Whether `mac` is the HMAC of `message` under `keyId` (KMS VerifyMac). */
  verifyMac(keyId: string, message: Uint8Array, mac: Uint8Array): Promise<boolean>;
}

/** The MAC algorithm of an HMAC_256 key. */
export const MAC_ALGORITHM = 'HMAC_SHA_256';

type Credentials = DynamoDBClient['config']['credentials'];

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

/** A minimal KMS client for {@link MacService}; see the module comment. */
export class KmsMacClient implements MacService {
  private readonly credentials: Credentials;
  private readonly region: () => Promise<string>;
  private readonly endpoint: string | undefined;

  constructor(options: KmsMacClientOptions) {
    this.credentials = options.credentialsFrom.config.credentials;
    this.region = options.credentialsFrom.config.region;
    this.endpoint =
      options.endpoint ?? process.env.AWS_ENDPOINT_URL_KMS ?? process.env.AWS_ENDPOINT_URL;
  }

  async generateMac(keyId: string, message: Uint8Array): Promise<Uint8Array> {
    const out = await this.call('GenerateMac', {
      KeyId: keyId,
      MacAlgorithm: MAC_ALGORITHM,
      Message: Buffer.from(message).toString('base64'),
    });
    if (typeof out.Mac !== 'string') throw new Error('KMS GenerateMac returned no Mac');
    return Buffer.from(out.Mac, 'base64');
  }

  async verifyMac(keyId: string, message: Uint8Array, mac: Uint8Array): Promise<boolean> {
    try {
      const out = await this.call('VerifyMac', {
        KeyId: keyId,
        MacAlgorithm: MAC_ALGORITHM,
        Message: Buffer.from(message).toString('base64'),
        Mac: Buffer.from(mac).toString('base64'),
      });
      return out.MacValid === true;
    } catch (err) {
      // KMS answers a wrong MAC with this exception rather than MacValid: false.
      if (err instanceof KmsError && err.type === 'KMSInvalidMacException') return false;
      throw err;
    }
  }

  /** Creates an HMAC_256 GENERATE_VERIFY_MAC key and returns its id (the local executor). */
  async createHmacKey(description: string): Promise<string> {
    const out = await this.call('CreateKey', {
      KeySpec: 'HMAC_256',
      KeyUsage: 'GENERATE_VERIFY_MAC',
      Description: description,
    });
    const keyId = (out.KeyMetadata as { KeyId?: unknown } | undefined)?.KeyId;
    if (typeof keyId !== 'string') throw new Error('KMS CreateKey returned no KeyId');
    return keyId;
  }

  private async call(action: string, input: object): Promise<Record<string, unknown>> {
    const region = await this.region();
    const url = new URL(this.endpoint ?? `https://kms.${region}.amazonaws.com`);
    const body = JSON.stringify(input);
    const signer = new SignatureV4({
      service: 'kms',
      region,
      credentials: this.credentials,
      sha256: NodeSha256,
    });
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': `TrentService.${action}`,
      },
      body,
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: signed.headers,
      body,
    });
    const text = await response.text();
    const parsed = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    if (!response.ok) {
      const type = String(parsed.__type ?? `HTTP ${response.status}`).replace(/^.*#/, '');
      const message = String(parsed.message ?? parsed.Message ?? '');
      if (type === 'AccessDeniedException' || type === 'NotFoundException') {
        throw new ConfigurationError(
          `KMS ${action} on the integrity key failed: ${type}: ${message}. Check the key id (TASKLANE_INTEGRITY_KEY_ID) and the kms:${action} grant.`,
        );
      }
      throw new KmsError(action, type, message);
    }
    return parsed;
  }
}

/** A KMS error response. */
export class KmsError extends Error {
  constructor(
    readonly action: string,
    readonly type: string,
    message: string,
  ) {
    super(`KMS ${action} failed: ${type}${message === '' ? '' : `: ${message}`}`);
    this.name = 'KmsError';
  }
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** SHA-256 (or HMAC-SHA-256 with a secret), the hash the signer asks for. */
class NodeSha256 {
  private readonly hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }

  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}
