/**
 * The reference model of one task's lifecycle (docs/design.md §2), as a pure state machine. It is
 * written from the design, independently of src/: the model test runs the same commands
 * against it and against the real store and processor, and compares them after each one.
 */

export type ModelStatus =
  | 'ABSENT'
  | 'PENDING'
  | 'QUEUED'
  | 'RUNNING'
  | 'SUSPENDED'
  | 'SUCCEEDED'
  | 'DEAD'
  | 'CANCELLED';

export interface ModelTask {
  status: ModelStatus;
  attempt: number;
  /** Entries the history must hold: one per transition (a heartbeat is only counted). */
  history: number;
  /** Heartbeats the record must count. */
  heartbeats: number;
  terminalWrites: number;
  leaseExpiresAt: number;
  /** The run (a handler invocation) holding the lease, if RUNNING. */
  holder: number | undefined;
  /** When the task last became PENDING (the sweeper resends it once older than that). */
  pendingSince: number;
  /** Slices ended with `ctx.continue()` (docs/durable-tasks.md). */
  continuations: number;
  /** When a SUSPENDED task's sleep ends (docs/durable-tasks.md). */
  wakeAt: number;
  /** When the lease holder last wrote the lease (its claim, a heartbeat, a checkpoint). */
  leaseWrittenAt: number;
}

/** A handler invocation, from its claim until it finishes, crashes or loses its lease. */
export interface ModelRun {
  readonly id: number;
  readonly task: number;
  readonly attempt: number;
  state: 'running' | 'crashed' | 'done';
}

export interface Model {
  now: number;
  readonly maxAttempts: number;
  readonly leaseMs: number;
  readonly tasks: ModelTask[];
  readonly runs: ModelRun[];
  /** Commands applied, for the report. */
  steps: number;
}

const TERMINAL: ReadonlySet<ModelStatus> = new Set(['SUCCEEDED', 'DEAD', 'CANCELLED']);

export function newModel(
  tasks: number,
  options: { now: number; maxAttempts: number; leaseMs: number },
): Model {
  return {
    ...options,
    steps: 0,
    runs: [],
    tasks: Array.from({ length: tasks }, () => ({
      status: 'ABSENT' as ModelStatus,
      attempt: 0,
      history: 0,
      heartbeats: 0,
      terminalWrites: 0,
      leaseExpiresAt: 0,
      holder: undefined,
      pendingSince: 0,
      continuations: 0,
      wakeAt: 0,
      leaseWrittenAt: 0,
    })),
  };
}

function transition(task: ModelTask, status: ModelStatus): void {
  task.status = status;
  task.history += 1;
  if (TERMINAL.has(status)) task.terminalWrites += 1;
  if (status !== 'RUNNING') task.holder = undefined;
}

/** enqueue: create once (idempotent); `send` false is a producer crash before the send. */
export function enqueue(m: Model, i: number, send: boolean): void {
  const task = m.tasks[i] as ModelTask;
  if (task.status === 'ABSENT') {
    transition(task, 'PENDING');
    task.pendingSince = m.now;
  }
  // The send writes nothing: a sent task stays PENDING until claimed (ADR 0020).
  void send;
}

/** What a delivered message leads to; a claim returns the new run. */
export type DeliveryOutcome = 'rejected' | 'dropped' | 'deferred' | 'expired' | 'held' | ModelRun;

export function deliver(m: Model, i: number): DeliveryOutcome {
  const task = m.tasks[i] as ModelTask;
  if (task.status === 'ABSENT') return 'rejected';
  if (TERMINAL.has(task.status)) return 'dropped';
  if (task.status === 'RUNNING' && task.leaseExpiresAt > m.now) return 'deferred';
  // A sleeping task's message is held until its sleep ends (its visibility is the timer).
  if (task.status === 'SUSPENDED' && task.wakeAt > m.now) return 'held';
  if (task.attempt >= m.maxAttempts) {
    if (task.status !== 'RUNNING') return 'dropped';
    transition(task, 'DEAD'); // the lease ran out on the final attempt
    return 'expired';
  }
  task.attempt += 1;
  transition(task, 'RUNNING');
  task.leaseExpiresAt = m.now + m.leaseMs;
  task.leaseWrittenAt = m.now;
  const run: ModelRun = { id: m.runs.length, task: i, attempt: task.attempt, state: 'running' };
  m.runs.push(run);
  task.holder = run.id;
  return run;
}

