import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { loadSqs, type SqsSdk } from '../aws/sdk.js';
import { Defaults } from '../core/constants.js';
import type { TaskLogger } from '../observability/logger.js';

/** A function that handles one SQS event, as a Lambda function would. */
export type SqsEventHandler = (event: SQSEvent) => Promise<unknown>;

/** Options of {@link pollQueue}. */
export interface PollQueueOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly handler: SqsEventHandler;
  /**
   * Stops polling. The receive in progress is allowed to finish (at most `waitTimeSeconds`)
   * and its messages are processed, so shutdown never strands messages in flight.
   */
  readonly signal: AbortSignal;
  readonly logger: TaskLogger;
  /** Messages per receive, 1-10. @default 10 */
  readonly batchSize?: number;
  /** Long-poll wait, 0-20 seconds. @default 20 */
  readonly waitTimeSeconds?: number;
  /** Receive loops running at once (Lambda's concurrent pollers). @default 1 */
  readonly concurrency?: number;
  /** Called after each batch with what was deleted and what was left for a retry. */
  readonly onBatch?: (summary: BatchSummary) => void;
  /**
   * Whether the queue's lane is paused (worker/lane-gate.ts): while it says so, nothing is
   * received; batches already received finish. Asked before each receive. @default never
   */
  readonly paused?: () => boolean;
}

/** How often a paused poller asks again whether its lane is still paused. */
const PAUSED_RECHECK_MS = 250;

/** What happened to one received batch. */
export interface BatchSummary {
  readonly received: number;
  readonly deleted: number;
  readonly failed: number;
  /** Set when the whole batch failed: the handler threw or its response was malformed. */
  readonly batchError?: string;
}

/** Result of {@link interpretBatchResponse}. */
export type BatchVerdict =
  | { readonly ok: true; readonly failedIds: ReadonlySet<string> }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a handler's response the way the Lambda SQS event source mapping does with
 * ReportBatchItemFailures: an empty, null or undefined response, or an empty list, means
 * every message succeeded; a list of `{ itemIdentifier }` naming messages of the batch
 * fails those; anything else (a missing or empty identifier, an unknown message id, a
 * wrong shape) fails the whole batch.
 */
export function interpretBatchResponse(
  response: unknown,
  batchIds: ReadonlySet<string>,
): BatchVerdict {
  if (response === undefined || response === null || response === '') {
    return { ok: true, failedIds: new Set() };
  }
  if (typeof response !== 'object' || Array.isArray(response)) {
    return { ok: false, reason: `response is not an object: ${JSON.stringify(response)}` };
  }
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { ok: true, failedIds: new Set() };
  if (!Array.isArray(failures)) return { ok: false, reason: 'batchItemFailures is not an array' };
  const failedIds = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '') {
      return { ok: false, reason: `invalid itemIdentifier: ${JSON.stringify(failure)}` };
    }
    if (!batchIds.has(id))
      return { ok: false, reason: `itemIdentifier '${id}' is not in the batch` };
    failedIds.add(id);
  }
  return { ok: true, failedIds };
}

/** Builds the Lambda event record for a received message, with the attributes Lambda sets. */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const a = message.Attributes ?? {};
  const attributes: SQSRecord['attributes'] = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
    SentTimestamp: a.SentTimestamp ?? '',
    SenderId: a.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '',
    ...(a.SequenceNumber === undefined ? {} : { SequenceNumber: a.SequenceNumber }),
    ...(a.MessageGroupId === undefined ? {} : { MessageGroupId: a.MessageGroupId }),
    ...(a.MessageDeduplicationId === undefined
      ? {}
      : { MessageDeduplicationId: a.MessageDeduplicationId }),
    ...(a.AWSTraceHeader === undefined ? {} : { AWSTraceHeader: a.AWSTraceHeader }),
  };
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringListValues: [],
      binaryListValues: [],
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined
        ? {}
        : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * Long-polls a queue and feeds each batch to a handler as an `SQSEvent`, then deletes the
 * messages the handler did not report as failed. This is the engine of both the worker's
 * `poll()` (ECS, a laptop) and the local stand-in for Lambda's event source mapping.
 */
