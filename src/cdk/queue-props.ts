/**
 * Turns a queue's CreateQueue attributes, from the shared settings, into CDK QueueProps.
 * One mapping, so the CDK queue and the emulator's queue are built from the same values.
 */
import { Duration } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  type DeduplicationScope,
  type FifoThroughputLimit,
  Queue,
  QueueEncryption,
  type QueueProps,
} from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ExecutorSettings, QueueSettings } from '../settings/executor.js';
import { DEFAULT_LANE } from '../settings/lanes.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Each attribute the settings may use, and how it lands in QueueProps. */
const ATTRIBUTES: Readonly<Record<string, (value: string, props: Mutable<QueueProps>) => void>> = {
  FifoQueue: (v, p) => {
    p.fifo = v === 'true';
  },
  ContentBasedDeduplication: (v, p) => {
    p.contentBasedDeduplication = v === 'true';
  },
  DeduplicationScope: (v, p) => {
    p.deduplicationScope = v as DeduplicationScope;
  },
  FifoThroughputLimit: (v, p) => {
    p.fifoThroughputLimit = v as FifoThroughputLimit;
  },
  VisibilityTimeout: (v, p) => {
    p.visibilityTimeout = Duration.seconds(Number(v));
  },
  MessageRetentionPeriod: (v, p) => {
    p.retentionPeriod = Duration.seconds(Number(v));
  },
  SqsManagedSseEnabled: (v, p) => {
    p.encryption = v === 'true' ? QueueEncryption.SQS_MANAGED : QueueEncryption.UNENCRYPTED;
  },
};

/**
 * QueueProps for one queue of the settings, with `enforceSSL` on. With `encryptionKey`, the
 * queue is encrypted with that customer-managed key instead of SQS-managed SSE.
 *
 * @throws Error for an attribute this mapping does not know, so that a new setting cannot
 * silently stay out of the CDK stack.
 */
export function queueProps(queue: QueueSettings, encryptionKey?: IKey): QueueProps {
  const props: Mutable<QueueProps> = { queueName: queue.name, enforceSSL: true };
  for (const [key, value] of Object.entries(queue.attributes)) {
    const apply = ATTRIBUTES[key];
    if (apply === undefined) {
      throw new Error(`queueProps: no mapping for the queue attribute ${key} of ${queue.name}`);
    }
    apply(value, props);
  }
  if (encryptionKey) {
    props.encryption = QueueEncryption.KMS;
    props.encryptionMasterKey = encryptionKey;
  }
  return props;
}

/** One lane's queues: its FIFO work queue and that queue's FIFO DLQ. */
export interface LaneQueuePair {
  readonly workQueue: Queue;
  readonly deadLetterQueue: Queue;
}

/** An executor's three queues: the FIFO work queue, its DLQ, and the schedules' DLQ. */
export interface ExecutorQueues {
  readonly workQueue: Queue;
  readonly deadLetterQueue: Queue;
  readonly scheduleDeadLetterQueue: Queue;
  /**
   * Every lane's queues, keyed by lane, the default lane (the two queues above) first;
   * just the default lane for an executor without lanes.
   */
  readonly lanes: ReadonlyMap<string, LaneQueuePair>;
}

/** `bulk` → `Bulk`: a lane's part of its constructs' ids. */
export function laneIdPart(lane: string): string {
  return `${lane.charAt(0).toUpperCase()}${lane.slice(1)}`;
}

/** Creates the executor's queues from the shared settings, the work queue redriving to its DLQ. */
export function createExecutorQueues(
  scope: Construct,
  settings: ExecutorSettings,
  encryptionKey: IKey | undefined,
): ExecutorQueues {
  const deadLetterQueue = new Queue(
    scope,
    'DeadLetterQueue',
    queueProps(settings.deadLetterQueue, encryptionKey),
  );
  const workQueue = new Queue(scope, 'WorkQueue', {
    ...queueProps(settings.workQueue, encryptionKey),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
  });
  const scheduleDeadLetterQueue = new Queue(
    scope,
    'ScheduleDeadLetterQueue',
    queueProps(settings.scheduler.deadLetterQueue, encryptionKey),
  );
  const lanes = new Map<string, LaneQueuePair>([[DEFAULT_LANE, { workQueue, deadLetterQueue }]]);
  for (const [lane, laneSettings] of Object.entries(settings.lanes)) {
    if (lane === DEFAULT_LANE) continue;
    // New ids for new lanes only: the default lane keeps the ids (and so the queues) of an
    // executor created before it had lanes.
    const id = `${laneIdPart(lane)}Lane`;
    const laneDlq = new Queue(
      scope,
      `${id}DeadLetterQueue`,
      queueProps(laneSettings.deadLetterQueue, encryptionKey),
    );
    const laneWork = new Queue(scope, `${id}WorkQueue`, {
      ...queueProps(laneSettings.workQueue, encryptionKey),
      deadLetterQueue: { queue: laneDlq, maxReceiveCount: settings.maxReceiveCount },
    });
    lanes.set(lane, { workQueue: laneWork, deadLetterQueue: laneDlq });
  }
  return { workQueue, deadLetterQueue, scheduleDeadLetterQueue, lanes };
}