function holds(m: Model, run: ModelRun): boolean {
  const task = m.tasks[run.task] as ModelTask;
  return task.status === 'RUNNING' && task.holder === run.id;
}

/** The handler returns (`ok`) or throws; the outcome is written only under the lease. */
export function finish(m: Model, run: ModelRun, ok: boolean): void {
  run.state = 'done';
  if (!holds(m, run)) return; // stale: fenced off
  const task = m.tasks[run.task] as ModelTask;
  if (ok) transition(task, 'SUCCEEDED');
  else transition(task, run.attempt >= m.maxAttempts ? 'DEAD' : 'QUEUED');
}

/** A heartbeat extends the lease if the run still holds it; else the run is aborted. */
export function heartbeat(m: Model, run: ModelRun): boolean {
  if (!holds(m, run)) {
    run.state = 'done';
    return false;
  }
  const task = m.tasks[run.task] as ModelTask;
  task.leaseExpiresAt = m.now + m.leaseMs;
  task.leaseWrittenAt = m.now;
  task.heartbeats += 1;
  return true;
}

/**
 * `ctx.saveCheckpoint`: a fenced write that appends an entry when the run still holds the
 * lease; a stale run's save is refused and the run aborted. It leaves the lease as it is
 * (docs/adr/0047-durable-tasks.md: only a heartbeat extends it), so a run that checkpoints
 * past its lease's end, before anyone took the task over, still holds an expired lease.
 */
export function checkpoint(m: Model, run: ModelRun): boolean {
  if (!holds(m, run)) {
    run.state = 'done';
    return false;
  }
  const task = m.tasks[run.task] as ModelTask;
  task.history += 1;
  task.leaseWrittenAt = m.now;
  return true;
}

/** The most continuations a task of the model's type may make (the default). */
export const MAX_CONTINUATIONS = 10;

/**
 * The handler returns `ctx.continue()`: under the lease, the task is QUEUED again at the
 * attempt before the claim (none spent), one more continuation counted; past the limit, DEAD.
 * A stale run's continuation is fenced off.
 */
export function continueRun(m: Model, run: ModelRun): void {
  run.state = 'done';
  if (!holds(m, run)) return;
  const task = m.tasks[run.task] as ModelTask;
  if (task.continuations >= MAX_CONTINUATIONS) {
    transition(task, 'DEAD');
    return;
  }
  task.continuations += 1;
  task.attempt -= 1;
  transition(task, 'QUEUED');
}

/** A step or sleep beats the lease first when its last write is older than this (ADR 0047). */
const STEP_BEAT_MS = 10_000;

/**
 * The handler calls `ctx.sleep(name, ms)`: like a step, it first beats the lease when the
 * lease's last write is older than 10 s; under the lease, the run ends and the task is
 * SUSPENDED until `now + ms`, at the attempt before the claim (none spent); a stale run's
 * suspension (or beat) is fenced off (docs/durable-tasks.md).
 */
export function sleep(m: Model, run: ModelRun, ms: number): void {
  run.state = 'done';
  if (!holds(m, run)) return;
  const task = m.tasks[run.task] as ModelTask;
  if (m.now - task.leaseWrittenAt > STEP_BEAT_MS) task.heartbeats += 1;
  task.attempt -= 1;
  task.wakeAt = m.now + ms;
  transition(task, 'SUSPENDED');
}

export function crash(run: ModelRun): void {
  run.state = 'crashed';
}

export function cancel(m: Model, i: number): boolean {
  const task = m.tasks[i] as ModelTask;
  // A sleeping task holds no worker: it is cancelled at once, as a waiting one.
  if (task.status !== 'PENDING' && task.status !== 'QUEUED' && task.status !== 'SUSPENDED') {
    return false;
  }
  transition(task, 'CANCELLED');
  return true;
}

/** One sweep: expired leases are requeued (and resent) or killed; old PENDING is resent. */
export function sweep(m: Model, pendingAgeMs: number): void {
  for (const task of m.tasks) {
    if (task.status === 'RUNNING' && task.leaseExpiresAt <= m.now) {
      if (task.attempt >= m.maxAttempts) {
        transition(task, 'DEAD');
      } else {
        transition(task, 'PENDING'); // requeued under a new generation, and sent
        task.pendingSince = m.now;
      }
    }
    // An old PENDING task is sent again; the send is no transition (ADR 0020).
    void pendingAgeMs;
  }
}

export function activeRuns(m: Model): ModelRun[] {
  return m.runs.filter((r) => r.state === 'running');
}
