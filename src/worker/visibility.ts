import type { SQSClient } from '@aws-sdk/client-sqs';
import { loadSqs } from '../aws/sdk.js';
import { Defaults } from '../core/constants.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneQueues } from '../settings/lanes.js';

/** A message whose visibility should change, and to how many seconds from now. */
export interface VisibilityChange {
  readonly receiptHandle: string;
  readonly eventSourceARN: string;
  readonly seconds: number;
}

/** How long an early hand-back waits for others to share its request. */
const EARLY_BATCH_MS = 20;

/** Clamps a delay in ms to a valid SQS visibility timeout in whole seconds. */
export function visibilitySeconds(delayMs: number): number {
  const seconds = Math.ceil(Math.max(0, delayMs) / 1000);
  return Math.min(seconds, Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS);
}

/**
 * Changes message visibility for the worker. A Lambda event carries the queue's ARN, not
 * its URL; the URL is looked up once per ARN (or taken from configuration) and cached.
 */
export class VisibilityController {
  private readonly urls = new Map<string, Promise<string>>();
  /** Changes handed back early, waiting for their batch of 10 or their short timer. */
  private early: VisibilityChange[] = [];
  private earlyTimer: NodeJS.Timeout | undefined;
  /** The early batches being sent: a batch's end waits for them. */
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly logger: TaskLogger,
    queueUrl?: string,
    queueArn?: string,
    lanes?: LaneQueues,
  ) {
    if (queueUrl !== undefined && queueArn !== undefined) {
      this.urls.set(queueArn, Promise.resolve(queueUrl));
    }
    // The lanes' ARNs and URLs, when configured: their messages need no lookup either.
    for (const [, lane] of lanes?.entries() ?? []) {
      if (lane.queueArn !== undefined && !this.urls.has(lane.queueArn)) {
        this.urls.set(lane.queueArn, Promise.resolve(lane.queueUrl));
      }
    }
  }

  /** The queue URL for an SQS ARN (`arn:aws:sqs:region:account:name`). */
  queueUrl(arn: string): Promise<string> {
    let url = this.urls.get(arn);
    if (url === undefined) {
      const [, , , , account, name] = arn.split(':');
      url = loadSqs()
        .then(({ GetQueueUrlCommand }) =>
          this.sqs.send(
            new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }),
          ),
        )
        .then((out) => out.QueueUrl ?? '');
      url.catch(() => this.urls.delete(arn));
      this.urls.set(arn, url);
    }
    return url;
  }

  /** Changes one message's visibility now (used by heartbeats). */
  async extend(change: VisibilityChange): Promise<void> {
    const { ChangeMessageVisibilityCommand } = await loadSqs();
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: await this.queueUrl(change.eventSourceARN),
        ReceiptHandle: change.receiptHandle,
        VisibilityTimeout: change.seconds,
      }),
    );
  }

  /**
   * Hands a message back now, before its batch ends: batched with the other early changes of
   * the next few milliseconds (a batch's deferrals are decided together), by 10, best effort
   * as {@link applyAll}. {@link applyAll} and {@link settle} wait for them.
   */
  handBack(change: VisibilityChange): void {
    this.early.push(change);
    if (this.early.length >= Defaults.SQS_BATCH_SIZE) {
      this.flushEarly();
      return;
    }
    this.earlyTimer ??= setTimeout(() => this.flushEarly(), EARLY_BATCH_MS);
  }

  /** Sends the early changes now and waits until every early change sent has been answered. */
  async settle(): Promise<void> {
    this.flushEarly();
    await Promise.all([...this.sending]);
  }

  private flushEarly(): void {
    clearTimeout(this.earlyTimer);
    this.earlyTimer = undefined;
    if (this.early.length === 0) return;
    const changes = this.early;
    this.early = [];
    const sent = this.apply(changes).finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  /**
   * Applies changes in batches of 10 per queue, after the early ones handed back before. Best effort: a failure is logged, and the
   * message simply reappears after the queue's default visibility timeout instead.
   */
  async applyAll(changes: readonly VisibilityChange[]): Promise<void> {
    await this.settle();
    await this.apply(changes);
  }

  private async apply(changes: readonly VisibilityChange[]): Promise<void> {
    const byArn = new Map<string, VisibilityChange[]>();
    for (const change of changes) {
      const list = byArn.get(change.eventSourceARN) ?? [];
      list.push(change);
      byArn.set(change.eventSourceARN, list);
    }
    for (const [arn, list] of byArn) {
      try {
        const { ChangeMessageVisibilityBatchCommand } = await loadSqs();
        const queueUrl = await this.queueUrl(arn);
        for (let i = 0; i < list.length; i += Defaults.SQS_BATCH_SIZE) {
          const chunk = list.slice(i, i + Defaults.SQS_BATCH_SIZE);
          const out = await this.sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((c, n) => ({
                Id: String(n),
                ReceiptHandle: c.receiptHandle,
                VisibilityTimeout: c.seconds,
              })),
            }),
          );
          for (const failure of out.Failed ?? []) {
            this.logger.warn('visibility change failed', {
              queueUrl,
              code: failure.Code,
              message: failure.Message,
            });
          }
        }
      } catch (err) {
        this.logger.warn('visibility change failed', { arn, error: (err as Error).message });
      }
    }
  }
}
