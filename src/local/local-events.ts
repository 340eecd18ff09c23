import {
  CreateEventBusCommand,
  DescribeEventBusCommand,
  EventBridgeClient,
  type EventBridgeClientConfig,
  ResourceNotFoundException,
} from '@aws-sdk/client-eventbridge';
import { DEFAULT_EVENT_BUS, type WorkerEventOptions } from '../events/worker-config.js';

/** The `events` option of `startLocalExecutor`. */
export type LocalEventsOption = boolean | { readonly eventBus?: string };

/** Where a local executor publishes lifecycle events. */
export interface LocalEventBus {
  readonly eventBus: string;
  readonly source: string;
  readonly client: EventBridgeClient;
}

/**
 * The emulator's bus for lifecycle events: with `true`, a bus named after the executor
 * (created when missing), so that executors sharing an emulator do not see each other's
 * events; with `{ eventBus }`, that bus (`default` always exists), created when missing.
 */
export async function localEventBus(
  option: LocalEventsOption | undefined,
  name: string,
  config: EventBridgeClientConfig,
): Promise<LocalEventBus | undefined> {
  if (option === undefined || option === false) return undefined;
  const eventBus = option === true ? name : (option.eventBus ?? DEFAULT_EVENT_BUS);
  const client = new EventBridgeClient(config);
  try {
    if (eventBus !== DEFAULT_EVENT_BUS) await ensureBus(client, eventBus);
  } catch (err) {
    client.destroy();
    throw err;
  }
  return { eventBus, source: `tasklane.${name}`, client };
}

/** The worker's `events` option for a local bus. */
export function workerEventOptions(bus: LocalEventBus): WorkerEventOptions {
  return { eventBus: bus.eventBus, source: bus.source, client: bus.client };
}

async function ensureBus(client: EventBridgeClient, name: string): Promise<void> {
  try {
    await client.send(new DescribeEventBusCommand({ Name: name }));
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
    await client.send(new CreateEventBusCommand({ Name: name }));
  }
}
