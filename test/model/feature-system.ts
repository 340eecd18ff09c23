/**
 * The real side of the feature model: one executor in the emulator with two lanes, a schedule
 * group and a payload bucket, driven by the real TaskClient (two producers on different
 * `statusShards`), the real worker (a fresh one per delivery, as each Lambda invocation is a
 * process of its own), the real sweeper and the local schedule pump, all on one injected
 * clock that only the commands move. SQS visibility follows that clock (./virtual-queues.ts);
 * faults come through SDK middleware (./model-faults.ts).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { awsClientConfig, s3ClientConfig, sqsClientConfig } from '../../src/aws/clients.js';
import { TaskClient } from '../../src/client/task-client.js';
import { isTerminal, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import type { TaskRecord } from '../../src/core/record.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { provision } from '../../src/local/provision.js';
import { createSchedulePump, type SchedulePump } from '../../src/local/schedule-pump.js';
import { silentLogger } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { executorSettings } from '../../src/settings/executor.js';
import { TaskStore } from '../../src/store/task-store.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask, type TaskDefinition } from '../../src/tasks/task-definition.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { toSqsRecord } from '../../src/worker/sqs-poller.js';
import { REGION, schedulerPumpSqs, uniqueName } from '../helpers/aws.js';
import { Outage, RefusingPublisher, SchedulerFaults, WorkerDeath } from './model-faults.js';
import { VirtualQueues } from './virtual-queues.js';

/**
 * Explicit ids: t0…t2 are shared by the uniform enqueues (so retries of one id are common);
 * t3…t15 are taken in turn by the aimed ones (./feature-commands.ts), so that an aimed enqueue
 * has an id no enqueue has planned yet: enough of them that the first aimed enqueues of a
 * sequence (a held parent, a parking task) leave ids for the ones that meet them later (a
 * dependent, a key's next task after a purge).
 */
export const FEATURE_SLOTS = 16;
/** The shared ids: t0…t2. */
export const SHARED_SLOTS = 3;
/** Attempts of every model type. */
export const FEATURE_MAX_ATTEMPTS = 2;
const TIMEOUT_MS = 10_000;
const GRACE_MS = 1_000;
/** Longer than a lease (timeout + grace) and the queues' visibility timeout (30 s). */
export const LEASE_EXPIRY_MS = 31_000;
/** The debounce window of every debounced enqueue (in the queue, under the threshold). */
export const WINDOW_MS = 5_000;
/** A delayed enqueue's delay: past the 60 s threshold, so it takes a one-time schedule. */
export const DELAY_MS = 120_000;
/**
 * The deployment's status shards, of the workers, the sweeper and most producers; the
 * `narrow` producer has fewer (a producer deployed before the setting changed).
 */
export const WORKER_SHARDS = 2;
export const NARROW_SHARDS = 1;
/** Payloads padded past this go to the payload bucket. */
const CLAIM_THRESHOLD_BYTES = 64;

/** What a handler does with its payload. */
export type Fate = 'ok' | 'retry' | 'fail' | 'permanent';

export interface ModelPayload {
  readonly n: number;
  readonly fate: Fate;
  readonly pad?: string | undefined;
}

/** The model's task types: plain and parking in the default lane, one in the `bulk` lane. */
export type TypeName = 'plain' | 'park' | 'bulk';
export const LANE_OF: Readonly<Record<TypeName, string>> = {
  plain: 'default',
  park: 'default',
  bulk: 'bulk',
};

/** One handler start, as the handler saw it. */
export interface Start {
  readonly id: string;
  readonly n: number;
  readonly attempt: number;
  /** Position among every start of the run. */
  readonly order: number;
  /** Parents read when it started: id → status (absent: no record). */
  readonly parents: Readonly<Record<string, string>>;
  readonly onParentDead: 'cancel' | 'run';
}

/** What a delivery did. */
export interface Delivery {
  readonly received: string[];
  /** The worker died mid-batch (its messages and leases are left to expire). */
  readonly died: boolean;
  readonly writes: readonly string[];
}

export class FeatureSystem {
  readonly clock = { now: Date.now() };
  readonly starts: Start[] = [];
  readonly scheduler = new SchedulerFaults();
  readonly s3Outage = new Outage('ServiceUnavailable');
  readonly sendOutage = new Outage('SendFailed');
  readonly events = new RefusingPublisher();
  readonly reader: TaskStore;
  prefix = '';
  private workers = 0;

  private constructor(
    private readonly location: Awaited<ReturnType<typeof provisionAll>>,
    readonly queues: VirtualQueues,
    private readonly producers: Record<'wide' | 'narrow', TaskClient>,
    private readonly sweeper: { run(): Promise<unknown> },
    private readonly pump: SchedulePump,
    readonly types: Record<TypeName, TaskDefinition>,
  ) {
    this.reader = new TaskStore({
      tableName: location.tableName,
      dynamodb: new DynamoDBClient(awsClientConfig()),
      logger: silentLogger,
    });
  }

