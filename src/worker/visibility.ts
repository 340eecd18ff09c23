import type { SQSClient } from '@aws-sdk/client-sqs';
import { loadSqs } from '../aws/sdk.js';
import { Defaults } from '../core/constants.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneQueues } from '../settings/lanes.js';
import {
  fallbackSeconds,
  isVisibilityLimitRefusal,
  type ReceiveTiming,
  recordTiming,
  withinBudget,
} from './hold-budget.js';

/**
 * A message whose visibility should change, and to how many seconds from now (from
 * `decidedAt`, when given). Its receive's time, when not given here, is the one its batch
 * noted ({@link VisibilityController.received}): the change is cut to the receive's 12 hours
 * (./hold-budget.ts).
 */
export interface VisibilityChange {
  readonly receiptHandle: string;
  readonly eventSourceARN: string;
  readonly seconds: number;
  /** When the message was received (ms since the epoch). */
  readonly receivedAt?: number | undefined;
  /** When the message was first sent (SQS's SentTimestamp), for the fallback. */
  readonly sentAt?: number | undefined;
  /** When the change was decided: the seconds count from then, not from the sending. */
  readonly decidedAt?: number | undefined;
  /**
   * The delay decided, in ms from `decidedAt`, when finer than `seconds` (which rounds it up):
   * the visibility sent is the whole seconds left of it, so a wait before the sending never
   * makes the message later than SQS's whole seconds must.
   */
  readonly delayMs?: number | undefined;
  /**
   * Run once the change was sent (or failed), before the batch's end returns: what must
   * happen after the message is hidden, never before. Its failure is logged.
   */
  readonly afterSent?: (() => Promise<void>) | undefined;
}

/** The part of a received SQS record whose receive time is noted. */
export interface ReceivedMessage {
  readonly receiptHandle: string;
  readonly attributes?: { readonly SentTimestamp?: string } | undefined;
}

/**
 * The hand-back window: the longest an early hand-back waits for others to share its
 * ChangeMessageVisibilityBatch (docs/adr/0067-holds-within-the-receive-budget.md, "The
 * hand-back window"). The retries of a batch are decided one after another, each after its
 * own writes (over 200-600 ms for ten on a loaded emulator): a 20 ms window sent them in
 * several small requests (0.26 requests per retried task instead of 0.10). A change's delay
 * counts from its decision in ms (`decidedAt`, `delayMs`) and is rounded up to SQS's whole
 * seconds when sent, so a wait shorter than the shortest hold (1 s) never makes a message
 * show later than the first whole second after its delay: a sleeper batched with a slow task
 * still wakes on time. A crashed worker loses at most this window's changes (their messages
 * come back after the visibility they had, one receive more).
 */
export const HAND_BACK_WINDOW_MS = 750;

/**
 * Within the window, the waiting changes go out once no other was decided for this long (the
 * batch's decisions have stopped coming), at 10 waiting (a full request), or with the
 * batch's end, whichever comes first.
 */
