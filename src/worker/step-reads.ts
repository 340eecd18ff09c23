/**
 * The stored steps a durable run reads (docs/adr/0047-durable-tasks.md): windows of known
 * positions, one BatchGetItem each, read in order and one at a time, until a window shows
 * that no step can be stored past it ({@link windowMayContinue}).
 */

import type { TaskRecord } from '../core/record.js';
import { STEP_WINDOW, type StoredStep, windowMayContinue } from '../store/steps.js';

/** Reads one window of a task's stored steps (StepStore.window, bound to the task). */
export type ReadWindow = (from: number, count: number) => Promise<Map<number, StoredStep>>;

/** A run's stored steps: those read, and those it stored. */
export class StepReads {
  private readonly known = new Map<number, StoredStep>();
  /** Positions below this have been read (or cannot have been stored by an earlier run). */
  private readUpTo = 0;
  /** No stored step lies at or beyond {@link readUpTo}. */
  private exhausted: boolean;
  /** The window being read: calls made together wait for it rather than read it again. */
  private reading: Promise<void> | undefined;

  /**
   * @param mayHaveSteps false for the task's first slice ever: nothing to read.
   * @param firstRead how many positions the first read covers ({@link firstStepRead}).
   */
  constructor(
    private readonly readWindow: ReadWindow,
    mayHaveSteps: boolean,
    private readonly firstRead: number,
  ) {
    this.exhausted = !mayHaveSteps;
  }

  /** Keeps a step this run stored (or found stored as it wrote). */
  set(index: number, step: StoredStep): void {
    this.known.set(index, step);
  }

  /** Every step known, in position order. */
  all(): StoredStep[] {
    return [...this.known.values()].sort((a, b) => a.index - b.index);
  }

  /**
   * The step stored at `index` by an earlier slice, reading windows up to it when not yet
   * read. A window ends the steps only when its last two positions are both empty: a step
   * that threw is not stored, so one gap says nothing of the positions after it. A smaller
   * first read (a woken slice's, {@link firstStepRead}) ends at the wait's memo and the
   * position after it under the same rule; reading goes on from there in full windows.
   */
  async lookup(index: number): Promise<StoredStep | undefined> {
    while (index >= this.readUpTo && !this.exhausted) {
      if (this.reading === undefined) {
        this.reading = this.readNext().finally(() => {
          this.reading = undefined;
        });
      }
      await this.reading;
    }
    return this.known.get(index);
  }

  private async readNext(): Promise<void> {
    const from = this.readUpTo;
    const count = from === 0 ? this.firstRead : STEP_WINDOW;
    const window = await this.readWindow(from, count);
    for (const [at, step] of window) if (!this.known.has(at)) this.known.set(at, step);
    this.readUpTo = from + count;
    if (!windowMayContinue(window, from, count)) this.exhausted = true;
  }
}

/**
 * How many positions a slice's first read of its steps covers. A slice that resumes a wait
 * (its record keeps the wait, in the current step epoch) replays the positions before it,
 * which were stored, and the wait's own, whose memo may be (a sleep or a wait that ended is
 * memoized as it returns); one more, after it, shows whether any run stored a step past the
 * wait. Every other slice reads a full window of 100, as the record bounds nothing.
 */
export function firstStepRead(record: Pick<TaskRecord, 'wait' | 'stepEpoch'>): number {
  const { wait } = record;
  if (wait === undefined || wait.epoch !== (record.stepEpoch ?? 0)) return STEP_WINDOW;
  if (!Number.isInteger(wait.step) || wait.step < 0) return STEP_WINDOW;
  return Math.min(STEP_WINDOW, wait.step + 2);
}
