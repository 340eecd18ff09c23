/**
 * Lifecycle events (docs/events.md): the bus the worker publishes to, its environment and
 * its one permission, `events:PutEvents` on that bus.
 */
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { EnvVars } from '../settings/location.js';

/** What the worker calls, once per batch with events (per 10 events or 256 KB). */
export const WORKER_EVENT_ACTIONS = ['events:PutEvents'];

/**
 * The bus of lifecycle events: `eventBus` when given (unless `events` is false), else with
 * `events: true` the account's default bus, else undefined.
 */
export function lifecycleEventBus(
  scope: Construct,
  props: { readonly events?: boolean; readonly eventBus?: IEventBus },
): IEventBus | undefined {
  if (props.events === false) return undefined;
  if (props.eventBus !== undefined) return props.eventBus;
  if (props.events !== true) return undefined;
  return EventBus.fromEventBusName(scope, 'DefaultEventBus', 'default');
}

/** The worker's environment for lifecycle events; empty when they are off. */
export function eventEnvironment(
  bus: IEventBus | undefined,
  executorName: string,
): Record<string, string> {
  if (bus === undefined) return {};
  return {
    [EnvVars.EVENT_BUS]: bus.eventBusName,
    [EnvVars.EVENT_SOURCE]: eventSource(executorName),
  };
}

/** The `source` of an executor's lifecycle events. */
export function eventSource(executorName: string): string {
  return `tasklane.${executorName}`;
}

/** `events:PutEvents` on the bus, or an empty grant when events are off. */
export function eventGrant(bus: IEventBus | undefined, grantee: IGrantable): Grant {
  if (bus === undefined) return Grant.drop(grantee, 'lifecycle events are off');
  return Grant.addToPrincipal({
    grantee,
    actions: WORKER_EVENT_ACTIONS,
    resourceArns: [bus.eventBusArn],
  });
}
