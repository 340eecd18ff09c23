import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Defaults } from '../core/constants.js';
import { ConfigurationError, ValidationError } from '../core/errors.js';
import { parseEnvelope } from '../core/message.js';

/** One message of the dead-letter queue, as {@link peekDeadLetters} saw it. */
export interface DeadLetter {
  readonly messageId: string;
  /** The task the message is for; undefined when the body is not a Tasklane message. */
  readonly taskId: string | undefined;
  readonly type: string | undefined;
  /** Why the body is not a Tasklane message (never quoting it); undefined when it is one. */
  readonly invalidReason: string | undefined;
  readonly messageGroupId: string | undefined;
  /** When the message was first sent to the work queue (epoch ms). */
  readonly sentAt: number | undefined;
  /** Receives so far, this peek's included. */
  readonly receiveCount: number;
}

/** Depth of the dead-letter queue and the age of its oldest message. */
export interface DeadLetterStats {
  /** Messages waiting (SQS's approximate count). */
  readonly visible: number;
  /** Messages received by someone and not yet deleted or released. */
  readonly inFlight: number;
  /**
   * When the oldest message seen was first sent (epoch ms): the oldest among up to
   * `sample` peeked messages, undefined when none was seen.
   */
  readonly oldestSentAt: number | undefined;
}

/** Longest a peeked message stays hidden if this process dies before releasing it. */
const PEEK_HOLD_SECONDS = 30;
const MAX_PEEK = 1000;

/**
 * Reads up to `limit` dead-letter messages without consuming them: each is received with a
 * short visibility timeout, so that further receives reach past it (a FIFO queue hands out
 * a group's head again and again otherwise), and then released at once (visibility 0).
 * Nothing is deleted. Each peek counts as a receive: `ApproximateReceiveCount` grows, and a
 * message is hidden from other consumers for the moment of the peek (30 s at most, if this
 * process dies before releasing it).
 *
 * @throws ValidationError unless `limit` is an integer from 1 to 1000.
 */
export async function peekDeadLetters(
  sqs: SQSClient,
  queueUrl: string,
  options: { limit?: number } = {},
): Promise<DeadLetter[]> {
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PEEK) {
    throw new ValidationError('peekDeadLetters options', [
      { path: 'limit', message: `expected an integer from 1 to ${MAX_PEEK}, received ${limit}` },
    ]);
  }
  const seen: Message[] = [];
  try {
    await receiveDeadLetters(sqs, queueUrl, limit, PEEK_HOLD_SECONDS, seen);
  } finally {
    await release(sqs, queueUrl, seen);
  }
  return seen.map(toDeadLetter);
}

/**
 * Receives up to `limit` distinct messages of a dead-letter queue, each hidden for
 * `holdSeconds` (so that further receives reach past it: a FIFO queue hands out a group's
 * head again and again otherwise), and deletes none. {@link peekDeadLetters} releases them
 * at once; the sweeper's dead-letter pass lets the short hold run out
 * (docs/adr/0052-running-leaves-the-status-index.md). Each message is added to `found` as
 * it comes, so a caller still has those received before a failed receive.
 */
export async function receiveDeadLetters(
  sqs: SQSClient,
  queueUrl: string,
  limit: number,
  holdSeconds: number,
  found: Message[] = [],
): Promise<Message[]> {
  const seen = new Map<string, Message>();
  while (seen.size < limit) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(Defaults.SQS_BATCH_SIZE, limit - seen.size),
        VisibilityTimeout: holdSeconds,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const fresh = (out.Messages ?? []).filter(
      (m) => m.MessageId !== undefined && !seen.has(m.MessageId),
    );
    if (fresh.length === 0) break;
    for (const m of fresh) {
      seen.set(m.MessageId as string, m);
      found.push(m);
    }
  }
  return [...seen.values()];
}

/**
 * The dead-letter queue's depth (GetQueueAttributes) and, from a peek of up to `sample`
 * messages, the oldest one's first send time.
 */
export async function deadLetterStats(
  sqs: SQSClient,
  queueUrl: string,
  options: { sample?: number } = {},
): Promise<DeadLetterStats> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  const visible = Number(out.Attributes?.ApproximateNumberOfMessages ?? 0);
  const inFlight = Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  const peeked =
    visible === 0 ? [] : await peekDeadLetters(sqs, queueUrl, { limit: options.sample ?? 100 });
  const times = peeked.flatMap((m) => (m.sentAt === undefined ? [] : [m.sentAt]));
  return { visible, inFlight, oldestSentAt: times.length === 0 ? undefined : Math.min(...times) };
}

/**
 * The dead-letter queue's URL, or a ConfigurationError saying how to give it.
 */
export function requireDeadLetterQueue(url: string | undefined, setting: string): string {
  if (url !== undefined && url !== '') return url;
  throw new ConfigurationError(
    `No dead-letter queue is configured: pass deadLetterQueueUrl (or set ${setting}), e.g. from the stack output ending in DeadLetterQueueUrl.`,
  );
}

async function release(sqs: SQSClient, queueUrl: string, messages: readonly Message[]) {
  for (let i = 0; i < messages.length; i += Defaults.SQS_BATCH_SIZE) {
    const batch = messages.slice(i, i + Defaults.SQS_BATCH_SIZE);
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((m, j) => ({
          Id: String(j),
          ReceiptHandle: m.ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

function toDeadLetter(message: Message): DeadLetter {
  const parsed = parseEnvelope(message.Body ?? '');
  const attributes = message.Attributes ?? {};
  const sent = attributes.SentTimestamp;
  return {
    messageId: message.MessageId ?? '',
    taskId: parsed.ok ? parsed.envelope.id : undefined,
    type: parsed.ok ? parsed.envelope.type : undefined,
    invalidReason: parsed.ok ? undefined : parsed.reason,
    messageGroupId: attributes.MessageGroupId,
    sentAt: sent === undefined ? undefined : Number(sent),
    receiveCount: Number(attributes.ApproximateReceiveCount ?? 0),
  };
}
