/**
 * `startLocalExecutor`: a whole Tasklane executor on a laptop or in a test, in one call.
 * It starts the emulator (or uses one), provisions the resources from the same settings as
 * the CDK construct (or attaches to existing ones), and runs in the background what AWS
 * would: the worker's Lambda handler behind the SQS event source mapping, the EventBridge
 * Scheduler pump, and the sweeper every few seconds.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { TaskClient } from '../client/task-client.js';
import { ConfigurationError } from '../core/errors.js';
import { defaultLogger, silentLogger, type TaskLogger } from '../observability/logger.js';
import { noopMetrics } from '../observability/metrics.js';
import { delayedScheduleGroupName } from '../scheduler/names.js';
import { executorSettings } from '../settings/executor.js';
import { resolveLaneQueues } from '../settings/location.js';
import { LaneControls } from '../store/lane-controls.js';
import { TaskStore } from '../store/task-store.js';
import { createSweeper } from '../sweeper/create-sweeper.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import { createWorker, type WorkerOptions } from '../worker/create-worker.js';
import { watchLanePauses } from '../worker/lane-gate.js';
import { type EmulatorHandle, startEmulator } from './emulator.js';
import { type Clients, emulatorClients, emulatorConfig } from './emulator-clients.js';
import { MINISTACK_FIRING_SENDER_ID, resolveEngine } from './emulator-engine.js';
import { assertLoopbackEndpoint, executorEnvironment } from './emulator-env.js';
import { STATE_DIR } from './emulator-runtime.js';
import { runLaneMappings } from './event-source-mapping.js';
import { type FileLogger, jsonLinesLogger } from './file-logger.js';
import { localEventBus, workerEventOptions } from './local-events.js';
import type {
  LocalExecutor,
  LocalExecutorLocation,
  LocalExecutorOptions,
  LocalTasksLoader,
} from './local-executor-options.js';
import { integrityOptions, withIntegrityKey } from './local-integrity.js';
import { pause } from './pause.js';
import { withPayloadBucket } from './payload-bucket.js';
import { provision, provisionScheduleGroup } from './provision.js';
import {
  createSchedulePump,
  LOCAL_DELAYED_SCHEDULER_SENDER_ID,
  LOCAL_SCHEDULER_SENDER_ID,
} from './schedule-pump.js';

export type {
  LocalExecutor,
  LocalExecutorLocation,
  LocalExecutorOptions,
  LocalTasksLoader,
} from './local-executor-options.js';

/**
 * Starts a local executor: emulator, resources, worker, schedule pump and sweeper. Returns
 * once everything runs, with a ready {@link TaskClient}.
 *
 * @throws EmulatorUnavailableError when no emulator is given and moto cannot be run or installed.
 * @throws ConfigurationError listing every problem (see `TaskClient.check`) when attaching to
 *   resources that do not exist, and for an endpoint that is not on loopback (localhost,
 *   127.0.0.0/8, [::1]).
 */