  static async create(): Promise<FeatureSystem> {
    const location = await provisionAll();
    const clock = { now: Date.now() };
    const now = () => clock.now;
    const plainSqs = new SQSClient(sqsClientConfig());
    const queues = new VirtualQueues(now, location.visibilitySeconds, plainSqs);
    let system: FeatureSystem | undefined;
    const handler = async (payload: ModelPayload, ctx: { taskId: string; attempt: number }) => {
      if (system === undefined) throw new Error('no system');
      await system.observeStart(ctx.taskId, payload.n, ctx.attempt);
      if (payload.fate === 'permanent') throw new PermanentError(`t${payload.n} is broken`);
      if (payload.fate === 'fail' || (payload.fate === 'retry' && ctx.attempt === 1))
        throw new Error(`t${payload.n} failed attempt ${ctx.attempt}`);
      return { n: payload.n };
    };
    const schema = z.object({
      n: z.number(),
      fate: z.enum(['ok', 'retry', 'fail', 'permanent']),
      pad: z.string().optional(),
    });
    const retry = { maxAttempts: FEATURE_MAX_ATTEMPTS, baseDelayMs: 0, maxDelayMs: 0 };
    const types: Record<TypeName, TaskDefinition> = {
      plain: defineTask('model.plain', { schema, retry, timeout: TIMEOUT_MS, handler }),
      park: defineTask('model.park', {
        schema,
        retry,
        timeout: TIMEOUT_MS,
        onDead: 'park',
        handler,
      }),
      bulk: defineTask('model.bulk', { schema, retry, timeout: TIMEOUT_MS, lane: 'bulk', handler }),
    };
    const shared = {
      tableName: location.tableName,
      queueUrl: location.queueUrl,
      queueArn: location.queueArn,
      lanes: location.lanes,
      payloadBucket: location.payloadBucket,
      payloadThresholdBytes: CLAIM_THRESHOLD_BYTES,
      scheduleGroup: location.scheduleGroup,
      schedulerRoleArn: location.schedulerRoleArn,
      scheduleDeadLetterArn: location.scheduleDeadLetterArn,
      logger: silentLogger,
      clock: now,
    };
    const scheduler = new SchedulerFaults();
    const s3Outage = new Outage('ServiceUnavailable');
    const sendOutage = new Outage('SendFailed');
    const producer = (statusShards: number) =>
      new TaskClient({
        ...shared,
        deadLetterQueueUrl: location.deadLetterQueueUrl,
        statusShards,
        dynamodb: new DynamoDBClient(awsClientConfig()),
        sqs: queues.attach(
          sendOutage.attach(
            new SQSClient(sqsClientConfig()),
            new Set(['SendMessageCommand', 'SendMessageBatchCommand']),
          ),
        ),
        s3: s3Outage.attach(s3Client()),
        scheduler: scheduler.attach(new SchedulerClient(awsClientConfig())),
      });
    const sweeper = createSweeper({
      ...shared,
      dynamodb: new DynamoDBClient(awsClientConfig()),
      sqs: queues.attach(new SQSClient(sqsClientConfig())),
      scheduler: new SchedulerClient(awsClientConfig()),
      metrics: noopMetrics,
      statusShards: WORKER_SHARDS,
      pendingAgeMs: 0,
    });
    const pump = createSchedulePump({
      scheduler: new SchedulerClient(awsClientConfig()),
      sqs: queues.attach(schedulerPumpSqs(location.schedulerSenderId)),
      groupName: location.scheduleGroup,
      clock: now,
    });
    system = new FeatureSystem(
      location,
      queues,
      { wide: producer(WORKER_SHARDS), narrow: producer(NARROW_SHARDS) },
      sweeper,
      pump,
      types,
    );
    Object.assign(system, { clock, scheduler, s3Outage, sendOutage });
    return system;
  }

  /** A new command sequence: fresh ids and keys, faults off. */
  reset(run: number): void {
    this.prefix = `r${run}${randomUUID().slice(0, 4)}`;
    this.scheduler.disarm();
    this.s3Outage.on = false;
    this.sendOutage.on = false;
    this.events.refusing = false;
    this.starts.length = 0;
  }

  id(slot: number): string {
    return `${this.prefix}-t${slot}`;
  }

  key(n: number): string {
    return `${this.prefix}-k${n}`;
  }

  producer(narrow: boolean): TaskClient {
    return narrow ? this.producers.narrow : this.producers.wide;
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return this.reader.get(id);
  }

