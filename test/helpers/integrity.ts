/** Fixtures of the integrity-tag tests: a real key in the emulator's KMS, and a table writer without it. */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { TableSchema } from '../../src/core/constants.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import type { TestExecutor } from './executor.js';

/** The integrity option of a client, worker or sweeper: one key, through the emulator. */
export interface TestIntegrity {
  readonly keyId: string;
  readonly endpoint: string | undefined;
  readonly previousKeyIds?: readonly string[];
}

/** A new HMAC_256 key in the emulator's KMS, as the integrity option names it. */
export async function newIntegrityKey(
  executor: TestExecutor,
  description: string,
): Promise<TestIntegrity> {
  const endpoint = process.env.AWS_ENDPOINT_URL;
  const kms = new KmsMacClient({ credentialsFrom: executor.clients.dynamodb, endpoint });
  return { keyId: await kms.createHmacKey(description), endpoint };
}

/**
 * Changes stored attributes as a table writer without the key would: one UpdateItem that
 * sets `set` and removes `remove`, with no condition.
 */
export async function tamper(
  executor: TestExecutor,
  id: string,
  set: Record<string, unknown>,
  remove: readonly string[] = [],
): Promise<void> {
  const names = Object.keys(set);
  const removes = remove.map((_, i) => `#r${i}`);
  await executor.clients.dynamodb.send(
    new UpdateItemCommand({
      TableName: executor.tableName,
      Key: marshall({ [TableSchema.PARTITION_KEY]: id }),
      UpdateExpression: [
        names.length > 0 ? `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}` : '',
        removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
      ].join(' '),
      ExpressionAttributeNames: {
        ...Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
        ...Object.fromEntries(remove.map((n, i) => [`#r${i}`, n])),
      },
      ...(names.length > 0
        ? {
            ExpressionAttributeValues: marshall(
              Object.fromEntries(names.map((n, i) => [`:v${i}`, set[n]])),
              { removeUndefinedValues: true },
            ),
          }
        : {}),
    }),
  );
}
