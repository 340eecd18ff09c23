/**
 * SQS SenderId: the principal that sent a message. Telling the scheduler role's firings apart
 * from producers' sends depends on it (docs/emulator.md, "SenderId"): the worker compares the
 * part before ":" with each schedule group's role id (src/worker/firing-trust.ts).
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { principalOf } from '../../src/worker/firing-trust.js';
import { createFifoQueue, endpointEngine, receiveCount, sqs } from './support.js';

async function sendWith(client: SQSClient, url: string, body: string): Promise<void> {
  await client.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      MessageGroupId: body,
      MessageDeduplicationId: body,
    }),
  );
}

describe('SQS SenderId', () => {
  it('stamps every message of one caller with the same, non-empty SenderId', async () => {
    const { url } = await createFifoQueue('sender', { visibilityTimeout: 30 });

    await sendWith(sqs, url, 'one');
    await sendWith(sqs, url, 'two');
    const received = await receiveCount(url, 2, 30);

    const senders = received.map((m) => m.Attributes?.SenderId);
    expect(senders).toHaveLength(2);
    expect(senders[0]).toBeTruthy();
    expect(senders[1]).toBe(senders[0]);
  });

  it('harness (moto and ministack): reports the access key id that signed the send as the SenderId', async () => {
    // Only an emulator accepts made-up credentials; elsewhere the default caller is checked.
    // Both engines' wrappers make this correction: moto stamps one fixed id, MiniStack the
    // account id, on every message.
    const engine = await endpointEngine();
    const accessKeyId = engine === 'other' ? undefined : 'AKIDSCHEDULERROLE';
    const client = accessKeyId
      ? new SQSClient({
          region: 'us-east-1',
          useQueueUrlAsEndpoint: false,
          credentials: { accessKeyId, secretAccessKey: 'test' },
        })
      : sqs;
    const { url } = await createFifoQueue('sender-key', { visibilityTimeout: 30 });

    await sendWith(client, url, 'fired');
    await sendWith(sqs, url, 'produced');
    const received = await receiveCount(url, 2, 30);

    const byBody = new Map(received.map((m) => [m.Body, m.Attributes?.SenderId]));
    if (accessKeyId) {
      expect(byBody.get('fired')).toBe(accessKeyId);
      expect(byBody.get('produced')).toBe(process.env.AWS_ACCESS_KEY_ID);
    } else {
      expect(byBody.get('fired')).toBe(byBody.get('produced'));
    }
  });

  it('reports a message sent under an assumed role as the role id and the session, which the worker compares up to ":"', async () => {
    // Another account's role can be named with TASKLANE_CONTRACT_ROLE_ARN; moto assumes any.
    // Both engines' wrappers report the signing access key id (docs/emulator.md).
    const emulated = (await endpointEngine()) !== 'other';
    const roleArn =
      process.env.TASKLANE_CONTRACT_ROLE_ARN ?? 'arn:aws:iam::123456789012:role/contract-sender';
    const sts = new STSClient({ region: 'us-east-1' });
    const assumed = await sts.send(
      new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'contract-session' }),
    );
    const credentials = assumed.Credentials;
    const roleSession = assumed.AssumedRoleUser?.AssumedRoleId ?? '';
    const session = new SQSClient({
      region: 'us-east-1',
      useQueueUrlAsEndpoint: false,
      credentials: {
        accessKeyId: credentials?.AccessKeyId ?? '',
        secretAccessKey: credentials?.SecretAccessKey ?? '',
        sessionToken: credentials?.SessionToken ?? '',
      },
    });
    const { url } = await createFifoQueue('sender-role', { visibilityTimeout: 30 });

    await sendWith(session, url, 'as-role');
    const [received] = await receiveCount(url, 1, 30);

    const senderId = received?.Attributes?.SenderId ?? '';
    expect(roleSession).toMatch(/^AROA[A-Z0-9]+:contract-session$/);
    if (emulated) {
      // The engines' stand-in: the access key id that signed the send (docs/emulator.md).
      expect(senderId).toBe(credentials?.AccessKeyId);
    } else {
      expect(senderId).toBe(roleSession);
      expect(principalOf(senderId)).toBe(roleSession.split(':')[0]);
    }
  });
});
