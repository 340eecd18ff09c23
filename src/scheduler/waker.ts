/**
 * Wakes a SUSPENDED task, or lets a resumed one go (docs/adr/0048-durable-sleep-signals-pause.md):
 * its held message is made visible at once, still at the head of its group; a task whose
 * message was released gets a new one, at its current generation (so two wakes within SQS's
 * five minutes are one message). The signal's sender, the resume and the sweeper's repair of a
 * lost wake all use it.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueUrlCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describeError } from '../core/errors.js';
import type { HeldMessage, TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneQueues } from '../settings/lanes.js';
import type { Dispatcher } from './dispatcher.js';

/** How a wake went: the held message shown, a new message sent, or neither (logged). */
export type Woken = 'shown' | 'sent' | 'none';

/** Makes waiting tasks' messages come. */
export class Waker {
  private readonly urls = new Map<string, Promise<string>>();
  private readonly byName = new Map<string, string>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly dispatcher: Dispatcher,
    lanes: LaneQueues,
    private readonly logger: TaskLogger,
  ) {
    for (const [, lane] of lanes.entries()) {
      if (lane.queueArn !== undefined) this.urls.set(lane.queueArn, Promise.resolve(lane.queueUrl));
      // A queue URL ends with its name, which an ARN ends with too: no GetQueueUrl (and no
      // grant of it) is needed for the executor's own queues.
      this.byName.set(lane.queueUrl.slice(lane.queueUrl.lastIndexOf('/') + 1), lane.queueUrl);
    }
  }

  /**
   * Wakes `record`: shows its held message; without one (or when SQS refuses its handle, the
   * message having come back or gone), sends a new one, unless `send` is false (a task of an
   * ordering key whose message is still in its group: a new one would only follow it).
   */
  async wake(record: TaskRecord, options: { readonly send?: boolean } = {}): Promise<Woken> {
    const held = record.heldMessage;
    if (held !== undefined && (await this.show(held, record.id))) return 'shown';
    if (options.send === false) return 'none';
    try {
      await this.dispatcher.sendNow(record);
      return 'sent';
    } catch (err) {
      this.logger.warn('wake not sent; the sweeper wakes the task', {
        taskId: record.id,
        error: describeError(err),
      });
      return 'none';
    }
  }

  /**
   * The sweeper's repair of a lost wake: shows the held message, if the record names one, and
   * sends a new message as well, because SQS may accept a stale handle without a message
   * behind it. `record` is at the generation the repair noted, so the new message is never
   * taken for a duplicate of the lost one. A key's task keeps its place: the shown message is
   * at the head of its group, and the new one, behind it, finds the task claimed or finished.
   */
  async repair(record: TaskRecord): Promise<Woken> {
    const held = record.heldMessage;
    const shown = held !== undefined && (await this.show(held, record.id));
    try {
      await this.dispatcher.sendNow(record);
      return 'sent';
    } catch (err) {
      this.logger.warn('wake not sent; the next sweep tries again', {
        taskId: record.id,
        error: describeError(err),
      });
      return shown ? 'shown' : 'none';
    }
  }

  /** Makes a held message visible now. @returns false when SQS refused (a stale handle). */
  async show(held: HeldMessage, taskId: string): Promise<boolean> {
    try {
      await this.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: await this.queueUrl(held.queueArn),
          ReceiptHandle: held.receiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      return true;
    } catch (err) {
      this.logger.debug('held message not shown: its handle is stale', {
        taskId,
        error: describeError(err),
      });
      return false;
    }
  }

  /** The queue URL of an SQS ARN (`arn:aws:sqs:region:account:name`), looked up once. */
  private queueUrl(arn: string): Promise<string> {
    let url = this.urls.get(arn);
    if (url === undefined) {
      const [, , , , account, name] = arn.split(':');
      const known = name === undefined ? undefined : this.byName.get(name);
      if (known !== undefined) return Promise.resolve(known);
      url = this.sqs
        .send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }))
        .then((out) => out.QueueUrl ?? '');
      url.catch(() => this.urls.delete(arn));
      this.urls.set(arn, url);
    }
    return url;
  }
}
