/**
 * The durable part of one run (slice) of a task: its checkpoint, its memoized steps and its
 * continuation (docs/durable-tasks.md, docs/adr/0047-durable-tasks.md).
 *
 * - A checkpoint is saved with one write of the task's record, fenced by the lease, which
 *   also carries pending progress and shows a cancel request.
 * - A step's result is stored in an item of its own, written once, conditioned on its own
 *   absence: a step costs one write and no read on its first run. A slice that may find
 *   stored steps (not the task's very first) reads them 100 positions per BatchGetItem, on
 *   its first step call; one that resumes a wait reads first only the positions up to just
 *   past the wait's (step-reads.ts).
 * - A call takes its position at once, in call order, before anything is awaited: the steps
 *   of one `Promise.all` never share one, even when a beat of the lease comes first.
 * - `continue()` is a value the handler returns; the run's end writes it.
 */
import { keySegment, ObjectPrefix } from '../claim-check/object-ref.js';
import { AuditEvent, Defaults } from '../core/constants.js';
import {
  NonDeterministicError,
  TaskCancelledError,
  TaskPausedError,
  ValidationError,
} from '../core/errors.js';
import type { ObjectRef, StepInfo, TaskRecord } from '../core/record.js';
import { DurableWrites } from '../store/durable-writes.js';
import { canonicalJson } from '../store/record.js';
import { isResult, StepStore, type StoredStep, stepInfo } from '../store/steps.js';
import type { Lease, StoredCheckpoint } from '../store/task-store.js';
import { auditTask, type ProcessorDeps } from './deps.js';
import type { Heartbeat } from './heartbeat.js';
import { firstStepRead, StepReads } from './step-reads.js';

/** Longest step name accepted. */
const MAX_STEP_NAME_CHARS = 200;

/** Marks an S3 failure met while storing or reading a durable value: an outage, not a failure. */
export class DurableOutage extends Error {
  constructor(readonly cause: unknown) {
    super('payload bucket unavailable for a durable value', { cause });
  }
}

/** The key of a large checkpoint or step result: under results/, which workers may write. */
function durableKey(taskId: string, what: string): string {
  return `${ObjectPrefix.RESULTS}${keySegment(taskId)}/${what}`;
}

/** What a durable run needs of its claimed task (execution.ts's ClaimedTask satisfies it). */
export interface DurableTask {
  readonly record: TaskRecord;
  readonly lease: Lease;
  /** The handler's timeout, cut to the invocation's remaining time. */
  readonly timeoutMs: number;
  readonly remainingMs?: (() => number) | undefined;
}

/** One run's checkpoint, steps and continuation. */
export class DurableRun {
  private checkpointValue: unknown;
  private nextIndex = 0;
  /** The names called in this run, and as what (a step: undefined). */
  private readonly names = new Map<string, StoredStep['kind']>();
  /** The steps stored by earlier slices (read in windows) and by this one. */
  private readonly reads: StepReads;
  private saves = 0;
  /** Steps called and not yet settled: a suspension waits for them (durable-waits.ts). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** An error that ends the task DEAD whatever the handler does with it. */
  fatal: NonDeterministicError | ValidationError | undefined;
  /** An S3 outage met storing or reading a durable value: the claim is given back. */
  outage: unknown;

  constructor(
    private readonly task: DurableTask,
    private readonly deps: ProcessorDeps,
    private readonly heartbeat: Heartbeat,
    private readonly controller: AbortController,
    checkpoint: unknown,
  ) {
    this.checkpointValue = checkpoint;
    const { record } = task;
    // The task's first slice ever finds no step: no earlier run can have stored one. Every
    // later slice spent an attempt, continued, was redriven, was given back after it ran, or
    // comes after a suspension (docs/adr/0048-durable-sleep-signals-pause.md).
    const mayHaveSteps =
      record.attempt > 1 ||
      (record.continuations ?? 0) > 0 ||
      record.generation > 1 ||
      record.ranUnspent === true ||
      record.wait !== undefined;
    this.reads = new StepReads(
      (from, count) => deps.store.feature(StepStore).window(record.id, this.epoch, from, count),
      mayHaveSteps,
      firstStepRead(record),
    );
  }