export async function pollQueue(options: PollQueueOptions): Promise<void> {
  const { sqs, queueUrl, signal, logger } = options;
  const sdk = await loadSqs();
  const { GetQueueAttributesCommand, ReceiveMessageCommand } = sdk;
  const batchSize = options.batchSize ?? Defaults.SQS_BATCH_SIZE;
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  const attrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const queueArn = attrs.Attributes?.QueueArn ?? queueUrl;
  const region = queueArn.split(':')[3] ?? (await sqs.config.region());

  const concurrency = options.concurrency ?? 1;
  const inFlight = new Set<Promise<void>>();
  let idleMs = 0;
  // One receive at a time, dispatching batches to up to `concurrency` handler invocations.
  // While batches are in flight, the queue is short-polled with a growing pause: their
  // deletes will unlock FIFO groups soon, and a long poll would sleep through that (moto,
  // unlike SQS, does not end a long poll early when a group unlocks). When nothing is in
  // flight and the queue is empty, it long-polls, which costs nothing while idle.
  while (!signal.aborted) {
    if (inFlight.size >= concurrency) {
      await Promise.race(inFlight);
      continue;
    }
    if (options.paused?.() === true) {
      // The lane is paused: receive nothing (its messages wait in the queue), and ask again
      // soon; the gate's own period bounds how soon a resume is seen.
      await sleep(PAUSED_RECHECK_MS, signal);
      continue;
    }
    const longPoll = inFlight.size === 0 && idleMs > 0;
    let messages: Message[];
    try {
      const out = await sqs.send(
        // No abort signal on purpose: an aborted long poll still takes messages on the
        // server side, and they would stay invisible until their visibility timeout.
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: batchSize,
          WaitTimeSeconds: longPoll ? waitTimeSeconds : 0,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      messages = out.Messages ?? [];
    } catch (err) {
      if (signal.aborted) break;
      logger.warn('receive failed; backing off', { queueUrl, error: (err as Error).message });
      await sleep(1000, signal);
      continue;
    }
    if (messages.length === 0) {
      idleMs = Math.min(Math.max(idleMs * 2, 10), 500);
      if (!longPoll) await sleep(idleMs, signal);
      continue;
    }
    idleMs = 0;
    const batch = handleBatch(sdk, messages, queueArn, region, options).then((summary) => {
      options.onBatch?.(summary);
    });
    const tracked = batch.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
}

async function handleBatch(
  { DeleteMessageBatchCommand }: SqsSdk,
  messages: Message[],
  queueArn: string,
  region: string,
  options: PollQueueOptions,
): Promise<BatchSummary> {
  const records = messages.map((m) => toSqsRecord(m, queueArn, region));
  let response: unknown;
  try {
    response = await options.handler({ Records: records });
  } catch (err) {
    // A failed invocation returns every message to the queue after its visibility timeout.
    const batchError = `handler failed: ${(err as Error).message}`;
    options.logger.warn('batch failed', { batchError });
    return { received: records.length, deleted: 0, failed: records.length, batchError };
  }
  const verdict = interpretBatchResponse(response, new Set(records.map((r) => r.messageId)));
  if (!verdict.ok) {
    options.logger.warn('malformed batch response; the whole batch fails', {
      reason: verdict.reason,
    });
    return {
      received: records.length,
      deleted: 0,
      failed: records.length,
      batchError: verdict.reason,
    };
  }
  const done = records.filter((r) => !verdict.failedIds.has(r.messageId));
  let deleted = 0;
  for (let i = 0; i < done.length; i += Defaults.SQS_BATCH_SIZE) {
    const chunk = done.slice(i, i + Defaults.SQS_BATCH_SIZE);
    try {
      const out = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: chunk.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
        }),
      );
      deleted += out.Successful?.length ?? 0;
    } catch (err) {
      // Undeleted messages come back and are acknowledged as duplicates by the worker.
      options.logger.warn('delete failed', { error: (err as Error).message });
    }
  }
  return { received: records.length, deleted, failed: verdict.failedIds.size };
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
