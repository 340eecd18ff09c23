/**
 * The step items of durable tasks (docs/adr/0047-durable-tasks.md). Each stored step is one
 * item of the task table, beside its task, keyed by the task, its step epoch and the step's
 * position, so that a run finds every stored step of a window of 100 positions with one
 * BatchGetItem of known keys, and the task's own item, and so its writes, stay small. A step
 * is written once, conditioned on its own absence (or on a thrown step's marker there), and
 * expires with the task's retention (plus the longest a task may still run after it). A step
 * that threw leaves a marker at its position, with no result, so that the positions a run
 * used are contiguous; a replay runs that step again.
 */

import { toObjectRef } from '../claim-check/object-ref.js';
import { Defaults, TableSchema } from '../core/constants.js';
import type { ObjectRef, StepInfo, TaskRecord } from '../core/record.js';
import type { Retention } from '../settings/retention.js';
import { getItems } from './batch-get.js';
import type { TaskItem } from './record.js';
import type { WriteContext } from './store-context.js';
import * as durable from './transitions/durable.js';
import { send } from './transitions/writer.js';

/** Positions read with one BatchGetItem: its limit of keys. */
export const STEP_WINDOW = 100;

/** Longest error name a thrown step's marker keeps. */
const MAX_ERROR_NAME_CHARS = 200;

/**
 * Whether steps may be stored past the window of `count` positions from `from` that read
 * `window`: when either of its last two positions holds one. Steps are stored in call order,
 * and a step that threw leaves its marker, so a run's positions are contiguous; one empty
 * position may still sit between stored steps (a step that threw before markers were
 * written, or whose marker's write failed; a wait the handler did not await), so only two
 * empty positions in a row at a window's end are taken as the end of the steps
 * (docs/adr/0047-durable-tasks.md).
 */
export function windowMayContinue(
  window: ReadonlyMap<number, unknown>,
  from: number,
  count: number,
): boolean {
  const last = from + count - 1;
  return window.has(last) || (count > 1 && window.has(last - 1));
}

/** A stored step: what {@link StepInfo} lists, and its result. */
export interface StoredStep extends StepInfo {
  /** The result's JSON when kept inline; undefined for a step that returned nothing. */
  readonly resultJson?: string | undefined;
  /** The result in the payload bucket, when it was larger than 4 KB. */
  readonly resultRef?: ObjectRef | undefined;
  /** A thrown step's marker: no result, and a replay runs the step again. */
  readonly threw?: true | undefined;
}

/** A step to store, as the run that called it has it. */
export interface NewStep {
  readonly taskId: string;
  readonly epoch: number;
  readonly index: number;
  readonly name: string;
  readonly attempt: number;
  readonly workerId: string;
  readonly resultJson?: string | undefined;
  readonly resultRef?: ObjectRef | undefined;
  readonly sizeBytes: number;
  /** The memo of a sleep or a signal wait (docs/adr/0048-durable-sleep-signals-pause.md); absent for a step. */
  readonly kind?: 'sleep' | 'signal' | undefined;
}

/** A thrown step's marker to store: where, and the error's name. */
export interface NewThrow {
  readonly taskId: string;
  readonly epoch: number;
  readonly index: number;
  readonly name: string;
  readonly attempt: number;
  readonly workerId: string;
  /** The thrown error's name (its class), at most 200 characters. */
  readonly errorName: string;
}

/** The key of a step item: never a task's id, which cannot hold a space. */
export function stepKey(taskId: string, epoch: number, index: number): string {
  return `step ${taskId} ${epoch} ${index}`;
}

/** The TTL of a step written at `now`: the retention, and the longest a task may still run. */
export function stepExpiry(now: number, retention: Retention): number | undefined {
  return retention === 'forever'
    ? undefined
    : Math.ceil((now + retention + Defaults.STEP_HORIZON_MS) / 1000);
}

function toStoredStep(item: TaskItem): StoredStep | undefined {
  const { name, idx, at, attempt, size } = item;
  if (typeof name !== 'string' || typeof idx !== 'number' || typeof at !== 'number') {
    return undefined;
  }
  const resultRef = toObjectRef(item.resultRef);
  return {
    index: idx,
    name,
    at,
    attempt: typeof attempt === 'number' ? attempt : 0,
    sizeBytes: typeof size === 'number' ? size : 0,
    ...(typeof item.worker === 'string' ? { workerId: item.worker } : {}),
    ...(item.kind === 'sleep' || item.kind === 'signal' ? { kind: item.kind } : {}),
    ...(item.threw === true ? { threw: true as const } : {}),
    ...(typeof item.result === 'string' ? { resultJson: item.result } : {}),
    ...(resultRef === undefined ? {} : { resultRef }),
  };
}

/** What storing a step came to. */
export type StepWrite =
  | { readonly stored: true; readonly step: StoredStep }
  /** A step was already stored at that position (another slice's, perhaps a stale one). */
  | { readonly stored: false; readonly existing: StoredStep | undefined };