  /** The last checkpoint saved: the one the run began with, or its own latest save. */
  get latest(): unknown {
    return this.checkpointValue;
  }

  /**
   * Throws what ended the run: a fatal error or an S3 outage it met (it then ends DEAD, or is
   * given back, whatever the handler did with the error), its timeout, a cancel or pause
   * request seen, or the lease lost. A timed-out handler keeps running in the background (JavaScript cannot
   * stop it) while its task is retried: it must start no step and save no checkpoint beside
   * the retry.
   */
  checkLive(): void {
    if (this.fatal !== undefined) throw this.fatal;
    if (this.outage !== undefined) throw new DurableOutage(this.outage);
    const { signal } = this.controller;
    if (signal.aborted) throw signal.reason;
    if (this.heartbeat.cancelled) throw new TaskCancelledError(this.task.record.id);
    if (this.heartbeat.paused) throw new TaskPausedError(this.task.record.id);
  }

  /** `ctx.saveCheckpoint`. */
  async saveCheckpoint(value: unknown): Promise<void> {
    this.checkLive();
    const json = durableJson('checkpoint', value);
    const what = `checkpoint/${this.task.lease.leaseToken}/${this.saves++}`;
    const checkpoint = await this.place(json, what, 'checkpoint');
    const { lease } = this.task;
    const expiresAt = this.heartbeat.leaseExpiresAt();
    await this.heartbeat.writeWith((progress) =>
      this.deps.store.feature(DurableWrites).saveCheckpoint(lease, expiresAt, checkpoint, progress),
    );
    this.checkpointValue = JSON.parse(json);
    this.checkLive();
  }

