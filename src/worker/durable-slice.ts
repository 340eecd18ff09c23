/**
 * One run's durable context, whose machinery (durable-run.ts, durable-waits.ts and what they
 * import) is loaded at the run's first durable call: a worker whose tasks never checkpoint,
 * step, sleep or wait never loads it (docs/adr/0069-worker-chunks.md).
 *
 * Calls keep their order: every call waits for the one load, and promise reactions run in
 * the order they were attached, so the steps of one `Promise.all` take their positions in
 * call order, as they do once loaded (docs/adr/0047-durable-tasks.md).
 */
import type { ConfigurationError, NonDeterministicError, ValidationError } from '../core/errors.js';
import {
  type Continuation,
  continuation,
  type DurableContext,
  type WaitForSignalOptions,
} from '../tasks/durable.js';
import type { ProcessorDeps } from './deps.js';
import type { DurableRun } from './durable-run.js';
import type { DurableWaits, SliceEnding, WaitingTask } from './durable-waits.js';
import type { Heartbeat } from './heartbeat.js';

/** The loaded machinery of one run. */
interface Machinery {
  readonly run: DurableRun;
  readonly waits: DurableWaits;
}

/** The durable part of one run, loaded on first use. */
export class DurableSlice {
  private loading: Promise<Machinery> | undefined;
  private machinery: Machinery | undefined;
  private readonly startedAt: number;
  /** Resolves when the run suspended (or tried to): the executor stops waiting for it. */
  readonly ended: Promise<void>;
  private end: () => void = () => undefined;

  constructor(
    private readonly task: WaitingTask,
    private readonly deps: ProcessorDeps,
    private readonly heartbeat: Heartbeat,
    private readonly controller: AbortController,
    private readonly checkpoint: unknown,
  ) {
    this.startedAt = deps.clock();
    this.ended = new Promise<void>((resolve) => {
      this.end = resolve;
    });
  }

  /** An error that ends the task DEAD whatever the handler did with it. */
  get fatal(): NonDeterministicError | ValidationError | ConfigurationError | undefined {
    return this.machinery?.run.fatal;
  }

  /** An S3 outage met storing or reading a durable value: the claim is given back. */
  get outage(): unknown {
    return this.machinery?.run.outage;
  }

  /** How the run ended, when it suspended (or tried to). */
  get ending(): SliceEnding | undefined {
    return this.machinery?.waits.ending;
  }

  /** The context's durable members. */
  context(): DurableContext {
    const slice = this;
    const loaded = () => this.load();
    return {
      get checkpoint() {
        return slice.machinery === undefined ? slice.checkpoint : slice.machinery.run.latest;
      },
      saveCheckpoint: (value) => loaded().then(({ run }) => run.saveCheckpoint(value)),
      step: (name, fn) => loaded().then(({ run }) => run.step(name, fn)),
      steps: () => loaded().then(({ run }) => run.steps()),
      continue: (): Continuation => continuation(),
      remainingMs: () => this.remainingMs(),
      sleep: (name, duration) => loaded().then(({ waits }) => waits.sleep(name, duration)),
      waitForSignal: ((name: string, options?: WaitForSignalOptions) =>
        loaded().then(({ waits }) =>
          waits.waitForSignal(name, options),
        )) as DurableContext['waitForSignal'],
      signalToken: (name) => loaded().then(({ waits }) => waits.signalToken(name)),
    };
  }

  /** Milliseconds left before the run's timeout or the host's end, whichever is first. */
  private remainingMs(): number {
    const run = this.startedAt + this.task.timeoutMs - this.deps.clock();
    const host = this.task.remainingMs?.() ?? Number.POSITIVE_INFINITY;
    return Math.max(0, Math.min(run, host));
  }

  /** Loads the machinery once; every call goes through the one promise, in call order. */
  private load(): Promise<Machinery> {
    this.loading ??= import('./durable-features.js').then(({ DurableRun, DurableWaits }) => {
      const { task, deps, heartbeat, controller, checkpoint } = this;
      const run = new DurableRun(task, deps, heartbeat, controller, checkpoint);
      const waits = new DurableWaits(run, task, deps, heartbeat);
      void waits.ended.then(this.end);
      this.machinery = { run, waits };
      return this.machinery;
    });
    return this.loading;
  }
}
