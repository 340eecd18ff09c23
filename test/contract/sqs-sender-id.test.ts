/**
 * SQS SenderId: the principal that sent a message. Telling the scheduler role's firings apart
 * from producers' sends depends on it (docs/emulator.md, "SenderId").
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
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
});
