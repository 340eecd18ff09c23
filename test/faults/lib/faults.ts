/**
 * Fault injection through AWS SDK v3 middleware. A `finalizeRequest` middleware placed after
 * the retry middleware sees every HTTP attempt of a call, so an injected throttle is retried
 * by the SDK's standard retry mode exactly as a real one would be; an `initialize`
 * middleware, outside the retries, counts the attempts each call took.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../../../src/aws/clients.js';
import { type AwsClients, REGION, tasklaneClients } from '../../helpers/aws.js';
import { sleep } from './random.js';

export type Service = 'dynamodb' | 'sqs';

/**
 * What to do to one HTTP attempt:
 * - `throttle`: reject it before it is sent, as an overloaded service does (retryable);
 * - `crash-before`: fail it before it is sent, not retryable (the caller died);
 * - `crash-after`: let the request reach the service, then lose the response (not
 *   retryable): the effect happened but the caller never learns it.
 */
export type FaultAction = 'throttle' | 'crash-before' | 'crash-after';

export type FaultPlan = (service: Service, command: string) => FaultAction | undefined;

/** What the injector did and saw. */
export interface FaultStats {
  calls: number;
  httpAttempts: number;
  injected: Record<FaultAction, number>;
  /** The most HTTP attempts any one call took (the SDK's maxAttempts bounds it). */
  maxAttemptsPerCall: number;
  /** Calls that still failed after the SDK's retries, by error name. */
  failedCalls: Record<string, number>;
}

function injectedError(
  action: FaultAction,
  service: Service | 'scheduler',
  command: string,
): Error {
  const name =
    action === 'throttle'
      ? service === 'dynamodb'
        ? 'ProvisionedThroughputExceededException'
        : 'ThrottlingException'
      : 'InjectedCrash';
  return Object.assign(new Error(`injected ${action} of ${service}.${command}`), {
    name,
    $fault: action === 'throttle' ? 'client' : 'server',
    $metadata: { httpStatusCode: 400 },
  });
}

type Client = DynamoDBClient | SQSClient;
/** The little of the SDK's middleware types this file needs. */
type Args = { input: object };
type Output = { output: { $metadata: { attempts?: number } } };
type Next = (args: Args) => Promise<Output>;

function attach(client: Client, service: Service, plan: FaultPlan, stats: FaultStats): void {
  // The client's generic middleware stack; the commands' own types do not matter here.
  const stack = client.middlewareStack as unknown as {
    add(mw: unknown, options: Record<string, unknown>): void;
  };
  stack.add(
    (next: Next) =>
      async (args: Args): Promise<Output> => {
        stats.calls += 1;
        try {
          const out = await next(args);
          const attempts = out.output.$metadata.attempts ?? 1;
          stats.maxAttemptsPerCall = Math.max(stats.maxAttemptsPerCall, attempts);
          return out;
        } catch (err) {
          const e = err as Error & { $metadata?: { attempts?: number } };
          stats.maxAttemptsPerCall = Math.max(stats.maxAttemptsPerCall, e.$metadata?.attempts ?? 1);
          stats.failedCalls[e.name] = (stats.failedCalls[e.name] ?? 0) + 1;
          throw err;
        }
      },
    { step: 'initialize', priority: 'high', name: 'faultAttemptCounter' },
  );
  stack.add(
    (next: Next, context: { commandName?: string }) =>
      async (args: Args): Promise<Output> => {
        stats.httpAttempts += 1;
        const command = (context.commandName ?? '').replace(/Command$/, '');
        const action = plan(service, command);
        if (action === undefined) return next(args);
        stats.injected[action] += 1;
        if (action === 'crash-after') {
          await next(args);
        }
        throw injectedError(action, service, command);
      },
    { step: 'finalizeRequest', priority: 'low', name: 'faultInjection' },
  );
}

/** New SDK clients (configured as Tasklane's own) whose calls go through `plan`. */
export function faultyClients(plan: FaultPlan): { clients: AwsClients; stats: FaultStats } {
  const clients = tasklaneClients();
  const stats: FaultStats = {
    calls: 0,
    httpAttempts: 0,
    injected: { throttle: 0, 'crash-before': 0, 'crash-after': 0 },
    maxAttemptsPerCall: 0,
    failedCalls: {},
  };
  attach(clients.dynamodb, 'dynamodb', plan, stats);
  attach(clients.sqs, 'sqs', plan, stats);
  return { clients, stats };
}

/**
 * An SQS client whose calls never leave the process: each command named in `responses`
 * resolves at once with that output, and any other command fails. For tests that drive the
 * worker with synthetic records (the model test), where visibility changes have no queue.
 */
export function stubbedSqs(responses: Record<string, object>): AwsClients['sqs'] {
  const { sqs } = tasklaneClients();
  const stack = sqs.middlewareStack as unknown as {
    add(mw: unknown, options: Record<string, unknown>): void;
  };
  stack.add(
    (_next: Next, context: { commandName?: string }) => async (): Promise<Output> => {
      const command = (context.commandName ?? '').replace(/Command$/, '');
      const output = responses[command];
      if (output === undefined) throw new Error(`stubbed SQS has no answer for ${command}`);
      return { output: { ...output, $metadata: {} } };
    },
    { step: 'initialize', priority: 'high', name: 'sqsStub' },
  );
  return sqs;
}

/** What to do to one Scheduler call: wait `delayMs`, then fail it (`fail`) or send it. */
export interface SchedulerFault {
  readonly delayMs?: number;
  readonly fail?: boolean;
}

/**
 * A Scheduler client (configured as Tasklane's own) whose calls go through `plan`: a call
 * can be slowed, and failed before it reaches the service (not retryable, like a process
 * that dies or a network that drops the call). Counts the calls it failed.
 */
export function faultyScheduler(plan: (command: string) => SchedulerFault | undefined): {
  client: SchedulerClient;
  failed: () => number;
} {
  const client = new SchedulerClient({ ...awsClientConfig(), region: REGION });
  let failed = 0;
  const stack = client.middlewareStack as unknown as {
    add(mw: unknown, options: Record<string, unknown>): void;
  };
  stack.add(
    (next: Next, context: { commandName?: string }) =>
      async (args: Args): Promise<Output> => {
        const command = (context.commandName ?? '').replace(/Command$/, '');
        const fault = plan(command);
        if (fault?.delayMs !== undefined) await sleep(fault.delayMs);
        if (fault?.fail !== true) return next(args);
        failed += 1;
        throw injectedError('crash-before', 'scheduler', command);
      },
    { step: 'initialize', priority: 'high', name: 'schedulerFaultInjection' },
  );
  return { client, failed: () => failed };
}
