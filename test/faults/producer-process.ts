/**
 * A producer child process for the fault suite (scenario (v)): `node producer-process.mjs`
 * with its plan as JSON in FAULT_PRODUCER_CONFIG and the emulator in AWS_ENDPOINT_URL. It
 * enqueues the plan's tasks in order, then for each task sends its signal and pauses and
 * resumes it as planned, skipping what earlier processes reported done, and exits 0 when all
 * is done. Every action is reported on stdout when tried and when done; the suite may SIGKILL
 * it at any moment, and the next process tries the action again, idempotently: the enqueue by
 * the task's id, the signal by its `signalId` (docs/durable-tasks.md, signals).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../src/aws/clients.js';
import { TaskClient } from '../../src/client/task-client.js';
import { isTerminal, TaskStatus } from '../../src/core/constants.js';
import { TaskNotFoundError, TransitionRejectedError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/observability/logger.js';
import { faultTask } from './lib/fault-tasks.js';
import { EffectsLedger } from './lib/ledger.js';
import {
  actionKey,
  type ProducerAction,
  type ProducerConfig,
  type ProducerTask,
  producerLine,
} from './lib/producer.js';
import { sleep } from './lib/random.js';

const config = JSON.parse(process.env.FAULT_PRODUCER_CONFIG ?? '{}') as ProducerConfig;
const region = 'us-east-1';
const POLL_MS = 400;

const client = new TaskClient({
  tableName: config.tableName,
  queueUrl: config.queueUrl,
  deadLetterQueueUrl: config.deadLetterQueueUrl,
  dynamodb: new DynamoDBClient({ ...awsClientConfig(), region }),
  sqs: new SQSClient({ ...awsClientConfig(), region }),
  logger: silentLogger,
});
const task = faultTask({
  ledger: new EffectsLedger(config.ledgerTable, new DynamoDBClient({ region })),
  calls: () => undefined,
  workerId: 'producer',
  profile: config.profile,
});

const warn = (message: string, attributes: Record<string, unknown>) =>
  process.stderr.write(
    `${JSON.stringify({ level: 'warn', worker: 'producer', at: new Date().toISOString(), message, ...attributes })}\n`,
  );

/** Runs an action unless an earlier process did it; retries transient errors. */
async function act(id: string, action: ProducerAction, run: () => Promise<string>) {
  const before = config.done[actionKey(id, action)];
  if (before !== undefined) return before;
  for (let attempt = 1; ; attempt++) {
    process.stdout.write(producerLine('try', { id, action, at: Date.now() }));
    try {
      const outcome = await run();
      const event = { id, action, at: Date.now(), outcome };
      process.stdout.write(producerLine('done', event));
      return event;
    } catch (err) {
      if (err instanceof TransitionRejectedError || err instanceof TaskNotFoundError) {
        const event = {
          id,
          action,
          at: Date.now(),
          outcome: `rejected:${err instanceof TransitionRejectedError ? err.current?.status : 'not found'}`,
        };
        process.stdout.write(producerLine('done', event));
        return event;
      }
      warn('producer action failed', { id, action, attempt, error: String(err) });
      if (attempt >= 20) throw err;
      await sleep(200 * attempt);
    }
  }
}

/**
 * Polls the task until it is in one of `statuses` (true) or finished (false).
 */
async function until(id: string, ...statuses: TaskStatus[]): Promise<boolean> {
  for (;;) {
    const record = await client.get(id).catch(() => undefined);
    if (record !== undefined && statuses.includes(record.status)) return true;
    if (record !== undefined && isTerminal(record.status)) return false;
    await sleep(POLL_MS);
  }
}

async function signal(t: ProducerTask): Promise<void> {
  const planned = t.signal;
  if (planned === undefined) return;
  if (
    planned.when === 'after' &&
    config.done[actionKey(t.id, 'signal')] === undefined &&
    !(await until(t.id, TaskStatus.SUSPENDED))
  ) {
    warn('task finished before its signal', { id: t.id });
    return;
  }
  await act(t.id, 'signal', async () => {
    const sent = await client.signal(t.id, 'go', planned.signalId, {
      signalId: planned.signalId,
    });
    return sent.duplicate ? 'duplicate' : sent.woke ? 'stored, woke' : 'stored';
  });
}

const STATE_OF = {
  queued: undefined,
  suspended: TaskStatus.SUSPENDED,
  running: TaskStatus.RUNNING,
} as const;

async function pauseAndResume(t: ProducerTask): Promise<void> {
  const planned = t.pause;
  if (planned === undefined) return;
  const state = STATE_OF[planned.when];
  // PAUSED too: a pause an earlier process wrote and was killed before it reported.
  if (
    state !== undefined &&
    config.done[actionKey(t.id, 'pause')] === undefined &&
    !(await until(t.id, state, TaskStatus.PAUSED))
  ) {
    await act(t.id, 'pause', async () => 'rejected:finished before its pause');
    return;
  }
  const paused = await act(t.id, 'pause', async () => {
    const record = await client.pause(t.id, 'fault scenario (v)');
    return record.pauseRequested === true ? `requested:${record.status}` : record.status;
  });
  if (paused.outcome?.startsWith('rejected') === true) return;
  await sleep(Math.max(0, paused.at + planned.holdMs - Date.now()));
  await act(t.id, 'resume', async () => (await client.resume(t.id)).status);
}

async function main(): Promise<void> {
  const chains: Promise<void>[] = [];
  for (const t of config.tasks) {
    await act(t.id, 'enqueue', async () => {
      const r = await client.enqueue(task, t.payload, {
        id: t.id,
        ...(t.orderingKey === undefined ? {} : { orderingKey: t.orderingKey }),
      });
      return r.created ? 'created' : 'existed';
    });
    chains.push(Promise.all([signal(t), pauseAndResume(t)]).then(() => undefined));
  }
  await Promise.all(chains);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    warn('producer failed', { error: String(err) });
    process.exit(2);
  },
);
