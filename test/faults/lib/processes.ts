/**
 * Worker child processes: real processes that can be SIGKILLed, SIGSTOPped (a frozen VM or
 * a long GC pause) and restarted. They run the bundled test/faults/worker-process.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { TaskProfile } from './fault-tasks.js';
import type { CallLog } from './ledger.js';

/** Settings of one worker process, passed as JSON in FAULT_WORKER_CONFIG. */
export interface WorkerProcessConfig {
  readonly workerId: string;
  readonly tableName: string;
  readonly queueUrl: string;
  readonly ledgerTable: string;
  readonly profile: TaskProfile;
  readonly leaseGraceMs: number;
  readonly leaseDurationMs: number;
  readonly clockOffsetMs?: number;
  readonly concurrency: number;
  readonly batchSize: number;
  readonly waitTimeSeconds: number;
}

/** One running worker process. */
export class WorkerProcess {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  constructor(script: string, config: WorkerProcessConfig, log: WriteStream, calls: CallLog) {
    this.child = spawn(process.execPath, [script], {
      env: { ...process.env, FAULT_WORKER_CONFIG: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      const text = partial + chunk;
      const end = text.lastIndexOf('\n');
      partial = text.slice(end + 1);
      calls.ingest(text.slice(0, end + 1));
    });
    this.child.stderr?.pipe(log, { end: false });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    this.workerId = config.workerId;
  }

  readonly workerId: string;

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGTERM (graceful: batches in flight finish), then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * A fleet of worker processes under a supervisor that restarts any process that dies (killed
 * by the suite or crashed by a poison task), as an ECS service or Lambda would.
 */
export class WorkerFleet {
  readonly workers: WorkerProcess[] = [];
  /** Processes that exited on their own (not stopped by the fleet): crashes. */
  crashes = 0;
  restarts = 0;
  private stopping = false;
  private readonly log: WriteStream;
  private generation = 0;

  constructor(
    private readonly script: string,
    private readonly base: Omit<WorkerProcessConfig, 'workerId'>,
    logFile: string,
    private readonly calls: CallLog,
    private readonly idPrefix = 'proc',
  ) {
    this.log = createWriteStream(logFile, { flags: 'a' });
  }

  /** Starts `count` workers; slot `i` is restarted in place when its process dies. */
  start(count: number, perSlot: (slot: number) => Partial<WorkerProcessConfig> = () => ({})): void {
    for (let slot = 0; slot < count; slot++) this.spawn(slot, perSlot(slot));
  }

  /** SIGKILLs the worker in `slot`; the supervisor restarts it. */
  kill(slot: number): void {
    this.workers[slot]?.signal('SIGKILL');
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers.map((w) => w.stop()));
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  private spawn(slot: number, overrides: Partial<WorkerProcessConfig>): void {
    this.generation += 1;
    const config = {
      ...this.base,
      ...overrides,
      workerId: `${this.idPrefix}-${slot}.${this.generation}`,
    };
    const worker = new WorkerProcess(this.script, config, this.log, this.calls);
    this.workers[slot] = worker;
    void worker.exited.then(({ signal }) => {
      if (this.stopping) return;
      if (signal !== 'SIGKILL') this.crashes += 1;
      this.restarts += 1;
      this.spawn(slot, overrides);
    });
  }
}
