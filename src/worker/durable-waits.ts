/**
 * Durable sleep and signal waits, the part of a run that suspends it
 * (docs/durable-tasks.md, docs/adr/0048-durable-sleep-signals-pause.md).
 *
 * - A sleep or a wait takes a position among the run's steps, and is memoized there: its memo
 *   (the sleep's end; the signal it consumed, or its timeout) is a step item, written once.
 * - When it must wait, the run ends: the suspension is one write of the task's record, fenced
 *   by the lease (and, for a wait, by the count of signals the run looked at, so a signal that
 *   came meanwhile is read, never slept past), and the handler's promise is left unsettled.
 *   The record keeps what the task waits for, and the next slice, woken by its timer or its
 *   signal, replays to the same position and finds it there.
 * - The task's message is held (an ordering key's task, whose message holds the key, or a
 *   short timer, which the message's visibility carries) or released (acknowledged; a
 *   one-time schedule wakes it, or its signal's sender does).
 * - Waits are resolved one at a time, so two waits of one name never consume one signal.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { TaskStatus } from '../core/constants.js';
import { ConfigurationError, LeaseLostError, ValidationError } from '../core/errors.js';
import type { TaskRecord, TaskWait } from '../core/record.js';
import { makeSignalToken } from '../integrity/signal-token.js';
import { DurableWrites } from '../store/durable-writes.js';
import { SignalStore } from '../store/signals.js';
import type { StoredStep } from '../store/steps.js';
import type { MessageKeeping } from '../store/task-store.js';
import type { SignalOutcome, WaitForSignalOptions } from '../tasks/durable.js';
import { validateWith } from '../tasks/task-definition.js';
import type { ProcessorDeps } from './deps.js';
import type { DurableRun, DurableTask } from './durable-run.js';
import { SignalReader } from './durable-signals.js';
import type { Heartbeat } from './heartbeat.js';
import { sentAt } from './hold-budget.js';
import type { ParkMessage } from './parked.js';

/** How a run that suspended (or tried to) ended, for the executor to finish. */
export type SliceEnding =
  /** SUSPENDED: the record as written, and how its message is kept. */
  | {
      readonly kind: 'suspended';
      readonly record: TaskRecord;
      readonly keeping: MessageKeeping;
      readonly wait: TaskWait;
    }
  /** Refused for a pause request: the run ends PAUSED, to resume to this wait. */
  | { readonly kind: 'pause'; readonly wait: TaskWait }
  /** Refused for a cancel request: the run ends CANCELLED. */
  | { readonly kind: 'cancel' }
  /** Refused: the lease was lost. */
  | { readonly kind: 'lost' };

/** What the waits need of the claimed task: the durable run's, and its message. */
export interface WaitingTask extends DurableTask {
  readonly message: ParkMessage;
}

/** A memo of a wait: the signal it consumed, or its timeout. */
type WaitMemo = { readonly received: true; readonly seq: number } | { readonly received: false };

/** A promise that never settles: the handler's call stays pending while its run ends. */
function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** One run's sleeps and signal waits. */
export class DurableWaits {
  /** Set once the run must end because it suspended (or tried to). */
  ending: SliceEnding | undefined;
  /** Resolves when {@link ending} is set: the executor stops waiting for the handler. */
  readonly ended: Promise<void>;
  private end: () => void = () => undefined;
  /** Waits resolve one at a time (see the module's comment). */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly signals: SignalReader;

  constructor(
    private readonly run: DurableRun,
    private readonly task: WaitingTask,
    private readonly deps: ProcessorDeps,
    private readonly heartbeat: Heartbeat,
  ) {
    this.ended = new Promise<void>((resolve) => {
      this.end = resolve;
    });
    this.signals = new SignalReader(
      task.record,
      run.epoch,
      deps.store.feature(SignalStore),
      (ref) => run.read(ref),
    );
  }

  /** `ctx.sleep`: one wait at a time. */
  sleep(name: string, duration: number | Date): Promise<void> {
    return this.serial(() => this.sleepAt(name, duration));
  }

