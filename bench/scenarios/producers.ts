/**
 * The producers every scenario uses: Tasklane's TaskClient, and the raw SDK sends the
 * baselines make (Powertools has no producer side, so its producer is the raw one too).
 * Each returns how long its sends took and what they cost in requests.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../src/aws/clients.js';
import { type BatchEntry, TaskClient, type TaskDefinition } from '../../src/index.js';
import { type BaselineMessage, baselineEntry } from '../baseline/message.js';
import { INDEX_KEY_ATTRIBUTES } from '../config.js';
import { failOnceTask, noopTask } from '../fixtures/tasks.js';
import { countingLogger } from '../lib/counting-logger.js';
import { RequestCounter, type Tally } from '../lib/request-counter.js';

/** What a producer run took. */
export interface ProducerRun {
  readonly ms: number;
  readonly tally: Tally;
  /** Tasks enqueued (Tasklane: created and sent). */
  readonly sent: number;
  /** Bytes of log lines the producer wrote. */
  readonly logBytes: number;
}

/** Where to send. */
export interface Target {
  readonly tableName: string;
  readonly queueUrl: string;
}

/** Which task every message of a run carries. */
export type TaskKind = 'noop' | 'failOnce';

function counted(): { counter: RequestCounter; sqs: SQSClient; dynamodb: DynamoDBClient } {
  const counter = new RequestCounter(INDEX_KEY_ATTRIBUTES);
  // The clients Tasklane would create itself, counted.
  const sqs = new SQSClient(awsClientConfig());
  const dynamodb = new DynamoDBClient(awsClientConfig());
  counter.attach(sqs);
  counter.attach(dynamodb);
  return { counter, sqs, dynamodb };
}

function definition(kind: TaskKind): TaskDefinition {
  return kind === 'noop' ? noopTask : failOnceTask;
}

/** Tasklane's `enqueueBatch` of `n` tasks. */
export async function tasklaneEnqueueBatch(
  target: Target,
  n: number,
  kind: TaskKind = 'noop',
): Promise<ProducerRun> {
  const { counter, sqs, dynamodb } = counted();
  const logger = countingLogger();
  const client = new TaskClient({
    tableName: target.tableName,
    queueUrl: target.queueUrl,
    sqs,
    dynamodb,
    logger,
  });
  const task = definition(kind);
  const entries: BatchEntry[] = Array.from({ length: n }, (_, i) => ({ task, payload: { i } }));
  try {
    const start = performance.now();
    const results = await client.enqueueBatch(entries);
    const ms = performance.now() - start;
    const sent = results.filter((r) => r.ok && r.created && r.sent).length;
    return { ms, tally: counter.snapshot(), sent, logBytes: logger.bytes };
  } finally {
    sqs.destroy();
    dynamodb.destroy();
  }
}

/** Tasklane's single `enqueue`, `n` times in sequence. */
export async function tasklaneEnqueueEach(target: Target, n: number): Promise<ProducerRun> {
  const { counter, sqs, dynamodb } = counted();
  const logger = countingLogger();
  const client = new TaskClient({
    tableName: target.tableName,
    queueUrl: target.queueUrl,
    sqs,
    dynamodb,
    logger,
  });
  try {
    let sent = 0;
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const result = await client.enqueue(noopTask, { i });
      if (result.created && result.sent) sent += 1;
    }
    return {
      ms: performance.now() - start,
      tally: counter.snapshot(),
      sent,
      logBytes: logger.bytes,
    };
  } finally {
    sqs.destroy();
    dynamodb.destroy();
  }
}

function baselineMessages(n: number, kind: TaskKind, prefix: string): BaselineMessage[] {
  const type = kind === 'noop' ? 'bench.noop' : 'bench.failOnce';
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, type, payload: { i } }));
}

/** The raw baseline producer: SendMessageBatch in batches of `batchSize`, in order. */
export async function rawSendBatch(
  queueUrl: string,
  n: number,
  options: { batchSize: number; kind?: TaskKind; prefix?: string },
): Promise<ProducerRun> {
  const counter = new RequestCounter();
  const sqs = new SQSClient({});
  counter.attach(sqs);
  const messages = baselineMessages(n, options.kind ?? 'noop', options.prefix ?? 'task');
  try {
    let sent = 0;
    const start = performance.now();
    for (let i = 0; i < n; i += options.batchSize) {
      const chunk = messages.slice(i, i + options.batchSize);
      const out = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map(baselineEntry) }),
      );
      sent += out.Successful?.length ?? 0;
    }
    return { ms: performance.now() - start, tally: counter.snapshot(), sent, logBytes: 0 };
  } finally {
    sqs.destroy();
  }
}

/** The raw baseline of a single enqueue: SendMessage, `n` times in sequence. */
export async function rawSendEach(queueUrl: string, n: number): Promise<ProducerRun> {
  const counter = new RequestCounter();
  const sqs = new SQSClient({});
  counter.attach(sqs);
  try {
    let sent = 0;
    const start = performance.now();
    for (const message of baselineMessages(n, 'noop', 'single')) {
      const { Id: _, ...entry } = baselineEntry(message, 0);
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, ...entry }));
      sent += 1;
    }
    return { ms: performance.now() - start, tally: counter.snapshot(), sent, logBytes: 0 };
  } finally {
    sqs.destroy();
  }
}
