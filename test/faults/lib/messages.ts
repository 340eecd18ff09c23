/** Raw SQS sends for scenarios that forge, replay or duplicate messages. */
import { createHash, randomUUID } from 'node:crypto';
import {
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { MESSAGE_SCHEMA_VERSION } from '../../../src/core/constants.js';
import { taskMessage } from '../../../src/core/message.js';
import type { TaskRecord } from '../../../src/core/record.js';
import { toSqsRecord } from '../../../src/worker/sqs-poller.js';
import { REGION } from '../../helpers/aws.js';
import type { EmulatorExecutor } from '../../helpers/executor.js';

/** One raw message to send. */
export interface RawMessage {
  readonly body: string;
  readonly groupId: string;
  readonly dedupId: string;
}

/**
 * A copy of a task's message, as SQS's at-least-once delivery (or a replay) would produce:
 * the same body and message group, with its own deduplication id. (A copy in another group
 * is not a duplicate SQS can make: the worker rejects it as a forgery, ADR 0013. Copies in
 * flight together with the original are `syntheticDelivery`'s job.)
 */
export function duplicateOf(
  record: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'messageGroupId'>,
  copy: number,
): RawMessage {
  const original = taskMessage(record);
  return {
    body: original.MessageBody,
    groupId: original.MessageGroupId,
    dedupId: createHash('sha256').update(`${record.id}#copy#${copy}`).digest('hex'),
  };
}

/** Sends raw messages with SendMessageBatch, 10 at a time; throws if any entry fails. */
export async function sendRaw(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly RawMessage[],
): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const chunk = messages.slice(i, i + 10);
    const out = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((m, n) => ({
          Id: String(n),
          MessageBody: m.body,
          MessageGroupId: m.groupId,
          MessageDeduplicationId: m.dedupId,
        })),
      }),
    );
    if ((out.Failed ?? []).length > 0) {
      throw new Error(`raw send failed: ${JSON.stringify(out.Failed)}`);
    }
  }
}

/** Receives up to 10 messages as Lambda event records, holding them `visibilityTimeout` s. */
export async function receiveRecords(
  executor: Pick<EmulatorExecutor, 'clients' | 'queueUrl' | 'queueArn'>,
  visibilityTimeout: number,
): Promise<SQSRecord[]> {
  const out = await executor.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: executor.queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      VisibilityTimeout: visibilityTimeout,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return (out.Messages ?? []).map((m) => toSqsRecord(m, executor.queueArn, REGION));
}

/**
 * A task's message as a Lambda event record, not received from SQS: a duplicate delivered
 * straight to a worker while the original is still running elsewhere (SQS at-least-once
 * delivery to two consumers). Its receipt handle is fake, so changing its visibility fails;
 * the worker treats that as the best-effort operation it is.
 */
export function syntheticDelivery(
  executor: Pick<EmulatorExecutor, 'queueArn'>,
  taskId: string,
  taskType: string,
): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: randomUUID(),
    receiptHandle: `synthetic-${randomUUID()}`,
    body: JSON.stringify({ tasklane: MESSAGE_SCHEMA_VERSION, id: taskId, type: taskType }),
    attributes: {
      ApproximateReceiveCount: '2',
      SentTimestamp: now,
      SenderId: 'sqs',
      ApproximateFirstReceiveTimestamp: now,
      MessageGroupId: taskId,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: executor.queueArn,
    awsRegion: REGION,
  };
}
