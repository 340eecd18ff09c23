import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { awsClientConfig } from '../aws/clients.js';
import { clientOnFirstSend, loadEventBridge } from '../aws/sdk.js';
import { ValidationError } from '../core/errors.js';
import type { TaskLogger } from '../observability/logger.js';
import { EnvVars } from '../settings/location.js';
import { EventBridgePublisher, type EventPublisher } from './publisher.js';

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
 * The worker's event publisher: from the `events` option, else from the environment the
 * construct sets (`TASKLANE_EVENT_BUS` turns events on), else none.
 *
 * @throws ValidationError when the source is not `tasklane.<something>` or is too long.
 */
export function resolveEventPublisher(
  events: boolean | WorkerEventOptions | undefined,
  fallbackName: string,
  logger: TaskLogger,
  env: NodeJS.ProcessEnv = process.env,
): EventPublisher | undefined {
  const envBus = env[EnvVars.EVENT_BUS] || undefined;
  if (events === false || (events === undefined && envBus === undefined)) return undefined;
  const options: WorkerEventOptions = typeof events === 'object' ? events : {};
  if (options.publisher !== undefined) return options.publisher;
  const source = options.source ?? (env[EnvVars.EVENT_SOURCE] || `tasklane.${fallbackName}`);
  if (!/^tasklane\.[A-Za-z0-9._-]{1,247}$/.test(source)) {
    throw new ValidationError('events', [
      {
        path: 'events.source',
        message: `expected 'tasklane.' followed by 1-247 letters, digits, '.', '_' or '-', received '${source}'`,
      },
    ]);
  }
  return new EventBridgePublisher({
    // Made, and its package loaded, when the first events are published.
    client:
      options.client ??
      clientOnFirstSend(
        async () => new (await loadEventBridge()).EventBridgeClient(awsClientConfig()),
      ),
    eventBus: options.eventBus ?? envBus ?? DEFAULT_EVENT_BUS,
    source,
    logger,
  });
}
