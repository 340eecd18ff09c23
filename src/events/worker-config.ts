import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ValidationError } from '../core/errors.js';
import { EnvVars } from '../settings/location.js';
import type { EventPublisher, EventSettings } from './publisher.js';

/** The bus the construct and the worker publish to when none is named. */
export const DEFAULT_EVENT_BUS = 'default';

/** The `events` option of `createWorker`. */
export interface WorkerEventOptions {
  /** Bus name or ARN. @default `TASKLANE_EVENT_BUS`, else `default` (the account's default bus) */
  readonly eventBus?: string;
  /** The events' `source`. @default `TASKLANE_EVENT_SOURCE`, else `tasklane.<table name>` */
  readonly source?: string;
  /** @default a client with the SDK's standard retries */
  readonly client?: EventBridgeClient;
  /** Replaces EventBridge altogether, e.g. a recorder in tests. */
  readonly publisher?: EventPublisher;
}

/**
 * The worker's event settings: from the `events` option, else from the environment the
 * construct sets (`TASKLANE_EVENT_BUS` turns events on), else none.
 *
 * @throws ValidationError when the source is not `tasklane.<something>` or is too long.
 */
export function resolveEventSettings(
  events: boolean | WorkerEventOptions | undefined,
  fallbackName: string,
  env: NodeJS.ProcessEnv = process.env,
): EventSettings | undefined {
  const envBus = env[EnvVars.EVENT_BUS] || undefined;
  if (events === false || (events === undefined && envBus === undefined)) return undefined;
  const options: WorkerEventOptions = typeof events === 'object' ? events : {};
  if (options.publisher !== undefined) return { publisher: options.publisher };
  const source = options.source ?? (env[EnvVars.EVENT_SOURCE] || `tasklane.${fallbackName}`);
  if (!/^tasklane\.[A-Za-z0-9._-]{1,247}$/.test(source)) {
    throw new ValidationError('events', [
      {
        path: 'events.source',
        message: `expected 'tasklane.' followed by 1-247 letters, digits, '.', '_' or '-', received '${source}'`,
      },
    ]);
  }
  return {
    client: options.client,
    eventBus: options.eventBus ?? envBus ?? DEFAULT_EVENT_BUS,
    source,
  };
}

/**
 * How long a message whose terminal event was not accepted first stays away before it comes
 * back to publish it again. Short: the message holds its ordering key meanwhile.
 */
export const EVENT_RETRY_SECONDS = 10;
/** The longest such hold, reached after a few refusals in a row. */
export const EVENT_RETRY_MAX_SECONDS = 300;

/**
 * The hold of a message whose terminal event was not accepted, doubling with its receive
 * count (10 s, 20 s, … 5 min), so that an EventBridge outage spends the queue's
 * `maxReceiveCount` slowly: with the default of 50, it takes hours to move the message to
 * the dead-letter queue.
 */
export function eventRetrySeconds(receiveCount: number): number {
  const doublings = Math.min(Math.max(0, receiveCount - 1), 5);
  return Math.min(EVENT_RETRY_MAX_SECONDS, EVENT_RETRY_SECONDS * 2 ** doublings);
}
