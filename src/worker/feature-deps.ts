/**
 * The worker's dependencies on features a task set may not use, each made on its first use
 * from the optional features' chunk (optional-features.ts): the dispatcher that sends released
 * dependents, the rate limiter, wake schedules, the integrity key, and the payload bucket's
 * reads and writes (docs/adr/0069-worker-chunks.md), and the holds of parked keys
 * (docs/adr/0070-store-parts-on-first-use.md), and lifecycle events. What decides whether a feature is on
 * (the scheduler's settings, the integrity key's, the bucket's) is read when the worker is
 * made, as before.
 */
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { once } from '../aws/sdk.js';
import { type ClaimCheckOptions, resolveClaimCheck } from '../claim-check/claim-check-settings.js';
import type { ObjectAccess, ObjectStore } from '../claim-check/object-store.js';
import type { TaskRecord } from '../core/record.js';
import { resolveEventSettings, type WorkerEventOptions } from '../events/worker-config.js';
import type { LifecycleHooks, WorkerEvents } from '../events/worker-events.js';
import {
  INTEGRITY_KEY_ENV,
  INTEGRITY_PREVIOUS_KEYS_ENV,
  type IntegrityOptions,
  integrityKeyId,
} from '../integrity/integrity-settings.js';
import type { IntegrityKey } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import type { WakeSchedules } from '../scheduler/wakes.js';
import type { LaneQueues } from '../settings/lanes.js';
import { type ExecutorLocation, resolveSchedulerLocation } from '../settings/location.js';
import type { DynamoDBClient } from '../store/table.js';
import type { TaskStore } from '../store/task-store.js';
import type { Outcome, ProcessorDeps } from './deps.js';
import { onFirstUse } from './on-first-use.js';
import type { ParkMessage } from './parked.js';
import type { RateLimiter } from './rate-limit.js';

/** Sends the tasks a finished parent releases, each to its own lane's queue. */
export function dispatcherOnFirstUse(
  sqs: SQSClient,
  lanes: LaneQueues,
  logger: TaskLogger,
): Pick<Dispatcher, 'sendAll'> {
  return onFirstUse(async (): Promise<Dispatcher> => {
    const { Dispatcher } = await import('./optional-features.js');
    return new Dispatcher(sqs, lanes, logger);
  }, ['sendAll']);
}

/**
 * Holds the parked key of the DEAD task `dead` with `message` (./parked.ts), whose code and
 * park items are loaded on the first hold (docs/adr/0070-store-parts-on-first-use.md).
 */
export async function holdParkedKey(
  dead: TaskRecord,
  message: ParkMessage,
  deps: ProcessorDeps,
): Promise<Outcome> {
  const features = await import('./optional-features.js');
  return features.holdParkedKey(dead, message, deps);
}

/**
 * Lifecycle events and hooks, when asked for; undefined when neither is. What the events
 * publish with is read now, so a bad source is a ValidationError when the worker is made;
 * their code (each write's event, the publisher, the hooks' calls) is loaded before the first
 * batch, by `processBatch` (docs/adr/0070-store-parts-on-first-use.md).
 *
 * @throws ValidationError when the events' source is not `tasklane.<something>`.
 */
export function eventsOnFirstUse(
  events: boolean | WorkerEventOptions | undefined,
  hooks: LifecycleHooks,
  executorName: string,
  logger: TaskLogger,
): (() => Promise<WorkerEvents>) | undefined {
  const settings = resolveEventSettings(events, executorName);
  const anyHook = Object.values(hooks).some((hook) => hook !== undefined);
  if (settings === undefined && !anyHook) return undefined;
  return once(async () => {
    const features = await import('./optional-features.js');
    const publisher =
      settings === undefined ? undefined : features.eventPublisher(settings, logger);
    return new features.WorkerEvents(publisher, hooks, logger);
  });
}

/** Takes starts from the rate-limited types' buckets (ADR 0026). */
export function rateLimiterOnFirstUse(
  store: TaskStore,
  clock: () => number,
): Pick<RateLimiter, 'admit'> {
  return onFirstUse(async (): Promise<RateLimiter> => {
    const { RateLimiter, TokenBuckets } = await import('./optional-features.js');
    return new RateLimiter(store.feature(TokenBuckets), clock, Math.random);
  }, ['admit']);
}

/**
 * The wake schedules of suspended tasks, when scheduling is configured (the construct sets its
 * variables); undefined otherwise: their messages are then held instead.
 */
export function wakeSchedules(
  options: ExecutorLocation & { readonly scheduler?: SchedulerClient | undefined },
  sqs: SQSClient,
  queueUrl: string,
  lanes: LaneQueues,
): Pick<WakeSchedules, 'create'> | undefined {
  try {
    resolveSchedulerLocation(options);
  } catch {
    return undefined;
  }
  return onFirstUse(async (): Promise<WakeSchedules> => {
    const { SchedulerTarget, WakeSchedules } = await import('./optional-features.js');
    const target = new SchedulerTarget({
      location: options,
      sqs,
      queueUrl,
      lanes,
      scheduler: options.scheduler,
    });
    return new WakeSchedules(target);
  }, ['create']);
}

/**
 * The executor's key when integrity is on, made (and its KMS client) on first use, from the
 * environment as it was when the worker was made.
 */
export function integrityKey(
  options: IntegrityOptions | undefined,
  dynamodb: DynamoDBClient,
): IntegrityKey | undefined {
  const env = {
    [INTEGRITY_KEY_ENV]: process.env[INTEGRITY_KEY_ENV],
    [INTEGRITY_PREVIOUS_KEYS_ENV]: process.env[INTEGRITY_PREVIOUS_KEYS_ENV],
  };
  if (integrityKeyId(options, env) === undefined) return undefined;
  return onFirstUse(async () => {
    const { resolveIntegrity } = await import('./optional-features.js');
    const tag = resolveIntegrity(options, dynamodb, env);
    // integrityKeyId found a key with the same options and environment.
    if (tag === undefined) throw new Error('unreachable: integrity is on');
    return tag;
  }, ['tag', 'verify', 'sign', 'checkSigned']);
}

/**
 * The payload bucket as the worker uses it: its settings at once (whether a value is
 * offloaded, the limits), its reads and writes on first use.
 *
 * @throws ValidationError when the threshold is not a whole number of bytes from 0 to 131072.
 */
export function objectsOnFirstUse(options: ClaimCheckOptions): ObjectAccess {
  const settings = resolveClaimCheck(options);
  const io = onFirstUse(async (): Promise<ObjectStore> => {
    const { ObjectStore } = await import('./optional-features.js');
    return new ObjectStore(settings.bucket, settings.thresholdBytes, options.s3);
  }, ['put', 'read', 'readChecked']);
  return {
    bucket: settings.bucket,
    thresholdBytes: settings.thresholdBytes,
    offloads: (sizeBytes) => settings.offloads(sizeBytes),
    limit: (configured, inline) => settings.limit(configured, inline),
    put: io.put,
    read: io.read,
    readChecked: io.readChecked,
  };
}
