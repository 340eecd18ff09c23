/**
 * A FIFO dead-letter queue for tests, and SQS's move of a message into it done by hand: the
 * tests decide which message goes there and when, instead of receiving it `maxReceiveCount`
 * times (docs/adr/0052-running-and-queued-leave-the-index.md).
 */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** Creates an empty FIFO queue to serve as a work queue's dead-letter queue; its URL. */
export async function createDeadLetterQueue(sqs: SQSClient, name: string): Promise<string> {
  const out = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}-dlq.fifo`,
      Attributes: { FifoQueue: 'true' },
    }),
  );
  if (out.QueueUrl === undefined) throw new Error('CreateQueue returned no URL');
  return out.QueueUrl;
}

/**
 * Puts a copy of a received message into the dead-letter queue, as SQS's redrive does (same
 * body and group). With `from`, the original is deleted from that queue, so the copy is the
 * task's only message.
 */
export async function moveToDeadLetterQueue(
  sqs: SQSClient,
  deadLetterQueueUrl: string,
  message: SQSRecord,
  from?: string,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: message.body,
      MessageGroupId: message.attributes.MessageGroupId,
      MessageDeduplicationId: message.messageId,
    }),
  );
  if (from !== undefined) {
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: from, ReceiptHandle: message.receiptHandle }),
    );
  }
}

/** How many messages the queue holds, visible or not. */
export async function queueSize(sqs: SQSClient, queueUrl: string): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const a = out.Attributes ?? {};
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}
