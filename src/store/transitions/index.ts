/**
 * The transition table: every conditional write of the task store, one row each
 * (docs/design.md draws the lifecycle from it). A row states the task statuses it may start
 * from, what else fences it (the lease, the attempt and generation the caller read), and the
 * attributes it may change. `writer.ts` sends every row, and is the one place that writes a
 * condition into a request and reads DynamoDB's refusal of it; `move.ts` builds a move's
 * write (its history entry and index filing) for it.
 */
import * as debounce from './debounce.js';
import * as dependencies from './dependencies.js';
import * as durable from './durable.js';
import * as lanes from './lanes.js';
import * as lifecycle from './lifecycle.js';
import * as parking from './parking.js';
import * as pausing from './pausing.js';
import * as rate from './rate.js';
import * as records from './records.js';
import * as repairs from './repairs.js';
import type { Row } from './row.js';
import * as signals from './signals.js';
import * as suspension from './suspension.js';

export type { Lease, Row, Seen, SeenHistory, Transition, Write } from './row.js';
export {
  debounce,
  dependencies,
  durable,
  lanes,
  lifecycle,
  parking,
  pausing,
  rate,
  records,
  repairs,
  signals,
  suspension,
};

/** Every row of the table, in lifecycle order: creation, the run, its repairs, the rest. */
export const ALL_TRANSITIONS: readonly Row[] = [
  records.create,
  lifecycle.claim,
  lifecycle.extendLease,
  lifecycle.complete,
  lifecycle.retry,
  lifecycle.kill,
  parking.killAndPark,
  lifecycle.unclaim,
  lifecycle.expire,
  parking.expireAndPark,
  lifecycle.cancelRunning,
  repairs.cancel,
  repairs.requeue,
  repairs.resend,
  repairs.redrive,
  parking.redriveParked,
  parking.releaseKey,
  repairs.rollback,
  dependencies.releaseWaiting,
  dependencies.cancelWaiting,
  records.purge,
  records.confirmSchedule,
  records.noteDuplicate,
  records.noteResent,
  records.requestCancel,
  dependencies.addDependent,
  dependencies.countParent,
  dependencies.finishRelease,
  debounce.fold,
  debounce.advancePointer,
  parking.stillParkedCheck,
  parking.writeParkItem,
  parking.deleteParkItem,
  rate.takeIdle,
  rate.takeBooked,
  rate.queueFirst,
  rate.queueNext,
  durable.saveCheckpoint,
  durable.continueRun,
  durable.redriveAfresh,
  durable.redriveParkedAfresh,
  durable.storeStep,
  durable.storeThrow,
  durable.deleteStep,
  suspension.suspend,
  suspension.noteHold,
  suspension.noteWake,
  suspension.noteSignalWake,
  signals.checkSignalled,
  signals.checkSignalWaiter,
  signals.checkSignalSleeper,
  signals.countSignal,
  signals.unfileSignalHead,
  signals.storeSignal,
  signals.deleteSignal,
  pausing.pause,
  pausing.requestPause,
  pausing.withdrawPause,
  suspension.pauseRunning,
  pausing.resume,
  pausing.resumeScheduled,
  pausing.resumeSuspended,
  lanes.pauseLane,
  lanes.resumeLane,
] as Row[];