  /** Receives up to `max` messages of `lane` and runs them in a new worker that may die. */
  async deliver(lane: string, max: number, dieAfterWrites: number | undefined): Promise<Delivery> {
    const queue = this.lane(lane);
    const receiver = this.queues.attach(new SQSClient(sqsClientConfig()));
    const out = await receiver.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const records = (out.Messages ?? []).map((m) => toSqsRecord(m, queue.queueArn, REGION));
    const received = records.map((r) => (JSON.parse(r.body) as { id?: string }).id ?? '?');
    if (records.length === 0) return { received, died: false, writes: [] };
    const death = new WorkerDeath(dieAfterWrites);
    this.workers += 1;
    const worker = createWorker(Object.values(this.types), {
      tableName: this.location.tableName,
      queueUrl: this.location.queueUrl,
      lanes: this.location.lanes,
      payloadBucket: this.location.payloadBucket,
      payloadThresholdBytes: CLAIM_THRESHOLD_BYTES,
      dynamodb: death.attach(new DynamoDBClient(awsClientConfig())),
      sqs: death.attach(this.queues.attach(new SQSClient(sqsClientConfig()))),
      s3: death.attach(this.s3Outage.attach(s3Client())),
      logger: silentLogger,
      metrics: noopMetrics,
      clock: () => this.clock.now,
      workerId: `mw-${this.workers}`,
      leaseGraceMs: GRACE_MS,
      schedulerSenderId: this.location.schedulerSenderId,
      events: { publisher: this.events },
      statusShards: WORKER_SHARDS,
    });
    const batch = worker.processBatch(records);
    const outcome = await Promise.race([batch, death.died.then(() => undefined)]);
    if (outcome === undefined) return { received, died: true, writes: death.writes };
    // The event source mapping deletes what the batch did not report failed.
    const failed = new Set(outcome.batchItemFailures.map((f) => f.itemIdentifier));
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length > 0) {
      await receiver.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.queueUrl,
          Entries: done.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
    return { received, died: false, writes: death.writes };
  }

  /** Moves the clock and lets go of the messages whose virtual visibility has passed. */
  async tick(ms: number): Promise<void> {
    this.clock.now += ms;
    await this.queues.advance();
  }

  sweep(): Promise<unknown> {
    return this.sweeper.run();
  }

  pumpTick(): Promise<unknown> {
    return this.pump.tick();
  }

  lanes(): string[] {
    return ['default', 'bulk'];
  }

  private lane(name: string): { queueUrl: string; queueArn: string } {
    const lane = this.location.lanes[name];
    if (lane === undefined || lane.queueArn === undefined) throw new Error(`no lane ${name}`);
    return { queueUrl: lane.queueUrl, queueArn: lane.queueArn };
  }

  private async observeStart(id: string, n: number, attempt: number): Promise<void> {
    const record = await this.get(id);
    const parents: Record<string, string> = {};
    for (const parent of record?.parents ?? []) {
      parents[parent] = (await this.get(parent))?.status ?? 'ABSENT';
    }
    this.starts.push({
      id,
      n,
      attempt,
      order: this.starts.length,
      parents,
      onParentDead: record?.onParentDead === 'run' ? 'run' : 'cancel',
    });
  }
}

function s3Client(): S3Client {
  return new S3Client({ ...s3ClientConfig(), region: REGION });
}

/** Whether a status is final (SUCCEEDED, DEAD, CANCELLED). */
export function finished(status: string | undefined): boolean {
  return status !== undefined && isTerminal(status as TaskStatus);
}

export { TaskStatus };

async function provisionAll() {
  const name = uniqueName('model-features');
  const settings = executorSettings({
    name,
    workerTimeoutSeconds: 5,
    maxAttempts: FEATURE_MAX_ATTEMPTS,
    maxReceiveCount: 1000,
    lanes: { bulk: {} },
  });
  const clients = {
    dynamodb: new DynamoDBClient(awsClientConfig()),
    sqs: new SQSClient(sqsClientConfig()),
    scheduler: new SchedulerClient(awsClientConfig()),
  };
  const provisioned = await provision(settings, clients);
  const { scheduler, lanes } = provisioned;
  if (scheduler === undefined || lanes === undefined) throw new Error('no scheduler or lanes');
  const payloadBucket = await provisionPayloadBucket(s3Client(), `${name}-payloads`, 45);
  const defaultLane = lanes.default;
  if (defaultLane === undefined) throw new Error('no default lane');
  return {
    tableName: provisioned.tableName,
    queueUrl: provisioned.queueUrl,
    queueArn: provisioned.queueArn,
    deadLetterQueueUrl: provisioned.deadLetterQueueUrl,
    lanes,
    payloadBucket,
    visibilitySeconds: settings.visibilityTimeoutSeconds,
    scheduleGroup: scheduler.scheduleGroup,
    schedulerRoleArn: scheduler.schedulerRoleArn,
    scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
    schedulerSenderId: scheduler.schedulerSenderId,
  };
}

export type { TaskRecord };
export { finished as isFinished };
export const RUNNING = TaskStatus.RUNNING;
