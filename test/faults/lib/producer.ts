/**
 * A producer child process that the suite can SIGKILL: it enqueues a plan of tasks, then sends
 * their signals and pauses and resumes them, each action retried idempotently by the next
 * process after a kill (an enqueue by its task id, a signal by its `signalId`, a pause of a
 * PAUSED task and a resume of a resumed one are no-ops). It runs the bundled
 * test/faults/producer-process.ts. Scenario (v).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { TaskProfile, WorkPayload } from './fault-tasks.js';

/** What the producer does for one task, besides enqueueing it. */
export interface ProducerTask {
  readonly id: string;
  readonly payload: WorkPayload;
  readonly orderingKey?: string;
  /**
   * Its signal `go`: sent right after the enqueue (`before` the task waits), or once the task
   * is SUSPENDED in its wait (`after`). Its data is its `signalId`.
   */
  readonly signal?: { readonly when: 'before' | 'after'; readonly signalId: string };
  /**
   * A pause when the task is first seen in this state (`queued`: right after the enqueue),
   * then a resume `holdMs` after the pause.
   */
  readonly pause?: { readonly when: 'queued' | 'suspended' | 'running'; readonly holdMs: number };
}

/** One action of the producer. */
export type ProducerAction = 'enqueue' | 'signal' | 'pause' | 'resume';

/** An action tried, or done (with what came of it), as the producer reports it. */
export interface ProducerEvent {
  readonly id: string;
  readonly action: ProducerAction;
  readonly at: number;
  /** Done events: what came of the action (`created`, `stored`, `duplicate`, a status, …). */
  readonly outcome?: string;
}

/** Settings of the producer process, passed as JSON in FAULT_PRODUCER_CONFIG. */
export interface ProducerConfig {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly ledgerTable: string;
  readonly profile: TaskProfile;
  readonly tasks: readonly ProducerTask[];
  /** Actions done by earlier processes (`<id>:<action>`), which this one skips. */
  readonly done: Readonly<Record<string, ProducerEvent>>;
}

/** The key of an action in {@link ProducerConfig.done}. */
export function actionKey(id: string, action: ProducerAction): string {
  return `${id}:${action}`;
}

/** The line a producer process prints for an action tried or done. */
export function producerLine(kind: 'try' | 'done', event: ProducerEvent): string {
  return `@@${kind} ${JSON.stringify(event)}\n`;
}

/**
 * The producer under a supervisor that restarts it after a SIGKILL with what is done so far,
 * until it exits 0 (every action done).
 */
export class ProducerSupervisor {
  /** Every action tried, in order, across processes. */
  readonly tries: ProducerEvent[] = [];
  /** Each action done, by {@link actionKey}. */
  readonly done = new Map<string, ProducerEvent>();
  kills = 0;
  crashes = 0;
  /** Resolves when a producer process exited 0. */
  readonly finished: Promise<void>;
  private child: ChildProcess | undefined;
  private readonly log: WriteStream;
  private resolve: () => void = () => undefined;

  constructor(
    private readonly script: string,
    private readonly base: Omit<ProducerConfig, 'done'>,
    logFile: string,
  ) {
    this.log = createWriteStream(logFile, { flags: 'a' });
    this.finished = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  get running(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  start(): void {
    const config: ProducerConfig = { ...this.base, done: Object.fromEntries(this.done) };
    const child = spawn(process.execPath, [this.script], {
      env: { ...process.env, FAULT_PRODUCER_CONFIG: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let partial = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      const text = partial + chunk;
      const end = text.lastIndexOf('\n');
      partial = text.slice(end + 1);
      this.ingest(text.slice(0, end + 1));
    });
    child.stderr?.pipe(this.log, { end: false });
    child.once('exit', (code, signal) => {
      if (code === 0) {
        this.resolve();
        return;
      }
      if (signal !== 'SIGKILL') this.crashes += 1;
      // A crash is restarted too, as a kill is, but not forever.
      if (this.crashes < 20) this.start();
    });
  }

  /** SIGKILLs the running producer; the supervisor restarts it. */
  kill(): boolean {
    if (!this.running) return false;
    this.kills += 1;
    this.child?.kill('SIGKILL');
    return true;
  }

  /** The earliest time an action was tried (by any process), if it was. */
  firstTry(id: string, action: ProducerAction): number | undefined {
    const times = this.tries.filter((t) => t.id === id && t.action === action).map((t) => t.at);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  async close(): Promise<void> {
    if (this.running) this.child?.kill('SIGKILL');
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  private ingest(text: string): void {
    for (const line of text.split('\n')) {
      if (line.startsWith('@@try ')) this.tries.push(JSON.parse(line.slice(6)) as ProducerEvent);
      if (line.startsWith('@@done ')) {
        const event = JSON.parse(line.slice(7)) as ProducerEvent;
        this.done.set(actionKey(event.id, event.action), event);
      }
    }
  }
}
