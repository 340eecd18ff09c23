/**
 * Fixtures for the contract suite: plain SDK calls that behave the same on AWS, on moto
 * behind the harness, or on any other emulator that AWS_ENDPOINT_URL names.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { uniqueName } from '../helpers/aws.js';
import { emulatorEndpoint } from '../helpers/endpoint.js';

const region = 'us-east-1';

/** An SQS client that never follows a queue URL to another host (emulators report AWS's). */
export const sqs = new SQSClient({ region, useQueueUrlAsEndpoint: false });
export const dynamodb = new DynamoDBClient({ region });

/** The engine behind the endpoint, as far as its own API tells: anything else may be AWS. */
export type Engine = 'moto' | 'ministack' | 'other';

let engineProbe: Promise<Engine> | undefined;

/**
 * Which engine answers at the endpoint: moto answers `/moto-api/`, MiniStack
 * `/_ministack/health`. Pinned deviations assert an engine's own behaviour only there, and
 * AWS's everywhere else.
 */
export function endpointEngine(): Promise<Engine> {
  engineProbe ??= (async () => {
    if (await answers('/moto-api/')) return 'moto';
    if (await answers('/_ministack/health')) return 'ministack';
    return 'other';
  })();
  return engineProbe;
}

/** Whether the endpoint is moto (it answers moto's own API). */
export async function endpointIsMoto(): Promise<boolean> {
  return (await endpointEngine()) === 'moto';
}

async function answers(path: string): Promise<boolean> {
  try {
    const res = await fetch(new URL(path, emulatorEndpoint()), {
      signal: AbortSignal.timeout(5_000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Options for {@link createFifoQueue}. */
export interface FifoQueueOptions {
  /** Seconds a received message stays invisible. */
  visibilityTimeout: number;
  /** ARN of a dead-letter queue and the receive count that moves a message there. */
  redrive?: { deadLetterTargetArn: string; maxReceiveCount: number };
  /** Extra queue attributes, e.g. DeduplicationScope. */
  attributes?: Record<string, string>;
}

/** Creates a FIFO queue with a unique name and returns its URL and ARN. */
export async function createFifoQueue(
  prefix: string,
  options: FifoQueueOptions,
): Promise<{ url: string; arn: string }> {
  const attributes: Record<string, string> = {
    FifoQueue: 'true',
    VisibilityTimeout: String(options.visibilityTimeout),
    ...options.attributes,
  };
  if (options.redrive) attributes.RedrivePolicy = JSON.stringify(options.redrive);
  const created = await sqs.send(
    new CreateQueueCommand({ QueueName: `${uniqueName(prefix)}.fifo`, Attributes: attributes }),
  );
  const url = created.QueueUrl ?? '';
  const described = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: described.Attributes?.QueueArn ?? '' };
}

/** Sends `bodies` to one group in order, each body doubling as its deduplication id. */
export async function sendToGroup(url: string, group: string, bodies: string[]): Promise<void> {
  const out = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: bodies.map((body, n) => ({
        Id: String(n),
        MessageBody: body,
        MessageGroupId: group,
        MessageDeduplicationId: body,
      })),
    }),
  );
  if (out.Failed?.length) throw new Error(`send failed: ${JSON.stringify(out.Failed)}`);
}

/** One ReceiveMessage without waiting; `visibilityTimeout` overrides the queue's. */
export async function receive(
  url: string,
  max: number,
  visibilityTimeout?: number,
): Promise<Message[]> {
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: 0,
      VisibilityTimeout: visibilityTimeout,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return out.Messages ?? [];
}

/**
 * Receives until `count` messages have been taken, polling every 100 ms for up to `withinMs`.
 * Needed because a receive may return fewer messages than are available.
 */
export async function receiveCount(
  url: string,
  count: number,
  visibilityTimeout: number,
  withinMs = 10_000,
): Promise<Message[]> {
  const taken: Message[] = [];
  const deadline = Date.now() + withinMs;
  while (taken.length < count && Date.now() < deadline) {
    const batch = await receive(url, Math.min(10, count - taken.length), visibilityTimeout);
    taken.push(...batch);
    if (batch.length === 0) await sleep(100);
  }
  return taken;
}

/**
 * Drains a queue one message at a time, deleting each, and returns the bodies in the order
 * they arrived. Stops after `count` messages or `withinMs`.
 */
export async function drainInOrder(url: string, count: number, withinMs = 15_000) {
  const bodies: string[] = [];
  const deadline = Date.now() + withinMs;
  while (bodies.length < count && Date.now() < deadline) {
    const [message] = await receive(url, 1, 30);
    if (!message) {
      await sleep(100);
      continue;
    }
    bodies.push(message.Body ?? '');
    await deleteMessage(url, message);
  }
  return bodies;
}

/** Deletes one received message. */
export async function deleteMessage(url: string, message: Message): Promise<void> {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
}

/** Bodies of `messages`, in order. */
export function bodiesOf(messages: Message[]): string[] {
  return messages.map((m) => m.Body ?? '');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The name of the error a call was refused with, or undefined when it succeeded. */
export async function refusalOf(call: Promise<unknown>): Promise<string | undefined> {
  return call.then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.name : String(err)),
  );
}

/**
 * Sends one message ('once') to a new FIFO queue with a 1 s visibility, receives it, and waits
 * until that receive's visibility has run out: the returned message's receipt handle goes stale
 * at the queue's next receive.
 */
export async function staleReceipt(
  prefix: string,
): Promise<{ url: string; first: Message | undefined }> {
  const { url } = await createFifoQueue(prefix, { visibilityTimeout: 1 });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: 'once',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'once',
    }),
  );
  const [first] = await receiveCount(url, 1, 1);
  await sleep(1_500);
  return { url, first };
}