  /**
   * Where a JSON value goes: inline up to 4 KB, else the payload bucket.
   *
   * @throws ValidationError quoting the size when it is larger and there is no bucket.
   */
  private async place(json: string, what: string, subject: string): Promise<StoredCheckpoint> {
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes <= Defaults.MAX_INLINE_DURABLE_BYTES) return { json };
    if (this.deps.objects.bucket === undefined) {
      throw new ValidationError(subject, [
        {
          path: '',
          message: `expected at most ${Defaults.MAX_INLINE_DURABLE_BYTES} bytes of JSON without a payload bucket, received ${bytes} bytes`,
        },
      ]);
    }
    let ref: ObjectRef;
    try {
      ref = await this.deps.objects.put(durableKey(this.task.record.id, what), json);
    } catch (err) {
      this.outage = err;
      throw new DurableOutage(err);
    }
    return { ref };
  }

  /** `ctx.step`: takes its position at once, before anything is awaited. */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const running = this.runStep(name, fn);
    this.inFlight.add(running);
    const settled = () => this.inFlight.delete(running);
    running.then(settled, settled);
    return running;
  }

  /** Waits for every step called and not yet settled: a suspension ends the run after them. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Takes the run's next position for `name` (a step, or a sleep's or wait's memo): checks the
   * name, its uniqueness and the steps' limit (each fatal), sees a cancel or pause request
   * first (beating the lease when its last write is old), and returns what an earlier slice
   * stored there, after checking it was stored as the same kind under the same name.
   */
  async position(
    name: string,
    kind: StoredStep['kind'],
  ): Promise<{ readonly index: number; readonly stored: StoredStep | undefined }> {
    this.checkLive();
    const what = kind ?? 'step';
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_STEP_NAME_CHARS) {
      const received = typeof name === 'string' ? `${name.length} characters` : typeof name;
      this.fatal = new ValidationError(`${what} name`, [
        { path: '', message: `expected 1-${MAX_STEP_NAME_CHARS} characters, received ${received}` },
      ]);
      throw this.fatal;
    }
    const index = this.nextIndex;
    // Waits for one signal repeat its name: each consumes the next signal of that name. Every
    // other name is called once in a run; a position is checked by index, kind and name.
    const earlier = this.names.get(name);
    if (this.names.has(name) && !(earlier === 'signal' && kind === 'signal')) {
      this.fatal = new NonDeterministicError(
        index,
        name,
        name,
        `${what} ${JSON.stringify(name)} was called twice in one run (at step ${index}): step and sleep names must be unique within a run, and differ from the signals waited for (waits for one signal may repeat)`,
      );
      throw this.fatal;
    }
    if (index >= Defaults.MAX_STEPS) {
      this.fatal = new ValidationError('steps', [
        { path: name, message: `expected at most ${Defaults.MAX_STEPS} steps in a run` },
      ]);
      throw this.fatal;
    }
    // The position is taken now, before anything is awaited, so calls made together (one
    // Promise.all) take theirs in call order even when the beat below is due.
    this.nextIndex += 1;
    this.names.set(name, kind);
    // A step sees a cancel or pause request at most STEP_BEAT_MS after it was made.
    if (this.heartbeat.sinceLastWrite() > Defaults.STEP_BEAT_MS) await this.heartbeat.beat();
    this.checkLive();
    const stored = await this.reads.lookup(index);
    if (stored !== undefined) this.sameCall(stored, index, name, kind);
    return { index, stored };
  }

  /** A stored position must be the same kind of call under the same name: else NON_DETERMINISTIC. */
  private sameCall(stored: StoredStep, index: number, name: string, kind: StoredStep['kind']) {
    if (stored.name === name && stored.kind === kind) return;
    const as = (k: StoredStep['kind'], n: string) => `${k ?? 'step'} ${JSON.stringify(n)}`;
    this.fatal = new NonDeterministicError(
      index,
      stored.name,
      name,
      stored.kind === kind
        ? undefined
        : `step ${index} was stored as ${as(stored.kind, stored.name)}, but this run called ${as(kind, name)}: steps, sleeps and waits must be called in the same order with the same names on every run`,
    );
    throw this.fatal;
  }

  /**
   * Stores the memo of a sleep or wait at `index` (its JSON, at most 4 KB), written once as a
   * step's result is. Another slice's memo stored first wins: it is returned instead.
   */
  async memo(
    index: number,
    name: string,
    kind: 'sleep' | 'signal',
    json: string,
  ): Promise<StoredStep> {
    const { record, lease } = this.task;
    const written = await this.deps.store.feature(StepStore).store({
      taskId: record.id,
      epoch: this.epoch,
      index,
      name,
      kind,
      attempt: lease.attempt,
      workerId: this.deps.workerId,
      resultJson: json,
      sizeBytes: Buffer.byteLength(json, 'utf8'),
    });
    if (!written.stored) {
      if (written.existing === undefined) throw new Error(`step ${index} refused without its item`);
      this.sameCall(written.existing, index, name, kind);
      this.reads.set(index, written.existing);
      return written.existing;
    }
    this.reads.set(index, written.step);
    auditTask(
      this.deps,
      record,
      AuditEvent.STEP_STORED,
      `${kind} ${index} ${JSON.stringify(name)} stored (${written.step.sizeBytes} bytes)`,
      lease.attempt,
    );
    return written.step;
  }

  /** The memos of `kind` stored (or read) at positions below `index`, in order. */
  memosBefore(index: number, kind: 'sleep' | 'signal'): StoredStep[] {
    return this.reads.all().filter((step) => step.index < index && step.kind === kind);
  }

  private async runStep<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const { index, stored } = await this.position(name, undefined);
    // A thrown step's marker memoizes nothing: the step runs again.
    if (stored !== undefined && isResult(stored)) return this.replayed(stored);
    let value: T;
    try {
      // A child span of the attempt's when it is traced (src/worker/attempt-span.ts).
      value = await (this.deps.traceStep?.(name, fn) ?? fn());
    } catch (err) {
      if (stored === undefined) await this.storeThrow(index, name, err);
      throw err;
    }
    const json = value === undefined ? undefined : durableJsonOrFatal(this, name, value);
    const placed = json === undefined ? undefined : await this.placeResult(json, index, name);
    const { record, lease } = this.task;
    const written = await this.deps.store.feature(StepStore).store({
      taskId: record.id,
      epoch: this.epoch,
      index,
      name,
      attempt: lease.attempt,
      workerId: this.deps.workerId,
      resultJson: placed?.json,
      resultRef: placed?.ref,
      sizeBytes: json === undefined ? 0 : Buffer.byteLength(json, 'utf8'),
    });
    if (!written.stored) {
      // Another slice stored this position first: its result is the one every slice sees.
      if (written.existing === undefined) throw new Error(`step ${index} refused without its item`);
      this.sameCall(written.existing, index, name, undefined);
      this.reads.set(index, written.existing);
      return this.replayed(written.existing);
    }
    this.reads.set(index, written.step);
    auditTask(
      this.deps,
      record,
      AuditEvent.STEP_STORED,
      `step ${index} ${JSON.stringify(name)} stored (${written.step.sizeBytes} bytes)`,
      lease.attempt,
    );
    return (json === undefined ? undefined : JSON.parse(json)) as T;
  }

  /**
   * Stores the marker of a step whose function threw, at its position (one write), so that
   * the run's positions stay contiguous: a replay reads past it and runs the step again. A
   * position already taken (another slice's result or marker) is left as it is. The error
   * then takes its usual course; a failed write of the marker is thrown instead, as a failed
   * write of a result is.
   */
  private async storeThrow(index: number, name: string, err: unknown): Promise<void> {
    const { record, lease } = this.task;
    await this.deps.store.feature(StepStore).storeThrow({
      taskId: record.id,
      epoch: this.epoch,
      index,
      name,
      attempt: lease.attempt,
      workerId: this.deps.workerId,
      errorName: err instanceof Error ? err.name : typeof err,
    });
  }

  /** Where a step's result goes; one too large for anywhere ends the task DEAD. */
  private async placeResult(json: string, index: number, name: string) {
    const what = `step/${this.epoch}/${index}/${this.task.lease.leaseToken}`;
    try {
      return await this.place(json, what, `result of step ${JSON.stringify(name)}`);
    } catch (err) {
      if (err instanceof ValidationError) this.fatal = err;
      throw err;
    }
  }

  /** The task's step epoch (docs/adr/0047-durable-tasks.md). */
  get epoch(): number {
    return this.task.record.stepEpoch ?? 0;
  }

  /** A stored step's result (its name and kind already checked). */
  private async replayed<T>(stored: StoredStep): Promise<T> {
    if (stored.resultRef !== undefined) return JSON.parse(await this.read(stored.resultRef)) as T;
    return (stored.resultJson === undefined ? undefined : JSON.parse(stored.resultJson)) as T;
  }

  /** An object of the payload bucket; a failure is an outage, which gives the claim back. */
  async read(ref: ObjectRef): Promise<string> {
    try {
      return await this.deps.objects.read(ref);
    } catch (err) {
      this.outage = err;
      throw new DurableOutage(err);
    }
  }

  /** `ctx.steps`: every stored step, those read or stored, after reading what is left. */
  async steps(): Promise<readonly StepInfo[]> {
    await this.reads.lookup(Number.MAX_SAFE_INTEGER);
    return this.reads.all().filter(isResult).map(stepInfo);
  }
}

/** The JSON of a durable value. @throws ValidationError when it is not JSON. */
function durableJson(subject: string, value: unknown): string {
  let json: string | undefined;
  try {
    json = canonicalJson(value);
  } catch (err) {
    throw new ValidationError(subject, [
      {
        path: '',
        message: `expected a JSON value, received one JSON cannot hold (${(err as Error).message})`,
      },
    ]);
  }
  if (json === undefined) {
    throw new ValidationError(subject, [
      { path: '', message: `expected a JSON value, received ${typeof value}` },
    ]);
  }
  return json;
}

/** A step result's JSON; a result that is not JSON ends the task DEAD (its effect happened). */
function durableJsonOrFatal(run: DurableRun, name: string, value: unknown): string {
  try {
    return durableJson(`result of step ${JSON.stringify(name)}`, value);
  } catch (err) {
    if (err instanceof ValidationError) run.fatal = err;
    throw err;
  }
}