export async function startLocalExecutor(options: LocalExecutorOptions): Promise<LocalExecutor> {
  const name = options.name ?? `tasklane-local-${randomBytes(4).toString('hex')}`;
  const stateDir = options.stateDir ?? STATE_DIR;
  const cleanup: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  };
  try {
    const { logger, file } = await openLog(options.log ?? 'file', stateDir, name);
    if (file !== undefined) cleanup.push(() => file.close());
    const given = options.endpoint ?? process.env.AWS_ENDPOINT_URL;
    if (given !== undefined && given !== '') assertLoopbackEndpoint(given);
    const engineFires = options.scheduleFiring === 'engine';
    let emulator: EmulatorHandle | undefined;
    if (given === undefined || given === '') {
      const engine = resolveEngine(options.engine);
      if (engineFires && engine !== 'ministack') {
        throw new ConfigurationError(
          `scheduleFiring 'engine' needs an engine that fires schedules: ${engine} does not; use engine 'ministack' or scheduleFiring 'pump'.`,
        );
      }
      await mkdir(stateDir, { recursive: true });
      emulator = await startEmulator({
        engine,
        fireSchedules: engineFires,
        log: path.join(stateDir, `${name}.${engine}.log`),
      });
      cleanup.push(() => emulator?.stop());
    }
    const endpoint = emulator?.endpoint ?? (given as string);
    const clients = emulatorClients(endpoint);
    // The pump signs as each group's role stand-in, so the worker's sender check is real.
    const pumpSqs = {
      recurring: emulatorClients(endpoint, LOCAL_SCHEDULER_SENDER_ID).sqs,
      delayed: emulatorClients(endpoint, LOCAL_DELAYED_SCHEDULER_SENDER_ID).sqs,
    };
    cleanup.push(() => {
      pumpSqs.recurring.destroy();
      pumpSqs.delayed.destroy();
      clients.sqs.destroy();
      clients.dynamodb.destroy();
      clients.scheduler.destroy();
      clients.s3.destroy();
    });
    const located = await withIntegrityKey(options, await locate(options, name, clients), {
      credentialsFrom: clients.dynamodb,
      endpoint,
    });
    const bus = await localEventBus(options.events, name, emulatorConfig(endpoint));
    if (bus !== undefined) cleanup.push(() => bus.client.destroy());
    const withBus = bus === undefined ? located : { ...located, eventBus: bus.eventBus };
    const location = await withPayloadBucket(options.payloadBucket, name, clients.s3, withBus);
    if (location.scheduleGroup !== undefined && options.location !== undefined) {
      await provisionScheduleGroup(location.scheduleGroup, clients.scheduler);
      await provisionScheduleGroup(
        location.delayedScheduleGroup ?? delayedScheduleGroupName(location.scheduleGroup),
        clients.scheduler,
      );
    }
    const integrity = integrityOptions(location, endpoint);
    const client = new TaskClient({
      ...location,
      ...clients,
      logger,
      ...integrity,
      ...options.client,
    });
    // Attached resources may be wrong; say so now, not as a worker that polls in vain.
    if (options.location !== undefined) await client.assertReady();
    const environment = executorEnvironment(endpoint, location);
    const tasks = await loadTasks(options, { location, endpoint, environment });
    const background = runInBackground(
      { ...options, tasks },
      location,
      clients,
      engineFires ? undefined : pumpSqs,
      logger,
      {
        ...integrity,
        ...(bus === undefined ? {} : { events: workerEventOptions(bus) }),
      },
    );
    cleanup.push(() => background.stop());
    return {
      client,
      location,
      endpoint,
      environment,
      emulator,
      logFile: file?.path,
      failed: background.failed,
      stop: (() => {
        let stopping: Promise<void> | undefined;
        return () => {
          stopping ??= close();
          return stopping;
        };
      })(),
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function locate(
  options: LocalExecutorOptions,
  name: string,
  clients: Clients,
): Promise<LocalExecutorLocation> {
  if (options.location !== undefined) return options.location;
  const settings = executorSettings({
    name,
    workerTimeoutSeconds: options.workerTimeoutSeconds ?? 30,
    ...(typeof options.tasks === 'function'
      ? {}
      : { maxAttempts: Math.max(1, ...options.tasks.map((t) => t.retry.maxAttempts)) }),
    ...(options.lanes === undefined ? {} : { lanes: options.lanes }),
  });
  const provisioned = await provision(settings, clients);
  return {
    tableName: provisioned.tableName,
    queueUrl: provisioned.queueUrl,
    queueArn: provisioned.queueArn,
    deadLetterQueueUrl: provisioned.deadLetterQueueUrl,
    ...(provisioned.lanes === undefined ? {} : { lanes: provisioned.lanes }),
    ...provisioned.scheduler,
  };
}

async function openLog(
  log: NonNullable<LocalExecutorOptions['log']>,
  stateDir: string,
  name: string,
): Promise<{ logger: TaskLogger; file: FileLogger | undefined }> {
  if (typeof log === 'object') return { logger: log, file: undefined };
  if (log === 'silent') return { logger: silentLogger, file: undefined };
  if (log === 'console') return { logger: defaultLogger(), file: undefined };
  await mkdir(stateDir, { recursive: true });
  const file = jsonLinesLogger(path.join(stateDir, `${name}.log`));
  return { logger: file, file };
}

/**
 * The task definitions, loaded now when given as a loader. Loaded ones are checked against
 * the queue's receive count, which was provisioned before they were known: as definitions
 * passed directly are, by the executor's settings.
 *
 * @throws ConfigurationError when a loaded task allows as many attempts as the queue allows
 *   receives.
 */
async function loadTasks(
  options: LocalExecutorOptions,
  executor: Parameters<LocalTasksLoader>[0],
): Promise<readonly TaskDefinition[]> {
  if (typeof options.tasks !== 'function') return options.tasks;
  const tasks = await options.tasks(executor);
  const receives = executorSettings({ name: 'check' }).maxReceiveCount;
  const greedy = tasks.filter((t) => t.retry.maxAttempts >= receives);
  if (options.location === undefined && greedy.length > 0) {
    throw new ConfigurationError(
      `Task types ${greedy.map((t) => `'${t.type}' (maxAttempts ${t.retry.maxAttempts})`).join(', ')} allow as many attempts as the local executor's queue allows receives (${receives}); give them fewer (a receive count must exceed every maxAttempts).`,
    );
  }
  return tasks;
}

/** The worker behind the event source mapping, the schedule pump and the sweeper loop. */
function runInBackground(
  options: LocalExecutorOptions & { readonly tasks: readonly TaskDefinition[] },
  location: LocalExecutorLocation,
  clients: Clients,
  pumpSqs: { readonly recurring: SQSClient; readonly delayed: SQSClient } | undefined,
  logger: TaskLogger,
  extra: ReturnType<typeof integrityOptions> & Pick<WorkerOptions, 'events'>,
): { failed: AbortSignal; stop(): Promise<void> } {
  const { events, ...integrity } = extra;
  const stopping = new AbortController();
  const failed = new AbortController();
  const worker = createWorker(options.tasks, {
    ...location,
    ...clients,
    ...integrity,
    logger,
    // The engine's firings all carry one sender id, so only the recurring one can be named.
    ...(pumpSqs === undefined
      ? { schedulerSenderId: MINISTACK_FIRING_SENDER_ID }
      : {
          schedulerSenderId: LOCAL_SCHEDULER_SENDER_ID,
          delayedSchedulerSenderId: LOCAL_DELAYED_SCHEDULER_SENDER_ID,
        }),
    events: events ?? false,
    // EMF on stdout once per batch would be noise locally.
    metrics: noopMetrics,
    ...options.worker,
  });
  const queues = resolveLaneQueues(location, location.queueUrl, {});
  // The emulator's mappings are disabled (deploy.ts), and `tasklane dev` has none: a paused
  // lane is seen through its control item instead (worker/lane-gate.ts).
  const laneControls = new TaskStore({
    tableName: location.tableName,
    dynamodb: clients.dynamodb,
    logger,
  }).feature(LaneControls);
  const gate = watchLanePauses({
    read: (names) => laneControls.read(names),
    lanes: queues.names(),
    periodMs: options.laneControlPeriodMs ?? 1_000,
    signal: stopping.signal,
    logger,
  });
  const mapping = gate.ready
    .then(() =>
      runLaneMappings(queues, {
        lanePaused: (lane) => gate.paused(lane),
        handler: worker.lambdaHandler,
        sqs: clients.sqs,
        signal: stopping.signal,
        logger,
        timeoutSeconds: options.workerTimeoutSeconds ?? 30,
        batchSize: options.batchSize ?? 10,
        maximumConcurrency: options.maximumConcurrency ?? 2,
        ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
        lanes: options.lanes ?? {},
      }),
    )
    .catch((err: unknown) => {
      logger.error('event source mapping stopped', { error: (err as Error).message });
      failed.abort(err);
    });
  const pump =
    location.scheduleGroup === undefined || pumpSqs === undefined
      ? Promise.resolve()
      : createSchedulePump({
          ...clients,
          sqs: pumpSqs.recurring,
          delayedSqs: pumpSqs.delayed,
          // Both roles known (always, when provisioned): a schedule naming the other group's
          // role is not delivered, as Scheduler's trust policies would refuse it.
          ...(location.schedulerRoleArn !== undefined &&
          location.delayedSchedulerRoleArn !== undefined &&
          location.delayedSchedulerRoleArn !== location.schedulerRoleArn
            ? {
                roles: {
                  recurring: location.schedulerRoleArn,
                  delayed: location.delayedSchedulerRoleArn,
                },
              }
            : {}),
          groupName: location.scheduleGroup,
          ...(location.delayedScheduleGroup === undefined
            ? {}
            : { delayedGroupName: location.delayedScheduleGroup }),
          logger,
        }).run({
          signal: stopping.signal,
          intervalMs: options.pumpIntervalMs ?? 500,
        });
  const sweeper = createSweeper({
    ...location,
    ...clients,
    ...integrity,
    logger,
    metrics: noopMetrics,
    pendingAgeMs: options.pendingAgeMs ?? 10_000,
  });
  const sweeps = repeat(options.sweepIntervalMs ?? 5_000, stopping.signal, async () => {
    try {
      await sweeper.run();
    } catch (err) {
      logger.warn('local sweeper: sweep failed', { error: (err as Error).message });
    }
  });
  return {
    failed: failed.signal,
    async stop() {
      stopping.abort();
      await Promise.all([mapping, pump, sweeps, gate.stopped]);
    },
  };
}

/** Runs `task` every `intervalMs` (after a first pause) until `signal` aborts. */
async function repeat(
  intervalMs: number,
  signal: AbortSignal,
  task: () => Promise<void>,
): Promise<void> {
  while (!signal.aborted) {
    await pause(intervalMs, signal);
    if (!signal.aborted) await task();
  }
}
