/**
 * Whether a retry leaves its task out of the status index
 * (docs/adr/0068-a-retry-stays-off-the-index.md). A retrying task's message is in the worker's
 * hand: the retry hides it for the delay, and it comes back when the delay ends, as a running
 * task's message does when its lease ends. The index entry only served the sweeper's overdue
 * pass, which sends a QUEUED task again when its message may have outlived the queue's
 * retention (docs/adr/0010-retention-and-overdue-resend.md). So a retry stays off the index
 * only when the message is sure to outlive the delay by {@link OFF_INDEX_MARGIN_MS}: SQS said
 * when it was first sent, and the queue's retention is known, given (`queueRetentionMs`) or
 * read from the queue once per worker.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { loadSqs } from '../aws/sdk.js';
import { describeError } from '../core/errors.js';
import type { TaskLogger } from '../observability/logger.js';

/**
 * How long a retrying task's message must still live after its delay ends. A day covers a
 * backlog in front of the message and an outage of the workers that ends within it; a lane
 * paused for longer leaves the task to the sweeper's dead-letter pass and its opt-in scan.
 */
export const OFF_INDEX_MARGIN_MS = 24 * 60 * 60 * 1000;

/**
 * True when a retry due `delayMs` after `now` may leave its task out of the index: the
 * message, first sent at `sentAt`, lives until `sentAt + retentionMs`, at least
 * {@link OFF_INDEX_MARGIN_MS} past the delay's end. An unknown send time or retention keeps
 * it indexed.
 */
export function retryOffIndex(
  sentAt: number | undefined,
  retentionMs: number | undefined,
  now: number,
  delayMs: number,
): boolean {
  if (sentAt === undefined || retentionMs === undefined) return false;
  return sentAt + retentionMs >= now + delayMs + OFF_INDEX_MARGIN_MS;
}

/**
 * The message retention of the queues a worker's messages come from, by queue ARN: the
 * given one, or the queue's `MessageRetentionPeriod`, read on the first retry from that
 * queue and kept for the worker's life. A read that fails (an outage, a missing grant) gives
 * undefined, so the retry is indexed as before; it is read again at the next retry.
 */
export class QueueRetentions {
  private readonly byArn = new Map<string, Promise<number | undefined>>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: (arn: string) => Promise<string>,
    private readonly logger: TaskLogger,
    private readonly given?: number | undefined,
  ) {}

  /** The retention of the queue `arn` names, in ms, or undefined when it cannot be known. */
  of(arn: string | undefined): Promise<number | undefined> {
    if (this.given !== undefined) return Promise.resolve(this.given);
    if (arn === undefined || arn === '') return Promise.resolve(undefined);
    let retention = this.byArn.get(arn);
    if (retention === undefined) {
      retention = this.read(arn);
      this.byArn.set(arn, retention);
    }
    return retention;
  }

  private async read(arn: string): Promise<number | undefined> {
    try {
      const [url, { GetQueueAttributesCommand }] = await Promise.all([
        this.queueUrl(arn),
        loadSqs(),
      ]);
      const out = await this.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['MessageRetentionPeriod'],
        }),
      );
      const seconds = Number(out.Attributes?.MessageRetentionPeriod);
      if (!Number.isInteger(seconds) || seconds <= 0) throw new Error(`no retention for ${arn}`);
      return seconds * 1000;
    } catch (err) {
      this.byArn.delete(arn);
      this.logger.warn('could not read the queue retention; the retry stays in the status index', {
        queueArn: arn,
        error: describeError(err),
      });
      return undefined;
    }
  }
}
