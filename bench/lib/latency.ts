/**
 * The "AWS-shaped" mode: a client middleware that holds every request attempt for a
 * service's typical in-region latency (DynamoDB 5 ms, SQS 15 ms, each with ±40% jitter)
 * before sending it. Each request waits on its own timer, so concurrent requests overlap as
 * they would on AWS; moto's single lock still serializes the work behind them, but not the
 * waiting. That shows what concurrency and pipelining buy where the emulator alone hides it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** Latency by service, in milliseconds, and the jitter as a fraction of it. */
export interface LatencyShape {
  readonly dynamodbMs: number;
  readonly sqsMs: number;
  readonly jitter: number;
}

/** The in-region figures the mode uses. */
export const AWS_SHAPE: LatencyShape = { dynamodbMs: 5, sqsMs: 15, jitter: 0.4 };

type Handler = (args: unknown) => Promise<unknown>;
interface Stack {
  add(
    middleware: (next: Handler, context: { clientName?: string }) => Handler,
    options: Record<string, unknown>,
  ): void;
}

/** The delay of one request to `clientName`, jittered with `random` (0 ≤ r < 1). */
export function requestDelay(
  clientName: string | undefined,
  shape: LatencyShape,
  random: () => number,
): number {
  const base = (clientName ?? '').startsWith('DynamoDB') ? shape.dynamodbMs : shape.sqsMs;
  return Math.max(0, base * (1 + shape.jitter * (2 * random() - 1)));
}

/** Adds the latency to every attempt the client sends. Attach before the first request. */
export function injectLatency(
  client: SQSClient | DynamoDBClient,
  shape: LatencyShape = AWS_SHAPE,
  random: () => number = Math.random,
): void {
  (client.middlewareStack as unknown as Stack).add(
    (next, context) => async (args) => {
      const ms = requestDelay(context.clientName, shape, random);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return next(args);
    },
    // Inside the retries (each attempt waits), outside the signing and the request counter.
    { step: 'finalizeRequest', name: 'benchAwsLatency', override: true },
  );
}
