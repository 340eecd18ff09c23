/**
 * AWS SDK clients that fail chosen commands before they leave the process, as during an
 * outage or throttling, while their other commands reach the emulator as usual. The error is
 * thrown in the `initialize` step, outside the SDK's retries, so one call fails once.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';

type Handler = (args: unknown) => Promise<unknown>;
/** The part of a client's middleware stack used here, the same for every service's client. */
interface Stack {
  add(
    middleware: (next: Handler, context: { commandName?: string }) => Handler,
    options: { step: 'initialize'; name: string },
  ): void;
}

/** The fault to throw: its `name` is what Tasklane's error handling looks at. */
export interface InjectedFault {
  readonly name: string;
  readonly message?: string;
}

const THROTTLED: InjectedFault = { name: 'ThrottlingException', message: 'Rate exceeded' };

/** Makes `client` fail every command named in `commands` with `fault`; returns the client. */
export function failing<C extends { readonly middlewareStack: object }>(
  client: C,
  commands: readonly string[],
  fault: InjectedFault = THROTTLED,
): C {
  (client.middlewareStack as unknown as Stack).add(
    (next, context) => async (args) => {
      if (context.commandName !== undefined && commands.includes(context.commandName)) {
        throw Object.assign(new Error(`${fault.message ?? fault.name} (injected)`), {
          name: fault.name,
          $fault: 'client',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: `fail-${commands.join('-')}` },
  );
  return client;
}

/**
 * An SQS client whose sends are throttled: a transient fault, so an enqueue through it stores
 * the task PENDING and reports `sent: false` for the sweeper (a wrong queue URL, by contrast,
 * is a ConfigurationError).
 */
export function throttledSqs(): SQSClient {
  return failing(new SQSClient({ region: 'us-east-1', useQueueUrlAsEndpoint: false }), [
    'SendMessageCommand',
    'SendMessageBatchCommand',
  ]);
}

/** A Scheduler client whose CreateSchedule always fails, as during an outage or throttling. */
export function failingScheduler(fault: InjectedFault = THROTTLED): SchedulerClient {
  return failing(new SchedulerClient({ region: 'us-east-1' }), ['CreateScheduleCommand'], fault);
}
