/**
 * The bodies of the TaskClient methods that are more than a call: each wires what its
 * module needs from the client's parts (an operator action with the principal it is
 * recorded as, docs/adr/0039-operator-audit.md) and calls that module, a table call guarded
 * by onTable. The class keeps the public surface and its documentation; this module, the
 * wiring behind it, as client-parts.ts wires the parts themselves.
 */

import { Defaults } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { PauseStore } from '../store/pauses.js';
import { openTableStream } from '../store/table-stream.js';
import type { StatusIndex } from '../store/task-store.js';
import type { CancelDeps } from './cancel.js';
import type { ClientParts } from './client-parts.js';
import { onTable } from './guarded-calls.js';
import type { LanePauseDeps } from './lane-pause.js';
import { type ReleaseKeyOptions, type ReleaseKeyResult, releaseParkedKey } from './parked-keys.js';
import { type KeyPauseResult, type PauseDeps, pauseKey, pauseTask, resumeTask } from './pause.js';
import { type PurgeOptions, type PurgeResult, purgeTasks } from './purge.js';
import {
  type RedriveOptions,
  type RedriveResult,
  type RedriveSelection,
  redriveDead,
} from './redrive.js';
import { type SignalOptions, type SignalResult, sendSignal, sendWithToken } from './signal.js';
import { assertTaskId } from './task-ids.js';
import { type TaskTransition, type WatchOptions, watchTransitions } from './watch.js';

/** What the operations are wired from: the client's parts, and the client's own methods. */
export interface ClientView {
  readonly parts: ClientParts;
  /** The client's `principal()`: who its operator actions are recorded as. */
  readonly principal: () => Promise<string>;
  /** The client's `get()`: a task's record, with its claim-checked result. */
  readonly get: (id: string) => Promise<TaskRecord | undefined>;
}

/** The body of `TaskClient.redrive`. */
export async function redrive(
  view: ClientView,
  selection: RedriveSelection,
  options: RedriveOptions,
): Promise<RedriveResult> {
  const {
    store,
    dispatcher,
    sqs,
    deadLetterQueueUrl,
    queueUrl: workQueueUrl,
    lanes,
    logger,
  } = view.parts;
  const principal = await view.principal();
  const deps = {
    store,
    dispatcher,
    sqs,
    deadLetterQueueUrl,
    workQueueUrl,
    lanes,
    logger,
    principal,
  };
  return redriveDead(selection, deps, options);
}

/** The body of `TaskClient.releaseKey`. */
export async function releaseKey(
  view: ClientView,
  orderingKey: string,
  options: ReleaseKeyOptions | undefined,
): Promise<ReleaseKeyResult> {
  const { store, sqs, queueUrl: workQueueUrl, lanes, logger } = view.parts;
  const deps = { store, sqs, workQueueUrl, lanes, logger, principal: await view.principal() };
  return releaseParkedKey(orderingKey, deps, options);
}

/** The body of `TaskClient.purge`. */
export async function purge(view: ClientView, options: PurgeOptions): Promise<PurgeResult> {
  const { parts } = view;
  const principal = options.dryRun === true ? undefined : await view.principal();
  return onTable(parts.tableCall, () =>
    purgeTasks(
      {
        store: parts.store,
        dispatcher: parts.dispatcher,
        logger: parts.logger,
        queues: {
          sqs: parts.sqs,
          workQueueUrl: parts.queueUrl,
          lanes: parts.lanes,
        },
      },
      options,
      parts.clock(),
      principal,
    ),
  );
}

/** The body of `TaskClient.watch`. */
export function watch(parts: ClientParts, options: WatchOptions): AsyncGenerator<TaskTransition> {
  if (options.taskId !== undefined) assertTaskId(options.taskId, 'watch', 'taskId');
  const { tableCall, store, clock, dynamodbStreams } = parts;
  return watchTransitions(
    {
      get: (id) => onTable(tableCall, () => store.get(id)),
      openStream: (start) =>
        onTable(tableCall, () =>
          openTableStream({ ...tableCall, streams: dynamodbStreams, start, clock }),
        ),
      clock,
    },
    options,
  );
}

/** The body of `TaskClient.signal`. */
export async function signal(
  parts: ClientParts,
  id: string,
  name: string,
  data: unknown,
  options: SignalOptions,
): Promise<SignalResult> {
  assertTaskId(id, 'signal');
  const { store, waker, objects, logger, clock, tableCall } = parts;
  const maxSignalBytes = Defaults.MAX_SIGNAL_BYTES;
  return onTable(tableCall, () =>
    sendSignal(id, name, data, options, { store, waker, objects, maxSignalBytes, logger, clock }),
  );
}

/** The body of `TaskClient.signalWithToken`. */
export async function signalWithToken(
  parts: ClientParts,
  token: string,
  data: unknown,
  options: SignalOptions,
): Promise<SignalResult> {
  const { store, waker, objects, logger, clock, tableCall, enqueue } = parts;
  const deps = {
    store,
    waker,
    objects,
    maxSignalBytes: Defaults.MAX_SIGNAL_BYTES,
    logger,
    clock,
    integrity: enqueue.integrity,
  };
  return onTable(tableCall, () => sendWithToken(token, data, options, deps));
}

/** The body of `TaskClient.pause`. */
export async function pause(
  view: ClientView,
  target: string | { readonly orderingKey: string },
  reason: string | undefined,
): Promise<TaskRecord | KeyPauseResult> {
  if (typeof target === 'object' && target !== null) {
    const deps = { ...(await pauseDeps(view)), index: view.parts.index };
    return onTable(view.parts.tableCall, () => pauseKey(target.orderingKey, 'pause', reason, deps));
  }
  assertTaskId(target, 'pause');
  const deps = await pauseDeps(view);
  return onTable(view.parts.tableCall, () => pauseTask(target, reason, deps));
}

/** The body of `TaskClient.resume`. */
export async function resume(
  view: ClientView,
  target: string | { readonly orderingKey: string },
): Promise<TaskRecord | KeyPauseResult> {
  if (typeof target === 'object' && target !== null) {
    const deps = { ...(await pauseDeps(view)), index: view.parts.index };
    return onTable(view.parts.tableCall, () =>
      pauseKey(target.orderingKey, 'resume', undefined, deps),
    );
  }
  assertTaskId(target, 'resume');
  const deps = await pauseDeps(view);
  return onTable(view.parts.tableCall, () => resumeTask(target, deps));
}

/** What `pauseLane` and `resumeLane` need. */
export function laneDeps(view: ClientView): LanePauseDeps {
  const { store, lanes, sqs, laneMappings, logger, clock } = view.parts;
  const principal = () => view.principal();
  return { store, lanes, sqs, mappings: () => laneMappings, logger, clock, principal };
}

/** What a pause or a resume needs. */
export async function pauseDeps(view: ClientView): Promise<PauseDeps> {
  const { store, waker, wakes, delayed, logger, clock } = view.parts;
  const principal = await view.principal();
  const pauses = store.feature(PauseStore);
  const get = (id: string) => view.get(id);
  return { store, pauses, waker, wakes, delayed, logger, clock, principal, get };
}

/** What `cancelTask` and `cancelMany` need. */
export async function cancelDeps(
  view: ClientView,
): Promise<CancelDeps & { readonly index: StatusIndex }> {
  const { store, delayed, logger, index, dispatcher, waker, wakes } = view.parts;
  const principal = await view.principal();
  const get = (id: string) => view.get(id);
  return { store, delayed, logger, index, dispatcher, get, principal, waker, wakes };
}