  /** `ctx.waitForSignal`: one wait at a time. */
  waitForSignal(name: string, options?: WaitForSignalOptions): Promise<SignalOutcome<unknown>> {
    return this.serial(() => this.waitAt(name, options ?? {}));
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async sleepAt(name: string, duration: number | Date): Promise<void> {
    const { index, stored } = await this.run.position(name, 'sleep');
    if (stored !== undefined) return;
    const now = this.deps.clock();
    const until = this.pendingWait(index, name, 'sleep')?.until ?? this.sleepEnd(duration, now);
    this.withinRetention(until, `sleep ${JSON.stringify(name)}`);
    if (until <= now) {
      await this.run.memo(index, name, 'sleep', JSON.stringify({ until }));
      return;
    }
    return this.suspend({ kind: 'sleep', step: index, name, epoch: this.run.epoch, until });
  }

  private async waitAt(
    name: string,
    options: WaitForSignalOptions,
  ): Promise<SignalOutcome<unknown>> {
    const timeoutMs = this.timeoutOf(options.timeoutMs);
    const { index, stored } = await this.run.position(name, 'signal');
    if (stored !== undefined) return this.outcome(stored, name, options.schema);
    const pending = this.pendingWait(index, name, 'signal');
    const deadline =
      pending !== undefined
        ? pending.until
        : timeoutMs === undefined
          ? undefined
          : this.deps.clock() + timeoutMs;
    if (deadline !== undefined) this.withinRetention(deadline, `wait for ${JSON.stringify(name)}`);
    // The count an earlier wait of this run read may be behind: before it times out or
    // suspends on it, the wait reads the head once more.
    let fresh = !this.signals.read;
    for (;;) {
      const consumed = new Set(
        this.run.memosBefore(index, 'signal').flatMap((memo) => {
          const parsed = parseMemo(memo);
          return parsed.received ? [parsed.seq] : [];
        }),
      );
      const found = await this.signals.first(name, consumed);
      if (found === undefined && !fresh) {
        fresh = true;
        if (await this.signals.refresh()) continue;
      }
      const timedOut = deadline !== undefined && deadline <= this.deps.clock();
      if (found !== undefined || timedOut) {
        const memo: WaitMemo =
          found === undefined ? { received: false } : { received: true, seq: found.seq };
        const written = await this.run.memo(index, name, 'signal', JSON.stringify(memo));
        return this.outcome(written, name, options.schema);
      }
      const wait: TaskWait = {
        kind: 'signal',
        step: index,
        name,
        epoch: this.run.epoch,
        ...(deadline === undefined ? {} : { until: deadline }),
        signalsSeen: this.signals.count,
      };
      const seen = await this.trySuspend(wait);
      // A signal came since the run looked: it is read before waiting again.
      if (seen === undefined) return never();
      this.signals.count = seen;
    }
  }

  /** What a wait's memo says: the consumed signal's data (checked by `schema`), or a timeout. */
  private async outcome(
    memo: StoredStep,
    name: string,
    schema: StandardSchemaV1 | undefined,
  ): Promise<SignalOutcome<unknown>> {
    const parsed = parseMemo(memo);
    if (!parsed.received) return { received: false };
    const signal = await this.signals.get(parsed.seq);
    if (signal === undefined) {
      this.run.fatal = new ValidationError(`wait for signal ${JSON.stringify(name)}`, [
        {
          path: '',
          message: `expected signal ${parsed.seq}, which step ${memo.index} consumed, to be stored; it is gone (expired or purged)`,
        },
      ]);
      throw this.run.fatal;
    }
    const data = await this.signals.data(signal);
    if (schema === undefined) return { received: true, data };
    const subject = `data of signal ${JSON.stringify(name)} (signal ${parsed.seq})`;
    return { received: true, data: await validateWith(schema, data, subject) };
  }

  /** The task's pending wait at `index`, as an earlier slice suspended on it; else undefined. */
  private pendingWait(index: number, name: string, kind: TaskWait['kind']): TaskWait | undefined {
    const wait = this.task.record.wait;
    const same =
      wait !== undefined &&
      wait.step === index &&
      wait.name === name &&
      wait.kind === kind &&
      wait.epoch === this.run.epoch;
    return same ? wait : undefined;
  }

  /** The end of a sleep of `duration` from `now`. A bad one ends the task DEAD. */
  private sleepEnd(duration: number | Date, now: number): number {
    if (duration instanceof Date && Number.isFinite(duration.getTime())) return duration.getTime();
    if (typeof duration === 'number' && Number.isFinite(duration) && duration >= 0) {
      return now + duration;
    }
    const received =
      duration instanceof Date ? 'an invalid Date' : `${typeof duration} ${String(duration)}`;
    this.run.fatal = new ValidationError('sleep duration', [
      {
        path: '',
        message: `expected a finite number of milliseconds from 0, or a valid Date, received ${received}`,
      },
    ]);
    throw this.run.fatal;
  }

  /** A wait's timeout: undefined (none), or a finite number of ms from 0. A bad one is fatal. */
  private timeoutOf(timeoutMs: unknown): number | undefined {
    if (timeoutMs === undefined) return undefined;
    if (typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs >= 0) {
      return timeoutMs;
    }
    this.run.fatal = new ValidationError('waitForSignal options', [
      {
        path: 'timeoutMs',
        message: `expected a finite number of milliseconds from 0, received ${typeof timeoutMs} ${String(timeoutMs)}`,
      },
    ]);
    throw this.run.fatal;
  }

  /**
   * A timer may end at most one retention period after the task's creation, so that no step
   * it replays has expired meanwhile (their TTL counts the retention, and more, from their
   * write). With `'forever'`, no bound.
   */
  private withinRetention(until: number, what: string): void {
    const retention = this.deps.store.retention;
    if (retention === 'forever') return;
    const latest = this.task.record.createdAt + retention;
    if (until <= latest) return;
    this.run.fatal = new ValidationError(what, [
      {
        path: '',
        message: `expected to end by ${new Date(latest).toISOString()} (one retention period, ${retention} ms, after the task's creation), received ${new Date(until).toISOString()}`,
      },
    ]);
    throw this.run.fatal;
  }

  /** Suspends the run on `wait` (see {@link trySuspend}); never settles when it does. */
  private async suspend(wait: TaskWait): Promise<never> {
    await this.trySuspend(wait);
    return never();
  }

  /**
   * Writes the suspension and ends the run, after the steps still running settle. Returns the
   * count of signals the task has when a signal wait's write was refused because one came
   * since the run looked (the run reads it and goes on); else undefined, with {@link ending}
   * set: suspended, or refused for a pause or cancel request, or the lease lost.
   */
  private async trySuspend(wait: TaskWait): Promise<number | undefined> {
    await this.run.settle();
    this.run.checkLive();
    const { lease } = this.task;
    const keeping = this.keeping(wait);
    try {
      const record = await this.deps.store
        .feature(DurableWrites)
        .suspend(lease, wait, keeping, this.heartbeat.takePending());
      // A sender that read the task running neither fenced the suspension nor wakes it: a
      // signal counted before it is found in the head, and the task woken (ADR 0066). For a
      // held message the head is read once the hold is sent (./wait-end.ts), which shows
      // the message again; a released one is read here, and woken by the sweeper's repair.
      const woken =
        wait.kind === 'signal' && keeping.held === undefined
          ? await this.deps.store.feature(SignalStore).wakeIfSignalled(record, this.deps.clock())
          : undefined;
      return this.finish({ kind: 'suspended', record: woken ?? record, keeping, wait });
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
      const current = err.current;
      const ours =
        current?.status === TaskStatus.RUNNING && current.leaseToken === lease.leaseToken;
      if (!ours) return this.finish({ kind: 'lost' });
      if (current.cancelRequested) return this.finish({ kind: 'cancel' });
      if (current.pauseRequested === true) return this.finish({ kind: 'pause', wait });
      return Math.max(current.signals ?? 0, this.signals.count);
    }
  }

  private finish(ending: SliceEnding): undefined {
    this.ending = ending;
    // No more beats: the lease ends with this write (or is gone).
    this.heartbeat.stop();
    this.end();
    return undefined;
  }

  /**
   * How the message is kept while the task waits: held when it must keep the task's place
   * (an ordering key's), or when its timer is within the threshold (its visibility is the
   * timer), or when no wake schedule can be made; else released, under the next generation,
   * for a schedule (a timer) or a signal's sender (no timer) to wake it with a new message.
   */
  private keeping(wait: Pick<TaskWait, 'until'>): MessageKeeping {
    const { record, message } = this.task;
    const now = this.deps.clock();
    const timer = wait.until === undefined ? undefined : wait.until - now;
    const held =
      record.orderingKey !== undefined ||
      (timer !== undefined && (timer <= this.deps.scheduleThresholdMs || !this.canSchedule()));
    if (!held) return { generation: record.generation + 1 };
    return {
      held: {
        receiptHandle: message.receiptHandle,
        queueArn: message.eventSourceARN,
        heldAt: now,
        sentAt: sentAt(message),
      },
    };
  }

  private canSchedule(): boolean {
    return this.deps.wakes !== undefined;
  }

  /** `ctx.signalToken`. */
  async signalToken(name: string): Promise<string> {
    const integrity = this.deps.integrity;
    if (integrity === undefined) {
      throw new ConfigurationError(
        "ctx.signalToken needs the executor's integrity key: turn `integrity` on in the construct, or set TASKLANE_INTEGRITY_KEY_ID for the worker",
      );
    }
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_SIGNAL_NAME_CHARS) {
      throw new ValidationError('signal name', [
        {
          path: '',
          message: `expected 1-${MAX_SIGNAL_NAME_CHARS} characters, received ${typeof name === 'string' ? `${name.length} characters` : typeof name}`,
        },
      ]);
    }
    const { id: taskId, createdAt } = this.task.record;
    return makeSignalToken(integrity, { taskId, createdAt, name });
  }
}

/** Longest signal name: a step name's limit, as a wait takes a step's position. */
export const MAX_SIGNAL_NAME_CHARS = 200;

/** A wait's memo as stored; one that cannot be read counts as a timeout. */
function parseMemo(memo: StoredStep): WaitMemo {
  try {
    const parsed = JSON.parse(memo.resultJson ?? '{}') as { received?: unknown; seq?: unknown };
    return parsed.received === true && typeof parsed.seq === 'number'
      ? { received: true, seq: parsed.seq }
      : { received: false };
  } catch {
    return { received: false };
  }
}
