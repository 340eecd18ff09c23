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
  | 'PAUSED'
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
  /** What a SUSPENDED task (or a PAUSED one that was) waits for: its sleep or its signal. */
  waitKind: 'sleep' | 'signal' | undefined;
  waitName: string;
  /**
   * For a signal wait: the signals its run had looked at when it began waiting (all the task
   * had been sent, when it suspended; maybe fewer, when it ended PAUSED there).
   */
  waitSeen: number;
  /**
   * When a SUSPENDED task is due, as the status index sorts it: its timer's end, or when a
   * signal (or a resume) woke it, or five minutes after the sweeper last repaired its wake.
   */
  dueAt: number;
  /** A signal it waits for came (or any signal came while it was paused in a wait). */
  woken: boolean;
  /** `client.pause` on a RUNNING task: its run ends PAUSED at its next lease write. */
  pauseRequested: boolean;
  /** Where a PAUSED task goes back to on resume. */
  pausedFrom: 'PENDING' | 'QUEUED' | 'SUSPENDED' | undefined;
  /** Signals sent, all names (the record's count). */
  signalsSent: number;
  /** Signals sent per name: the next one's number in its name's order. */
  sentByName: Map<string, number>;
  /** Signals not consumed yet, per name, in the order sent: each its number in its name's order (`n`, its data). */
  unconsumed: Map<string, UnconsumedSignal[]>;
  /**
   * The handler's durable calls so far, in order: every later run replays them (a real handler
   * is deterministic), and each replayed wait must give the outcome it gave first.
   */
  script: DurableCall[];
}

/** A signal sent and not consumed yet. */
export interface UnconsumedSignal {
  readonly n: number;
}

/** What a wait returned: the signal of its name it consumed (by number), or its timeout. */
export type WaitOutcome = { received: true; data: { n: number } } | { received: false };

/** A sleep or a signal wait the handler made, and (once known) what a wait returned. */
export interface DurableCall {
  readonly kind: 'sleep' | 'signal';
  readonly name: string;
  /** The sleep's duration, or the wait's timeout. */
  readonly ms: number;
  outcome?: WaitOutcome | undefined;
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
      waitKind: undefined,
      waitName: '',
      waitSeen: 0,
      dueAt: 0,
      woken: false,
      pauseRequested: false,
      pausedFrom: undefined,
      signalsSent: 0,
      sentByName: new Map<string, number>(),
      unconsumed: new Map<string, UnconsumedSignal[]>(),
      script: [],
    })),
  };
}