/** The step items of one task table. */
export class StepStore {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * The stored steps at positions `from` to `from + count - 1` (at most 100), by position:
   * one strongly consistent BatchGetItem, so a step another slice stored is never missed.
   */
  async window(
    taskId: string,
    epoch: number,
    from: number,
    count = STEP_WINDOW,
  ): Promise<Map<number, StoredStep>> {
    const keys = Array.from({ length: Math.min(count, STEP_WINDOW) }, (_, n) =>
      stepKey(taskId, epoch, from + n),
    );
    const items = await getItems(this.ctx.doc, this.ctx.tableName, keys, { consistent: true });
    const steps = new Map<number, StoredStep>();
    for (const item of items.values()) {
      const step = toStoredStep(item);
      if (step !== undefined && item.taskId === taskId) steps.set(step.index, step);
    }
    return steps;
  }

  /**
   * Stores a step's result once: one PutItem conditioned on the item's absence, or on a
   * thrown step's marker there (a replay that ran the step again). When a step is already
   * stored at that position, nothing is written and the stored one comes back (ALL_OLD),
   * whose result is the one every slice then sees.
   */
  async store(step: NewStep): Promise<StepWrite> {
    const now = this.ctx.clock();
    const item: TaskItem = {
      ...this.positionItem(step, now),
      size: step.sizeBytes,
      ...(step.kind === undefined ? {} : { kind: step.kind }),
      ...(step.resultJson === undefined ? {} : { result: step.resultJson }),
      ...(step.resultRef === undefined ? {} : { resultRef: step.resultRef }),
    };
    const sent = await send(this.ctx, durable.storeStep, { item }, now);
    if (sent.accepted) return { stored: true, step: toStoredStep(item) as StoredStep };
    return {
      stored: false,
      existing: sent.current === undefined ? undefined : toStoredStep(sent.current),
    };
  }

  /**
   * Stores the marker of a step that threw at its position: one PutItem conditioned on the
   * item's absence, so it never replaces a result (nor another marker). It holds no result:
   * a replay runs the step again, and its result, if any, then replaces the marker. Whether
   * it landed (a refusal means the position was already taken).
   */
  async storeThrow(step: NewThrow): Promise<boolean> {
    const now = this.ctx.clock();
    const item: TaskItem = {
      ...this.positionItem(step, now),
      size: 0,
      threw: true,
      error: step.errorName.slice(0, MAX_ERROR_NAME_CHARS),
    };
    return (await send(this.ctx, durable.storeThrow, { item }, now)).accepted;
  }

  /** What a step's item and a thrown step's marker both hold: where, by whom, and expiry. */
  private positionItem(step: NewThrow | NewStep, now: number): TaskItem {
    return {
      [TableSchema.PARTITION_KEY]: stepKey(step.taskId, step.epoch, step.index),
      taskId: step.taskId,
      name: step.name,
      idx: step.index,
      at: now,
      attempt: step.attempt,
      worker: step.workerId,
      [TableSchema.TTL_ATTRIBUTE]: stepExpiry(now, this.ctx.retention),
    };
  }

  /**
   * Every stored step of `record`'s current epoch (or of `epoch`), in call order, thrown
   * steps' markers included (a purge deletes them too; {@link isResult} tells the steps that
   * returned): windows of 100 read until one shows no step can follow it
   * ({@link windowMayContinue}).
   */
  async list(
    record: Pick<TaskRecord, 'id' | 'stepEpoch'>,
    epoch = record.stepEpoch ?? 0,
  ): Promise<StoredStep[]> {
    const steps: StoredStep[] = [];
    for (let from = 0; from < Defaults.MAX_STEPS; from += STEP_WINDOW) {
      const found = await this.window(record.id, epoch, from);
      const ordered = [...found.values()].sort((a, b) => a.index - b.index);
      steps.push(...ordered);
      if (!windowMayContinue(found, from, STEP_WINDOW)) break;
    }
    return steps;
  }

  /**
   * Deletes the step items of `taskId` in epochs `0` to `lastEpoch`, one conditional
   * DeleteItem each (on the item still being this task's). For a purge, after the task's
   * own delete, and for a restarting redrive, after its write moved the task to a new
   * epoch: either way no live run reads them any more. Returns how many were deleted.
   */
  async deleteAll(taskId: string, lastEpoch: number, firstEpoch = 0): Promise<number> {
    let deleted = 0;
    for (let epoch = firstEpoch; epoch <= lastEpoch; epoch++) {
      const steps = await this.list({ id: taskId }, epoch);
      for (const step of steps) {
        const key = stepKey(taskId, epoch, step.index);
        const sent = await send(this.ctx, durable.deleteStep, { key, taskId });
        if (sent.accepted) deleted++;
      }
    }
    return deleted;
  }
}

/** Whether a stored step returned (a result, or nothing): not a thrown step's marker. */
export function isResult(step: StoredStep): boolean {
  return step.threw !== true;
}

/** What a step lists: its info without the result. */
export function stepInfo(step: StoredStep): StepInfo {
  const { resultJson: _json, resultRef: _ref, threw: _threw, ...info } = step;
  return info;
}
