/**
 * The dead-letter queues of every lane (docs/lanes.md): `dlq peek` and the DLQ statistics
 * read each lane's DLQ, the default lane's first, and say which lane a message is in.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_LANE, type LaneQueues } from '../settings/lanes.js';
import { EnvVars } from '../settings/location.js';
import {
  type DeadLetter,
  type DeadLetterStats,
  deadLetterStats,
  peekDeadLetters,
  requireDeadLetterQueue,
} from './dead-letters.js';
import { onDeadLetterQueue } from './guarded-calls.js';

/** A dead-letter message and the lane whose DLQ holds it. */
export interface LaneDeadLetter extends DeadLetter {
  /** The lane whose DLQ holds the message; `default` without lanes. */
  readonly lane: string;
}

/** The DLQ statistics over every lane, and per lane when the executor has lanes. */
export interface LaneDeadLetterStats extends DeadLetterStats {
  /** Each lane's own figures; undefined without lanes. */
  readonly byLane?: Readonly<Record<string, DeadLetterStats>>;
}

/**
 * The DLQs to read: the default lane's (`deadLetterQueueUrl`, else its lane's) and every
 * other lane's that is configured.
 *
 * @throws ConfigurationError when none is configured.
 */
export function deadLetterQueues(
  deadLetterQueueUrl: string | undefined,
  lanes: LaneQueues,
): { lane: string; url: string }[] {
  const queues: { lane: string; url: string }[] = [];
  for (const [lane, location] of lanes.entries()) {
    const url =
      lane === DEFAULT_LANE
        ? (deadLetterQueueUrl ?? location.deadLetterQueueUrl)
        : location.deadLetterQueueUrl;
    if (url !== undefined && url !== '') queues.push({ lane, url });
  }
  if (queues.length === 0) requireDeadLetterQueue(undefined, EnvVars.DLQ_URL);
  return queues;
}

/** Peeks up to `limit` messages over the lanes' DLQs, lane by lane. */
export async function peekLaneDeadLetters(
  sqs: SQSClient,
  queues: readonly { lane: string; url: string }[],
  options: { limit?: number },
): Promise<LaneDeadLetter[]> {
  const limit = options.limit ?? 10;
  const found: LaneDeadLetter[] = [];
  for (const { lane, url } of queues) {
    const left = limit - found.length;
    // A limit out of range is refused by the first peek, whatever is left.
    if (left <= 0 && found.length > 0) break;
    const messages = await onDeadLetterQueue(sqs, url, () =>
      peekDeadLetters(sqs, url, { limit: found.length === 0 ? limit : left }),
    );
    found.push(...messages.map((m) => ({ ...m, lane })));
  }
  return found;
}

/** The lanes' DLQ statistics added up, with each lane's when there are several. */
export async function laneDeadLetterStats(
  sqs: SQSClient,
  queues: readonly { lane: string; url: string }[],
  options: { sample?: number },
): Promise<LaneDeadLetterStats> {
  const stats = await Promise.all(
    queues.map(({ url }) => onDeadLetterQueue(sqs, url, () => deadLetterStats(sqs, url, options))),
  );
  const times = stats.flatMap((s) => (s.oldestSentAt === undefined ? [] : [s.oldestSentAt]));
  const total: DeadLetterStats = {
    visible: stats.reduce((sum, s) => sum + s.visible, 0),
    inFlight: stats.reduce((sum, s) => sum + s.inFlight, 0),
    oldestSentAt: times.length === 0 ? undefined : Math.min(...times),
  };
  if (!queues.some((q) => q.lane !== DEFAULT_LANE)) return total;
  return {
    ...total,
    byLane: Object.fromEntries(queues.map((q, i) => [q.lane, stats[i] as DeadLetterStats])),
  };
}

/**
 * `TaskClient.deadLetters`: the dead-letter queues' messages, over every lane's DLQ. The
 * DEAD tasks themselves are the client's (`redrive`, `purge`, `listByStatus`).
 */
export interface DeadLetterClient {
  /**
   * Looks at up to `limit` dead-letter messages (10 by default) without deleting them, over
   * every lane's DLQ; each message says its lane. Each peek counts as a receive, so a
   * message peeked often enough moves on like any other (docs/operations.md).
   *
   * @throws ConfigurationError when no dead-letter queue URL is configured.
   */
  peek(options?: { limit?: number }): Promise<LaneDeadLetter[]>;
  /**
   * The DLQ's depth and its oldest message's first send time (from a peek of up to
   * `sample` messages, 100 by default); with lanes, over every lane's DLQ and per lane.
   *
   * @throws ConfigurationError when no dead-letter queue URL is configured.
   */
  stats(options?: { sample?: number }): Promise<LaneDeadLetterStats>;
}

/** The {@link DeadLetterClient} over these lanes; the queues are resolved at each call. */
export function deadLetterClient(
  sqs: SQSClient,
  deadLetterQueueUrl: string | undefined,
  lanes: LaneQueues,
): DeadLetterClient {
  return {
    // Async, so that a missing queue URL rejects rather than throws.
    peek: async (options = {}) =>
      peekLaneDeadLetters(sqs, deadLetterQueues(deadLetterQueueUrl, lanes), options),
    stats: async (options = {}) =>
      laneDeadLetterStats(sqs, deadLetterQueues(deadLetterQueueUrl, lanes), options),
  };
}