function transition(task: ModelTask, status: ModelStatus): void {
  task.status = status;
  task.history += 1;
  if (TERMINAL.has(status)) {
    task.terminalWrites += 1;
    // A pause request its run did not honour (the handler returned first, or the run died)
    // is moot once the task finished: the record reports none.
    task.pauseRequested = false;
  }
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
export type DeliveryOutcome =
  | 'rejected'
  | 'dropped'
  | 'deferred'
  | 'expired'
  | 'held'
  | 'paused'
  | 'suspended again'
  | ModelRun;

export function deliver(m: Model, i: number): DeliveryOutcome {
  const task = m.tasks[i] as ModelTask;
  if (task.status === 'ABSENT') return 'rejected';
  if (TERMINAL.has(task.status)) return 'dropped';
  // A paused task's message (no ordering key here) is dropped: the resume sends a new one.
  if (task.status === 'PAUSED') return 'dropped';
  if (task.status === 'RUNNING' && task.leaseExpiresAt > m.now) return 'deferred';
  // A waiting task's message is held until its timer ends, or its signal (or a resume) wakes it.
  const wasSuspended = task.status === 'SUSPENDED';
  if (wasSuspended && task.wakeAt > m.now && !task.woken) return 'held';
  if (task.attempt >= m.maxAttempts) {
    if (task.status !== 'RUNNING') return 'dropped';
    transition(task, 'DEAD'); // the lease ran out on the final attempt
    return 'expired';
  }
  task.attempt += 1;
  transition(task, 'RUNNING');
  task.woken = false;
  task.leaseExpiresAt = m.now + m.leaseMs;
  task.leaseWrittenAt = m.now;
  // A pause asked for before this attempt started: it ends PAUSED at once, not run.
  if (task.pauseRequested) {
    endPaused(task, undefined);
    return 'paused';
  }
  // The new run replays the handler's durable calls; the one it was waiting on now ends.
  if (wasSuspended) {
    const call = task.script[task.script.length - 1] as DurableCall;
    if (call.kind === 'signal') {
      const outcome = consume(task, call.name, task.wakeAt <= m.now);
      if (outcome === undefined) {
        // Woken by a resume for a signal of another name (sent while it was paused, or before
        // its paused run read it): it waits again, until the same time.
        task.attempt -= 1;
        suspend(task, 'signal', call.name, task.wakeAt);
        return 'suspended again';
      }
      call.outcome = outcome;
    }
    task.waitKind = undefined;
  }
  const run: ModelRun = {
    id: m.runs.length,
    task: i,
    attempt: task.attempt,
    state: 'running',
  };
  m.runs.push(run);
  task.holder = run.id;
  return run;
}

/** A wait for `name` ends: the first unconsumed signal of the name, else its timeout if due. */
function consume(task: ModelTask, name: string, timedOut: boolean): WaitOutcome | undefined {
  const queue = task.unconsumed.get(name) ?? [];
  const first = queue.shift();
  if (first !== undefined) return { received: true, data: { n: first.n } };
  return timedOut ? { received: false } : undefined;
}

function suspend(task: ModelTask, kind: 'sleep' | 'signal', name: string, until: number): void {
  task.wakeAt = until;
  task.waitKind = kind;
  task.waitName = name;
  task.waitSeen = task.signalsSent;
  task.woken = false;
  task.dueAt = until;
  transition(task, 'SUSPENDED');
}

/** The lease holder honours a pause request: PAUSED, no attempt spent. */
function endPaused(task: ModelTask, waiting: 'waiting' | undefined): void {
  task.attempt -= 1;
  task.pauseRequested = false;
  task.pausedFrom = waiting === undefined ? 'QUEUED' : 'SUSPENDED';
  if (waiting === undefined) task.waitKind = undefined;
  transition(task, 'PAUSED');
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

/**
 * A heartbeat extends the lease if the run still holds it; else the run is aborted. A beat that
 * finds a pause request ends the run PAUSED (no attempt spent). Returns what the handler's
 * `ctx.heartbeat()` does: resolves (`ok`), fails with the lease lost, or with the pause.
 */
export function heartbeat(m: Model, run: ModelRun): 'ok' | 'lost' | 'paused' {
  if (!holds(m, run)) {
    run.state = 'done';
    return 'lost';
  }
  const task = m.tasks[run.task] as ModelTask;
  task.leaseExpiresAt = m.now + m.leaseMs;
  task.leaseWrittenAt = m.now;
  task.heartbeats += 1;
  if (!task.pauseRequested) return 'ok';
  run.state = 'done';
  endPaused(task, undefined);
  return 'paused';
}

/**
 * `ctx.saveCheckpoint`: a fenced write that appends an entry when the run still holds the
 * lease; a stale run's save is refused and the run aborted. It leaves the lease as it is
 * (docs/adr/0047-durable-tasks.md: only a heartbeat extends it), so a run that checkpoints
 * past its lease's end, before anyone took the task over, still holds an expired lease.
 * A checkpoint that finds a pause request is stored, then fails with the pause, and the run
 * ends PAUSED.
 */
export function checkpoint(m: Model, run: ModelRun): 'ok' | 'lost' | 'paused' {
  if (!holds(m, run)) {
    run.state = 'done';
    return 'lost';
  }
  const task = m.tasks[run.task] as ModelTask;
  task.history += 1;
  task.leaseWrittenAt = m.now;
  if (!task.pauseRequested) return 'ok';
  run.state = 'done';
  endPaused(task, undefined);
  return 'paused';
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
 * What a sleep or wait does before it looks at its memo: it beats the lease when the lease's
 * last write is older than 10 s, and a beat that finds a pause request ends the run PAUSED.
 * Returns false when the run ended there.
 */
function beatBeforeWait(m: Model, run: ModelRun, task: ModelTask): boolean {
  if (m.now - task.leaseWrittenAt <= STEP_BEAT_MS) return true;
  task.heartbeats += 1;
  task.leaseWrittenAt = m.now;
  task.leaseExpiresAt = m.now + m.leaseMs;
  if (!task.pauseRequested) return true;
  run.state = 'done';
  endPaused(task, undefined);
  return false;
}

/**
 * The handler calls `ctx.sleep(name, ms)`: like a step, it first beats the lease when the
 * lease's last write is older than 10 s; under the lease, the run ends and the task is
 * SUSPENDED until `now + ms`, at the attempt before the claim (none spent); a stale run's
 * suspension (or beat) is fenced off (docs/durable-tasks.md). A pending pause request
 * refuses the suspension: the run ends PAUSED, to resume to the sleep.
 */
export function sleep(m: Model, run: ModelRun, name: string, ms: number): void {
  run.state = 'done';
  if (!holds(m, run)) return;
  const task = m.tasks[run.task] as ModelTask;
  if (!beatBeforeWait(m, run, task)) return;
  task.script.push({ kind: 'sleep', name, ms });
  if (task.pauseRequested) {
    task.wakeAt = m.now + ms;
    task.waitKind = 'sleep';
    task.waitName = name;
    endPaused(task, 'waiting');
    return;
  }
  task.attempt -= 1;
  suspend(task, 'sleep', name, m.now + ms);
}

/**
 * The handler calls `ctx.waitForSignal(name, { timeoutMs })` (only a lease holder, see the
 * command). It beats first as a sleep does; then it takes the first signal of `name` not
 * consumed (the run goes on), or suspends until its signal or its timeout, or (a pause
 * request pending) ends PAUSED, to resume to the wait. Returns the outcome when it returned.
 *
 * The run reads the task's signal count before it suspends: at its first wait, with the
 * signals; at a later one, again (the count the earlier wait read may be behind), so a signal
 * sent before the wait is found there, whether or not a pause is requested. Only then does a
 * pause request refuse the suspension: the run ends PAUSED, and a resume wakes the task for a
 * signal sent after the wait looked (docs/adr/0066-signal-head-off-the-task-item.md).
 */
export function waitForSignal(
  m: Model,
  run: ModelRun,
  name: string,
  timeoutMs: number,
): WaitOutcome | 'suspended' | 'paused' {
  const task = m.tasks[run.task] as ModelTask;
  if (!beatBeforeWait(m, run, task)) return 'paused';
  const call: DurableCall = { kind: 'signal', name, ms: timeoutMs };
  task.script.push(call);
  const outcome = consume(task, name, false);
  if (outcome !== undefined) {
    call.outcome = outcome;
    return outcome;
  }
  run.state = 'done';
  if (task.pauseRequested) {
    task.wakeAt = m.now + timeoutMs;
    task.waitKind = 'signal';
    task.waitName = name;
    task.waitSeen = task.signalsSent;
    endPaused(task, 'waiting');
    return 'paused';
  }
  task.attempt -= 1;
  suspend(task, 'signal', name, m.now + timeoutMs);
  return 'suspended';
}

/**
 * `client.signal(id, name, { n })`: stored for any unfinished task (a wait that comes later
 * finds it), numbered in its name's order; it wakes a task SUSPENDED in a wait for `name`.
 */
export function signal(m: Model, i: number, name: string): 'not found' | 'rejected' | number {
  const task = m.tasks[i];
  if (task === undefined || task.status === 'ABSENT') return 'not found';
  if (TERMINAL.has(task.status)) return 'rejected';
  const n = task.sentByName.get(name) ?? 0;
  task.sentByName.set(name, n + 1);
  task.unconsumed.set(name, [...(task.unconsumed.get(name) ?? []), { n }]);
  task.signalsSent += 1;
  if (task.status === 'SUSPENDED' && task.waitKind === 'signal' && task.waitName === name) {
    task.woken = true;
    task.dueAt = m.now;
  }
  return n;
}

/**
 * `client.pause(id)`: a waiting or sleeping task is PAUSED at once; a RUNNING one is asked to
 * pause (once: asking again writes nothing); a PAUSED one is left as it is.
 */
export function pause(m: Model, i: number): 'not found' | 'rejected' | 'paused' | 'requested' {
  const task = m.tasks[i] as ModelTask;
  if (task.status === 'ABSENT') return 'not found';
  if (task.status === 'PAUSED') return 'paused';
  if (task.status === 'RUNNING') {
    // Asking again is no error, and writes nothing.
    if (task.pauseRequested) return 'requested';
    task.pauseRequested = true;
    task.history += 1;
    return 'requested';
  }
  if (task.status !== 'PENDING' && task.status !== 'QUEUED' && task.status !== 'SUSPENDED') {
    return 'rejected';
  }
  task.pausedFrom = task.status;
  task.pauseRequested = false;
  transition(task, 'PAUSED');
  return 'paused';
}

/**
 * `client.resume(id)`: a PAUSED task goes back where it was (due again; or still waiting,
 * woken if the task has signals its wait did not look at: any name's, as the count is all the
 * record keeps, and also one that came before the run ended PAUSED at the wait but after it
 * last read them); a pause request not yet honoured is taken back; anything else is refused.
 */
export function resume(m: Model, i: number): 'not found' | 'rejected' | 'resumed' | 'withdrawn' {
  const task = m.tasks[i] as ModelTask;
  if (task.status === 'ABSENT') return 'not found';
  if (task.status !== 'PAUSED') {
    const withdrawable =
      task.status === 'RUNNING' || task.status === 'QUEUED' || task.status === 'PENDING';
    if (!task.pauseRequested || !withdrawable) return 'rejected';
    task.pauseRequested = false;
    task.history += 1;
    return 'withdrawn';
  }
  if (task.pausedFrom === 'SUSPENDED' && task.waitKind !== undefined) {
    task.woken = task.waitKind === 'signal' && task.signalsSent > task.waitSeen;
    task.dueAt = task.woken ? m.now : task.wakeAt;
    transition(task, 'SUSPENDED');
  } else {
    task.waitKind = undefined;
    transition(task, 'PENDING');
  }
  task.pausedFrom = undefined;
  return 'resumed';
}

export function crash(run: ModelRun): void {
  run.state = 'crashed';
}

export function cancel(m: Model, i: number): boolean {
  const task = m.tasks[i] as ModelTask;
  // A sleeping or paused task holds no worker: it is cancelled at once, as a waiting one.
  const cancellable: readonly ModelStatus[] = ['PENDING', 'QUEUED', 'SUSPENDED', 'PAUSED'];
  if (!cancellable.includes(task.status)) return false;
  transition(task, 'CANCELLED');
  return true;
}

/** How long a SUSPENDED task may stay due and unclaimed before the sweeper wakes it again. */
export const SUSPENDED_GRACE_MS = 30_000;
/** The sweeper leaves a task it woke again this long before it looks at it again. */
const REWAKE_AFTER_MS = 5 * 60_000;

/**
 * One sweep. A RUNNING task under an expired lease is requeued (PENDING under a new
 * generation, and sent; a pause request stays, for the next claim to honour) or, on its final
 * attempt, killed. An old PENDING task is sent again; the send is no transition (ADR 0020).
 * A SUSPENDED task due (its timer ended, or its signal woke it) more than 30 s ago and still
 * not claimed has lost its wake: the sweeper notes a new one (the next generation, no
 * transition) and sends it a message, then leaves it five minutes. Returns the tasks it woke so.
 */
export function sweep(m: Model): number[] {
  const woken: number[] = [];
  m.tasks.forEach((task, i) => {
    if (task.status === 'RUNNING' && task.leaseExpiresAt <= m.now) {
      if (task.attempt >= m.maxAttempts) {
        transition(task, 'DEAD');
      } else {
        transition(task, 'PENDING'); // requeued under a new generation, and sent
        task.pendingSince = m.now;
      }
    }
    if (task.status !== 'SUSPENDED' || task.dueAt > m.now - SUSPENDED_GRACE_MS) return;
    if (!task.woken && task.wakeAt > m.now) return;
    task.dueAt = m.now + REWAKE_AFTER_MS;
    woken.push(i);
  });
  return woken;
}

export function activeRuns(m: Model): ModelRun[] {
  return m.runs.filter((r) => r.state === 'running');
}