export const HAND_BACK_QUIET_MS = 150;

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
  /** Changes handed back early, waiting for their batch of 10, their window or the batch end. */
  private early: VisibilityChange[] = [];
  private earlyTimer: NodeJS.Timeout | undefined;
  /** When the first of the waiting early changes was handed back (wall clock, as timers). */
  private earlySince = 0;
  /** The early batches being sent: a batch's end waits for them. */
  private readonly sending = new Set<Promise<void>>();
  /** The receive times of the messages in hand, by receipt handle. */
  private readonly timings = new Map<string, ReceiveTiming>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly logger: TaskLogger,
    queueUrl?: string,
    queueArn?: string,
    lanes?: LaneQueues,
    private readonly clock: () => number = Date.now,
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

  /**
   * Notes that `messages` were received at `receivedAt`: their changes are cut to that
   * receive's 12 hours until {@link forget}.
   */
  received(messages: readonly ReceivedMessage[], receivedAt: number): void {
    for (const message of messages) {
      this.timings.set(message.receiptHandle, recordTiming(message, receivedAt));
    }
  }

  /** Forgets the receive times of `messages` (their batch has ended). */
  forget(messages: readonly ReceivedMessage[]): void {
    for (const message of messages) this.timings.delete(message.receiptHandle);
  }

  /**
   * Changes one message's visibility now (heartbeats, holds), cut to its receive's budget. A
   * refusal for asking too long falls back ({@link fallbackSeconds}); other errors throw.
   */
  async extend(change: VisibilityChange): Promise<void> {
    const { ChangeMessageVisibilityCommand } = await loadSqs();
    const queueUrl = await this.queueUrl(change.eventSourceARN);
    const send = (seconds: number) =>
      this.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: change.receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
    const seconds = this.secondsFor(change);
    try {
      await send(seconds);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      await this.fallBack(change, seconds, queueUrl, (err as Error).message, send);
    }
  }

  /**
   * The seconds to ask for `change` now: what is left of its delay since its decision (the
   * time it waited to be sent taken off, rounded up so that it never shows before its delay,
   * never below 1 s when positive), within its receive's budget.
   */
  private secondsFor(change: VisibilityChange): number {
    const now = this.clock();
    let seconds = change.seconds;
    if (seconds > 0 && change.decidedAt !== undefined) {
      const leftMs = (change.delayMs ?? seconds * 1000) - now + change.decidedAt;
      seconds = Math.max(1, Math.min(seconds, Math.ceil(leftMs / 1000)));
    }
    return withinBudget(seconds, this.timing(change), now);
  }

  private timing(change: VisibilityChange): ReceiveTiming | undefined {
    if (change.receivedAt !== undefined) {
      return { receivedAt: change.receivedAt, sentAt: change.sentAt };
    }
    return this.timings.get(change.receiptHandle);
  }

  /**
   * After a refusal of `asked` seconds: asks for what a count from the send allows, then for
   * one second, with one warning. Never throws: the message comes back after the visibility
   * it has (never failed, no attempt spent).
   */
  private async fallBack(
    change: VisibilityChange,
    asked: number,
    queueUrl: string,
    reason: string | undefined,
    send: (seconds: number) => Promise<unknown>,
  ): Promise<void> {
    const timing = this.timing(change);
    const first = fallbackSeconds(asked, timing, this.clock());
    this.logger.warn('visibility refused as too long; holding for less', {
      queueUrl,
      asked,
      seconds: first,
      reason,
    });
    for (const seconds of first > 1 ? [first, 1] : [1]) {
      try {
        await send(seconds);
        return;
      } catch (err) {
        if (!isRefusal(err)) return;
      }
    }
  }

  /**
   * Hands a message back before its batch ends, batched with the changes decided after it:
   * sent once none came for {@link HAND_BACK_QUIET_MS}, at most {@link HAND_BACK_WINDOW_MS}
   * after the first one waiting, at once when 10 wait, or with the batch's end; best effort
   * as {@link applyAll}. Its delay counts from its decision (`decidedAt`, which the processor
   * always gives), so the time it waited is taken off its visibility. {@link applyAll} and {@link settle} wait for
   * them.
   */
  handBack(change: VisibilityChange): void {
    this.early.push(change);
    if (this.early.length >= Defaults.SQS_BATCH_SIZE) {
      this.flushEarly();
      return;
    }
    const now = Date.now();
    if (this.early.length === 1) this.earlySince = now;
    const wait = Math.min(HAND_BACK_QUIET_MS, this.earlySince + HAND_BACK_WINDOW_MS - now);
    clearTimeout(this.earlyTimer);
    this.earlyTimer = setTimeout(() => this.flushEarly(), wait);
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
   * Applies a batch's last changes in batches of 10 per queue, together with the early ones
   * still waiting for their window (one request for both), and waits for every early change
   * sent before. Best effort: a failure is logged, and the message simply reappears after the
   * queue's default visibility timeout instead.
   */
  async applyAll(changes: readonly VisibilityChange[]): Promise<void> {
    this.early.push(...changes);
    await this.settle();
  }

  private async apply(changes: readonly VisibilityChange[]): Promise<void> {
    try {
      await this.send(changes);
    } finally {
      await this.afterSent(changes);
    }
  }

  /** Runs the changes' {@link VisibilityChange.afterSent}, each on its own, failures logged. */
  private async afterSent(changes: readonly VisibilityChange[]): Promise<void> {
    await Promise.all(
      changes.map((change) =>
        change.afterSent?.().catch((err: unknown) => {
          this.logger.warn('check after a hold failed; the sweeper repairs a lost wake', {
            error: (err as Error).message,
          });
        }),
      ),
    );
  }

  private async send(changes: readonly VisibilityChange[]): Promise<void> {
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
          let out: {
            Failed?:
              | {
                  Id?: string | undefined;
                  Code?: string | undefined;
                  Message?: string | undefined;
                }[]
              | undefined;
          };
          try {
            out = await this.sqs.send(
              new ChangeMessageVisibilityBatchCommand({
                QueueUrl: queueUrl,
                Entries: chunk.map((c, n) => ({
                  Id: String(n),
                  ReceiptHandle: c.receiptHandle,
                  VisibilityTimeout: this.secondsFor(c),
                })),
              }),
            );
          } catch (err) {
            // moto refuses the whole batch when one entry asks too long: each goes singly.
            if (!isRefusal(err)) throw err;
            await this.eachAlone(chunk);
            continue;
          }
          for (const failure of out.Failed ?? []) {
            const change = chunk[Number(failure.Id)];
            if (change !== undefined && isVisibilityLimitRefusal(failure.Code, failure.Message)) {
              await this.eachAlone([change]);
              continue;
            }
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

  /** Sends each change on its own, best effort, each with its fallback. */
  private async eachAlone(changes: readonly VisibilityChange[]): Promise<void> {
    for (const change of changes) {
      await this.extend(change).catch((err: unknown) => {
        this.logger.warn('visibility change failed', {
          arn: change.eventSourceARN,
          error: (err as Error).message,
        });
      });
    }
  }
}

/** Whether a thrown SQS error is the refusal of a visibility past the 12-hour limit. */
function isRefusal(err: unknown): boolean {
  const e = err as { name?: string; Code?: string; message?: string } | undefined;
  return isVisibilityLimitRefusal(e?.Code ?? e?.name, e?.message);
}
