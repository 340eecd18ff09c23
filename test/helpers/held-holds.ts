/**
 * A worker's SQS client whose holds (a ChangeMessageVisibilityBatch asking more than a minute)
 * wait until `open()`: the window in which a suspension's or a pause's hold is decided but
 * not yet sent (the hand-back window, ADR 0067), held open for as long as a test needs.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { tasklaneClients } from './aws.js';

/** The worker's client, and what lets its holds through. */
export interface HeldHolds {
  readonly sqs: SQSClient;
  open(): void;
}

export function heldHolds(): HeldHolds {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const { sqs } = tasklaneClients();
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Entries?: { VisibilityTimeout?: number }[] };
      const holds = (input.Entries ?? []).some((e) => (e.VisibilityTimeout ?? 0) > 60);
      if (context.commandName === 'ChangeMessageVisibilityBatchCommand' && holds) await opened;
      return next(args);
    },
    { step: 'initialize', name: 'heldHolds' },
  );
  return { sqs, open };
}
