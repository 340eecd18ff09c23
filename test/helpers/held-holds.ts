/**
 * A worker's SQS client whose holds (a change of visibility asking more than a minute) wait
 * until `open()`: the window in which a hold is decided but not yet sent, held open for as
 * long as a test needs. A suspension's or a pause's hold goes out in a
 * ChangeMessageVisibilityBatch (the hand-back window, ADR 0067); the claim's re-hold of an
 * early message in a ChangeMessageVisibility (src/worker/held.ts).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { tasklaneClients } from './aws.js';

/** The worker's client, and what lets its holds through. */
export interface HeldHolds {
  readonly sqs: SQSClient;
  /** Settles once the first hold waits. */
  readonly reached: Promise<void>;
  /** Settles once a batch of holds (a suspension's, a pause's) has been sent. */
  readonly batchSent: Promise<void>;
  open(): void;
}

type HoldCommand = 'ChangeMessageVisibilityBatchCommand' | 'ChangeMessageVisibilityCommand';

export function heldHolds(command: HoldCommand = 'ChangeMessageVisibilityBatchCommand'): HeldHolds {
  let open: () => void = () => undefined;
  let arrive: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let batchDone: () => void = () => undefined;
  const batchSent = new Promise<void>((resolve) => {
    batchDone = resolve;
  });
  const { sqs } = tasklaneClients();
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        VisibilityTimeout?: number;
        Entries?: { VisibilityTimeout?: number }[];
      };
      const asked = input.Entries?.map((e) => e.VisibilityTimeout ?? 0) ?? [
        input.VisibilityTimeout ?? 0,
      ];
      const hold = asked.some((seconds) => seconds > 60);
      if (context.commandName === command && hold) {
        arrive();
        await opened;
      }
      const out = await next(args);
      if (context.commandName === 'ChangeMessageVisibilityBatchCommand' && hold) batchDone();
      return out;
    },
    { step: 'initialize', name: 'heldHolds' },
  );
  return { sqs, reached, batchSent, open };
}
