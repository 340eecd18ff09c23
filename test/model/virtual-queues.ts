/**
 * SQS visibility on the model's clock. The emulator's queues stay real (FIFO groups, in-flight
 * messages blocking their group, receipt handles), but a hidden message's return is timed by
 * the injected clock the commands move, not by the wall clock: every ReceiveMessage and
 * ChangeMessageVisibility through a client given to {@link VirtualQueues.attach} is recorded
 * with its virtual return time and sent with a far-off real one, and {@link
 * VirtualQueues.advance} makes visible again what is due. A crashed worker's messages thus come
 * back once a tick passes the queue's visibility timeout, and a parked key's held message
 * once a tick passes 12 hours, without waiting for either. FIFO deduplication's 5 minutes are
 * the model's too.
 */
import { createHash } from 'node:crypto';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** SQS FIFO's deduplication interval. */
const DEDUP_WINDOW_MS = 5 * 60_000;
/**
 * Hidden for real until advance() lets it go: longer than any test runs. 11 hours, not SQS's
 * 12: a change must end within 12 hours of the receive (moto: of the send), or it is refused
 * (docs/adr/0067-holds-within-the-receive-budget.md), and the worker's fallback would then
 * hide the message for 1 s, making it come back on the wall clock in a loop.
 */
const FAR_CHANGE_SECONDS = 11 * 3600;

interface Hidden {
  readonly queueUrl: string;
  readonly visibleAt: number;
}

type Args = { input: Record<string, unknown> };
type Output = { output: Record<string, unknown> };
type Next = (args: Args) => Promise<Output>;

export class VirtualQueues {
  private readonly hidden = new Map<string, Hidden>();

  /**
   * @param now the model's clock
   * @param defaultVisibilitySeconds the queues' visibility timeout (one for every lane)
   * @param sqs a plain client, for the releases
   */
  constructor(
    private readonly now: () => number,
    private readonly defaultVisibilitySeconds: number,
    private readonly sqs: SQSClient,
  ) {}

  /** Routes `client`'s visibility through the virtual clock; returns the client. */
  attach(client: SQSClient): SQSClient {
    const stack = client.middlewareStack as unknown as {
      add(mw: unknown, options: Record<string, unknown>): void;
    };
    stack.add(
      (next: Next, context: { commandName?: string }) =>
        async (args: Args): Promise<Output> => {
          const command = context.commandName ?? '';
          const input = args.input;
          if (command === 'ReceiveMessageCommand') {
            const seconds = Number(input.VisibilityTimeout ?? this.defaultVisibilitySeconds);
            const out = await next({
              ...args,
              input: { ...input, VisibilityTimeout: FAR_CHANGE_SECONDS },
            });
            const messages = (out.output.Messages ?? []) as { ReceiptHandle?: string }[];
            for (const m of messages) this.hide(String(input.QueueUrl), m.ReceiptHandle, seconds);
            return out;
          }
          if (command === 'ChangeMessageVisibilityCommand') {
            const seconds = Number(input.VisibilityTimeout);
            this.hide(String(input.QueueUrl), input.ReceiptHandle as string, seconds);
            return next({ ...args, input: { ...input, VisibilityTimeout: real(seconds) } });
          }
          if (command === 'ChangeMessageVisibilityBatchCommand') {
            const entries = (input.Entries ?? []) as {
              ReceiptHandle: string;
              VisibilityTimeout: number;
            }[];
            for (const e of entries)
              this.hide(String(input.QueueUrl), e.ReceiptHandle, e.VisibilityTimeout);
            const sent = entries.map((e) => ({
              ...e,
              VisibilityTimeout: real(e.VisibilityTimeout),
            }));
            return next({ ...args, input: { ...input, Entries: sent } });
          }
          if (command === 'SendMessageCommand') {
            return next({ ...args, input: this.dedupOnClock(input) });
          }
          if (command === 'SendMessageBatchCommand') {
            const entries = (input.Entries ?? []) as Record<string, unknown>[];
            const sent = entries.map((e) => this.dedupOnClock(e));
            return next({ ...args, input: { ...input, Entries: sent } });
          }
          if (command === 'DeleteMessageCommand') this.hidden.delete(input.ReceiptHandle as string);
          if (command === 'DeleteMessageBatchCommand') {
            for (const e of (input.Entries ?? []) as { ReceiptHandle: string }[])
              this.hidden.delete(e.ReceiptHandle);
          }
          return next(args);
        },
      { step: 'initialize', priority: 'high', name: 'virtualVisibility' },
    );
    return client;
  }

  /** Makes visible every message whose virtual visibility timeout has passed. */
  async advance(): Promise<number> {
    const due = [...this.hidden].filter(([, h]) => h.visibleAt <= this.now());
    for (const [handle, h] of due) {
      this.hidden.delete(handle);
      // A handle of a message received again since is stale: the emulator refuses it, as SQS
      // would, and the message's newer handle is the one that counts.
      await this.sqs
        .send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: h.queueUrl,
            ReceiptHandle: handle,
            VisibilityTimeout: 0,
          }),
        )
        .catch(() => undefined);
    }
    return due.length;
  }

  /**
   * SQS drops a FIFO message whose deduplication id (or, without one, body) it saw in the
   * last 5 minutes. Those minutes are the model's: the id gets the clock's 5-minute window
   * appended, so a re-send a tick of the clock later is not dropped for being seconds apart
   * on the wall clock, and one within the window still is.
   */
  private dedupOnClock(entry: Record<string, unknown>): Record<string, unknown> {
    const id =
      (entry.MessageDeduplicationId as string | undefined) ??
      createHash('sha256').update(String(entry.MessageBody)).digest('hex').slice(0, 64);
    const window = Math.floor(this.now() / DEDUP_WINDOW_MS);
    return { ...entry, MessageDeduplicationId: `${id.slice(0, 100)}-${window}` };
  }

  private hide(queueUrl: string, handle: string | undefined, seconds: number): void {
    if (handle === undefined) return;
    // Released at once (0 s) stays listed: the emulator may keep such a message of a FIFO
    // group hidden while another of the group is in flight, so the next advance() releases
    // it again.
    this.hidden.set(handle, { queueUrl, visibleAt: this.now() + Math.max(0, seconds) * 1000 });
  }
}

function real(seconds: number): number {
  return seconds <= 0 ? 0 : FAR_CHANGE_SECONDS;
}
