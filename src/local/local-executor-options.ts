/**
 * The shapes of `startLocalExecutor`: its options, the location it runs against, and the
 * running executor it returns.
 */
import type { TaskClientOptions } from '../client/options.js';
import type { TaskClient } from '../client/task-client.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneProps } from '../settings/lanes.js';
import type { ExecutorLocation } from '../settings/location.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import type { WorkerOptions } from '../worker/create-worker.js';
import type { BatchSummary } from '../worker/sqs-poller.js';
import type { EmulatorHandle } from './emulator.js';
import type { EmulatorEngine } from './emulator-engine.js';
import type { LocalEventsOption } from './local-events.js';

/** Where a local executor's resources are: enough for a TaskClient, a worker or a sweeper. */
export interface LocalExecutorLocation extends ExecutorLocation {
  readonly tableName: string;
  readonly queueUrl: string;
  /** The dead-letter queue, when known (always, when provisioned). */
  readonly deadLetterQueueUrl?: string | undefined;
  /** The integrity tag's HMAC key, when integrity is on (see `integrity`). */
  readonly integrity?: { readonly keyId: string } | undefined;
  /** The EventBridge bus lifecycle events go to, when `events` is on. */
  readonly eventBus?: string | undefined;
}

/**
 * Loads the task definitions once the executor's resources exist: for a module that builds
 * a `TaskClient` when it is loaded, which then needs the executor's environment first.
 */
export type LocalTasksLoader = (executor: {
  readonly location: LocalExecutorLocation;
  readonly endpoint: string;
  /** What another process needs to use the executor; see {@link LocalExecutor.environment}. */
  readonly environment: Readonly<Record<string, string>>;
}) => Promise<readonly TaskDefinition[]>;

/** Options of `startLocalExecutor`. */
export interface LocalExecutorOptions {
  /**
   * The task definitions the worker runs, or a function that loads them once the resources
   * exist (provisioned with the default `maxAttempts` bound then, 3 of at most 49).
   */
  readonly tasks: readonly TaskDefinition[] | LocalTasksLoader;
  /**
   * The emulator to use. @default `AWS_ENDPOINT_URL`, else a `moto_server` started for this
   * executor (installed into `.tasklane/venv` first when missing) and stopped by `stop()`
   */
  readonly endpoint?: string;
  /**
   * The engine to start when no `endpoint` is given: moto behind the correcting harness, or
   * MiniStack (docs/emulator.md compares them). @default `TASKLANE_EMULATOR`, else 'moto'
   */
  readonly engine?: EmulatorEngine;
  /**
   * Who fires EventBridge Scheduler schedules: `'pump'`, the local stand-in, which signs each
   * schedule group's deliveries with its own sender id; or `'engine'`, MiniStack's own firing
   * (every 10 s), which stamps every firing `AROAEXAMPLE` and does not substitute
   * `<aws.scheduler.scheduled-time>`, so recurring firings are refused by the worker
   * (docs/emulator.md, "What only a firing engine shows"). `'engine'` needs MiniStack.
   * @default 'pump'
   */
  readonly scheduleFiring?: 'pump' | 'engine';
  /** Resource name prefix when provisioning. @default `tasklane-local-<random>` */
  readonly name?: string;
  /**
   * Existing resources to attach to instead of provisioning, e.g.
   * `locationFromStackOutputs(outputs)` of a stack deployed into the emulator. Attaching
   * changes nothing it did not create: its schedule groups are created only when missing
   * (moto's CloudFormation skips Scheduler resources), and an existing group keeps its
   * schedules.
   */
  readonly location?: LocalExecutorLocation;
  /**
   * Where the audit log goes: `'file'` writes JSON lines to `.tasklane/<name>.log`, `'console'`
   * is the default Powertools logger on stdout (about five lines per task), `'silent'` drops
   * it, or any TaskLogger. @default 'file'
   */
  readonly log?: 'file' | 'console' | 'silent' | TaskLogger;
  /** Directory of the log files and the emulator's virtual environment. @default '.tasklane' */
  readonly stateDir?: string;
  /** The worker's timeout, as the construct's `workerTimeoutSeconds`. @default 30 */
  readonly workerTimeoutSeconds?: number;
  /** Messages per invocation. @default 10 */
  readonly batchSize?: number;
  /** Concurrent invocations, as the mapping's maximum concurrency. @default 2 */
  readonly maximumConcurrency?: number;
  /**
   * Lanes, as the construct's `lanes` (docs/lanes.md): each gets its own queue and DLQ and
   * its own poller (the stand-in for its event source mapping), honouring its
   * `maxConcurrency` (default `maximumConcurrency`) and `batchSize` (default `batchSize`).
   * With `location`, only the lanes' settings are taken from here, by lane name.
   * @default no lanes
   */
  readonly lanes?: Readonly<Record<string, LaneProps>>;
  /**
   * How often the lanes' pollers read the lanes' control items, to stop receiving while a
   * lane is paused (`tasklane pause --lane`, `TaskClient.pauseLane`), as a paused lane's
   * event source mapping is disabled in AWS. @default 1000
   */
  readonly laneControlPeriodMs?: number;
  /** How often the schedule pump delivers due schedules. @default 500 */
  readonly pumpIntervalMs?: number;
  /** How often the sweeper runs (every minute in AWS). @default 5000 */
  readonly sweepIntervalMs?: number;
  /** A PENDING task this old is sent by the sweeper. @default 10000 */
  readonly pendingAgeMs?: number;
  /** More TaskClient options, e.g. `scheduleThresholdMs`. */
  readonly client?: Partial<TaskClientOptions>;
  /** More worker options, e.g. `leaseGraceMs`. */
  readonly worker?: Partial<WorkerOptions>;
  /**
   * Tag tasks and verify the tags (docs/security.md): creates an HMAC_256 key in the
   * emulator's KMS, unless `location.integrity` names one. @default false
   */
  readonly integrity?: boolean;
  /**
   * Create the claim-check bucket in the emulator (`<name>-payloads`, with the construct's
   * lifecycle rules), unless `location.payloadBucket` names one: large payloads and results
   * then go to S3 (docs/large-payloads.md). @default false
   */
  readonly payloadBucket?: boolean;
  /**
   * Publish lifecycle events (docs/events.md) to the emulator's EventBridge: `true` uses a
   * bus named after the executor, `{ eventBus }` that bus; either is created when missing.
   * The source is `tasklane.<name>`. @default false
   */
  readonly events?: LocalEventsOption;
  /** Called after every invocation of the worker. */
  readonly onBatch?: (summary: BatchSummary) => void;
}

/** A running local executor; see `startLocalExecutor`. */
export interface LocalExecutor {
  /** A ready client for the executor, scheduling included. */
  readonly client: TaskClient;
  readonly location: LocalExecutorLocation;
  /** The emulator's URL. */
  readonly endpoint: string;
  /**
   * Every variable another process (a shell, your app, `tasklane`) needs to use this executor:
   * the emulator's endpoint, region and dummy credentials, and the `TASKLANE_*` location.
   */
  readonly environment: Readonly<Record<string, string>>;
  /** The emulator started for this executor; undefined when it used one already running. */
  readonly emulator: EmulatorHandle | undefined;
  /** The audit log file, when `log` is `'file'`. */
  readonly logFile: string | undefined;
  /** Aborts, with the reason, if the worker's event source mapping dies. */
  readonly failed: AbortSignal;
  /**
   * Stops the worker (batches in progress finish), the pump and the sweeper, closes the
   * clients and the log, and stops the emulator it started. Safe to call more than once.
   */
  stop(): Promise<void>;
}
