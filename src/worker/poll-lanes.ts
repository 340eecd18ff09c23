/**
 * The worker's standalone entry point, `Worker.poll` (ECS, a laptop, tests): the queues it
 * polls (the one given, or each lane's), the gate that stops a paused lane's loop receiving,
 * and one poll loop per queue. The poll loop and the gate are loaded on the first poll: a
 * Lambda worker never polls.
 */

import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneQueues } from '../settings/lanes.js';
import type { TaskStore } from '../store/task-store.js';
import type { BatchSummary } from './sqs-poller.js';

/** Options of {@link Worker.poll}. */
export interface PollOptions {
  /** Stops polling; batches in progress finish first (graceful shutdown). */
  readonly signal: AbortSignal;
  /** @default the queues of `lanes` */
  readonly queueUrl?: string;
  /**
   * The lanes to poll (docs/lanes.md), each by a loop of its own with `concurrency` batches
   * at once, so that a busy lane does not hold up another. Ignored with `queueUrl`.
   * @throws UnknownLaneError (from poll) for a lane the worker's configuration does not name
   * @default every lane of the worker's configuration (`lanes`, or `TASKLANE_LANE_QUEUE_URLS`);
   *   just the work queue without lanes
   */
  readonly lanes?: readonly string[];
  /** @default 10 */
  readonly batchSize?: number;
  /** @default 20 */
  readonly waitTimeSeconds?: number;
  /**
   * Batches processed at once. A batch's lease takeovers still run alone: while one runs,
   * the worker's other batches wait (ADR 0007). @default 1
   */
  readonly concurrency?: number;
  readonly onBatch?: (summary: BatchSummary) => void;
  /**
   * How often the poller reads its lanes' control items, to stop receiving while an operator
   * has paused a lane (`tasklane pause --lane`, `TaskClient.pauseLane`): one eventually
   * consistent read per lane per period, 360 an hour per lane at the default. `false` never
   * reads them: lane pauses are then not honoured by this poller.
   * @default 10 000 (DEFAULT_LANE_CONTROL_PERIOD_MS)
   */
  readonly laneControlPeriodMs?: number | false;
}

/** What a poll needs from its worker. */
export interface PollingWorker {
  /** The worker's lanes' queues. */
  readonly lanes: LaneQueues;
  /** The worker's SQS client, made on first use. */
  readonly sqs: () => Promise<SQSClient>;
  /** The worker's store, whose table holds the lanes' control items. */
  readonly store: TaskStore;
  readonly logger: TaskLogger;
  /** Processes one batch, as the Lambda handler does. */
  readonly run: (records: readonly SQSRecord[]) => Promise<SQSBatchResponse>;
}

/** Long-polls the worker's queues until `poll.signal` aborts. */
export async function pollLanes(poll: PollOptions, worker: PollingWorker): Promise<void> {
  const { lanes, store, logger } = worker;
  const polled =
    poll.queueUrl !== undefined
      ? [{ lane: laneOfQueue(lanes, poll.queueUrl), queueUrl: poll.queueUrl }]
      : (poll.lanes ?? lanes.names()).map((lane) => ({
          lane,
          queueUrl: lanes.queueUrl(lane, 'poll'),
        }));
  // The poll loop is a module of its own, loaded here: a Lambda worker never polls.
  const [{ pollQueue, readLanePauses, watchLanePauses }, client] = await Promise.all([
    import('./poller-features.js'),
    worker.sqs(),
  ]);
  const doc = store.part((ctx) => ctx.doc);
  const gated = polled.flatMap(({ lane }) => (lane === undefined ? [] : [lane]));
  const gate =
    poll.laneControlPeriodMs === false || gated.length === 0
      ? undefined
      : watchLanePauses({
          read: (names) => readLanePauses(doc, store.tableName, names),
          lanes: gated,
          signal: poll.signal,
          logger,
          ...(poll.laneControlPeriodMs === undefined ? {} : { periodMs: poll.laneControlPeriodMs }),
        });
  await gate?.ready;
  await Promise.all([
    ...polled.map(({ lane, queueUrl }) =>
      pollQueue({
        sqs: client,
        queueUrl,
        handler: (event) => worker.run(event.Records),
        signal: poll.signal,
        logger,
        ...(gate === undefined || lane === undefined ? {} : { paused: () => gate.paused(lane) }),
        ...(poll.batchSize === undefined ? {} : { batchSize: poll.batchSize }),
        ...(poll.waitTimeSeconds === undefined ? {} : { waitTimeSeconds: poll.waitTimeSeconds }),
        ...(poll.concurrency === undefined ? {} : { concurrency: poll.concurrency }),
        ...(poll.onBatch === undefined ? {} : { onBatch: poll.onBatch }),
      }),
    ),
    gate?.stopped,
  ]);
}

/** The lane whose work queue is `queueUrl`, if the worker's configuration names it. */
function laneOfQueue(lanes: LaneQueues, queueUrl: string): string | undefined {
  return lanes.entries().find(([, location]) => location.queueUrl === queueUrl)?.[0];
}
