/**
 * The model test's commands: each applies one step to the reference model and to the real
 * system, then compares the two for the tasks the step may have touched.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { AuditEvent } from '../../src/core/constants.js';
import {
  LeaseLostError,
  TaskNotFoundError,
  TaskPausedError,
  TransitionRejectedError,
} from '../../src/core/errors.js';
import { LEASE_MS, MAX_ATTEMPTS, type RealRun, type RealSystem } from './real-system.js';
import * as M from './task-model.js';

type Cmd = fc.AsyncCommand<M.Model, RealSystem>;

const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.CANCELLED,
]);

/** Longest command sequence generated. */
export const MAX_COMMANDS = 40;

/** Tally of the commands run, for the report. */
export const tally = new Map<string, number>();

/** Compares the model with the stored records, and checks the invariants. */
export async function compare(m: M.Model, r: RealSystem, tasks: readonly number[]): Promise<void> {
  m.steps += 1;
  for (const i of tasks) {
    const want = m.tasks[i] as M.ModelTask;
    const got = await r.get(i);
    if (want.status === 'ABSENT') {
      expect(got, `t${i} should not exist`).toBeUndefined();
      continue;
    }
    expect(got, `t${i} should exist`).toBeDefined();
    if (got === undefined) continue;
    const terminal = got.history.filter((h) => TERMINAL_EVENTS.has(h.event)).length;
    expect(
      {
        status: got.status,
        attempt: got.attempt,
        history: got.history.length,
        heartbeats: got.heartbeats,
        terminalWrites: terminal,
        pauseRequested: got.pauseRequested === true,
        pausedFrom: got.status === 'PAUSED' ? got.pausedFrom : undefined,
        signals: await r.signalsSent(got),
        waitsFor: got.status === 'SUSPENDED' ? `${got.wait?.kind} ${got.wait?.name}` : undefined,
      },
      `t${i} after ${m.steps} step(s); history ${got.history.map((h) => `${h.event}#${h.attempt}`).join(' > ')}`,
    ).toEqual({
      status: want.status,
      attempt: want.attempt,
      history: want.history,
      heartbeats: want.heartbeats,
      terminalWrites: want.terminalWrites,
      pauseRequested: want.pauseRequested,
      pausedFrom: want.status === 'PAUSED' ? want.pausedFrom : undefined,
      signals: want.signalsSent,
      waitsFor: want.status === 'SUSPENDED' ? `${want.waitKind} ${want.waitName}` : undefined,
    });
    expect(got.attempt).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(terminal).toBeLessThanOrEqual(1);
  }
}

const all = (m: M.Model) => m.tasks.map((_, i) => i);
const count = (name: string) => tally.set(name, (tally.get(name) ?? 0) + 1);

class Enqueue implements Cmd {
  constructor(
    readonly task: number,
    readonly send: boolean,
  ) {}
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    count('enqueue');
    M.enqueue(m, this.task, this.send);
    await r.enqueue(this.task, this.send);
    await compare(m, r, [this.task]);
  }
  toString = () => `enqueue(t${this.task}${this.send ? '' : ', crash before send'})`;
}

class Deliver implements Cmd {
  constructor(
    readonly task: number,
    readonly worker: number,
    readonly name: 'deliver' | 'duplicate',
  ) {}
  check = (m: Readonly<M.Model>) =>
    this.name === 'deliver' || M.activeRuns(m as M.Model).some((run) => run.task === this.task);
  async run(m: M.Model, r: RealSystem) {
    const outcome = M.deliver(m, this.task);
    count(`${this.name}: ${typeof outcome === 'object' ? 'claim' : outcome}`);
    const run = await r.deliver(this.task, this.worker);
    expect(
      run !== undefined,
      `${this.toString()} should ${typeof outcome === 'object' ? '' : 'not '}start a run (${typeof outcome === 'object' ? 'claim' : outcome})`,
    ).toBe(typeof outcome === 'object');
    if (typeof outcome === 'object' && run !== undefined) {
      r.runs.set(outcome.id, run);
      // Each signal is consumed exactly once, in order per name: the replay of every earlier
      // wait gives what it gave first (or, for the wait it was woken for, the model's choice).
      const script = (m.tasks[this.task] as M.ModelTask).script;
      expect(run.replayed, `replay of t${this.task}'s waits`).toEqual(
        script.map((call) => call.outcome),
      );
    } else if (run !== undefined) {
      // Deliver started a run the model did not: end it so that it holds nothing.
      run.reject(new Error('unexpected run'));
    }
    await compare(m, r, [this.task]);
  }
  toString = () => `${this.name}(t${this.task} → w${this.worker})`;
}

/** Picks the n-th active run (modulo), if there is one. */
const pick = (m: M.Model, n: number) => {
  const active = M.activeRuns(m);
  return active.length === 0 ? undefined : active[n % active.length];
};

/** What a run command does to the model and the system for the active run it picked. */
type RunStep = (
  m: M.Model,
  r: RealSystem,
  run: M.ModelRun,
  real: RealRun | undefined,
) => Promise<void>;

/**
 * A command on the n-th active run (modulo): it runs only while a run is active, tallies as
 * `kind`, prints as `label`, and compares the run's task once `step` is done.
 */
class RunCommand implements Cmd {
  constructor(
    readonly n: number,
    readonly kind: string,
    readonly label: string,
    readonly step: RunStep,
  ) {}
  check = (m: Readonly<M.Model>) => M.activeRuns(m as M.Model).length > 0;
  async run(m: M.Model, r: RealSystem) {
    count(this.kind);
    const run = pick(m, this.n) as M.ModelRun;
    await this.step(m, r, run, r.runs.get(run.id));
    await compare(m, r, [run.task]);
  }
  toString = () => this.label;
}

/**
 * Awaits a fenced write of the run's handler: it succeeds when the model says the lease is
 * `held`, and otherwise fails with LeaseLostError, which ends the run (its outcome dropped).
 */
async function fencedWrite(
  write: Promise<unknown> | undefined,
  held: boolean,
  message: string,
  real: RealRun | undefined,
): Promise<void> {
  const error = await write?.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error === undefined, message).toBe(held);
  if (!held) {
    expect(error).toBeInstanceOf(LeaseLostError);
    await real?.batch;
  }
}

const finish = (n: number, ok: boolean) =>
  new RunCommand(
    n,
    ok ? 'finish ok' : 'finish failing',
    `finish(run #${n}, ${ok ? 'ok' : 'throws'})`,
    async (m, _r, run, real) => {
      M.finish(m, run, ok);
      if (ok) real?.resolve('done');
      else real?.reject(new Error('handler failed'));
      await real?.batch;
    },
  );

/** Awaits a handler's lease write that the model says resolves, loses the lease, or pauses. */
async function leaseWrite(
  write: Promise<unknown> | undefined,
  want: 'ok' | 'lost' | 'paused',
  message: string,
  real: RealRun | undefined,
): Promise<void> {
  if (want === 'lost') return fencedWrite(write, false, message, real);
  const error = await write?.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (want === 'ok') expect(error, message).toBeUndefined();
  else expect(error, message).toBeInstanceOf(TaskPausedError);
  if (want === 'paused') {
    // The handler lets the pause propagate, as handler code does: the run ends PAUSED.
    real?.reject(error as Error);
    await real?.batch;
  }
}

const heartbeat = (n: number) =>
  new RunCommand(n, 'heartbeat', `heartbeat(run #${n})`, async (m, _r, run, real) => {
    const want = M.heartbeat(m, run);
    await leaseWrite(
      real?.ctx.heartbeat(),
      want,
      `heartbeat of run #${run.id} should ${want === 'ok' ? 'extend' : want === 'lost' ? 'lose' : 'pause at'} the lease`,
      real,
    );
  });

const checkpoint = (n: number) =>
  new RunCommand(n, 'checkpoint', `checkpoint(run #${n})`, async (m, _r, run, real) => {
    const want = M.checkpoint(m, run);
    await leaseWrite(
      real?.ctx.saveCheckpoint({ step: m.steps }),
      want,
      `checkpoint of run #${run.id} should ${want === 'lost' ? 'lose the lease' : 'be stored'}`,
      real,
    );
  });

const continueRun = (n: number) =>
  new RunCommand(n, 'continue', `continue(run #${n})`, async (m, _r, run, real) => {
    M.continueRun(m, run);
    if (real !== undefined) real.resolve(real.ctx.continue());
    await real?.batch;
  });

const sleep = (n: number, ms: number) =>
  new RunCommand(n, 'sleep', `sleep(run #${n}, ${ms} ms)`, async (m, r, run, real) => {
    const name = `nap-${m.steps}`;
    const script = (m.tasks[run.task] as M.ModelTask).script;
    const calls = script.length;
    M.sleep(m, run, name, ms);
    // Only a call the task made (its lease holder's, past the beat before it) is replayed by
    // later runs: a sleep whose beat found a pause request took no position.
    if (script.length > calls) scriptOf(r, run.task).push({ kind: 'sleep', name, ms });
    // The handler's sleep never returns in this run: the run ends as it suspends. A sleep that
    // returned instead fails here rather than waiting for a run that never ends.
    const call = real?.ctx.sleep(name, ms).then(
      () => 'returned' as const,
      (err: unknown) => ({ threw: err }),
    );
    if (call !== undefined && real !== undefined) {
      const got = await Promise.race([call, real.batch.then(() => 'the run ended' as const)]);
      expect(got, `sleep of run #${run.id} ends the run`).not.toBe('returned');
      propagatePause(got, real);
      await real.batch;
    }
  });

/**
 * A sleep or wait whose beat found a pause request throws TaskPausedError before it waits:
 * the handler lets it propagate, as handler code does, and the run ends PAUSED (the executor
 * waits for the handler to stop by itself).
 */
function propagatePause(got: unknown, real: RealRun): void {
  if (typeof got !== 'object' || got === null || !('threw' in got)) return;
  if (got.threw instanceof TaskPausedError) real.reject(got.threw);
}

const scriptOf = (r: RealSystem, task: number) => {
  const script = r.scripts.get(task) ?? [];
  r.scripts.set(task, script);
  return script;
};

/** Signal names: two, so that waits and signals of different names interleave. */
const SIGNAL_NAMES = ['approve', 'nudge'] as const;

/**
 * The lease holder's handler waits for a signal (a stale run's wait is not generated: a real
 * handler is deterministic, so a stale run would wait where the holder does, and the model's
 * handler is not). It returns the first unconsumed signal of its name at once, or suspends.
 */
class WaitForSignal implements Cmd {
  constructor(
    readonly n: number,
    readonly name: string,
    readonly timeoutMs: number,
  ) {}
  check = (m: Readonly<M.Model>) => holders(m as M.Model).length > 0;
  async run(m: M.Model, r: RealSystem) {
    const active = holders(m);
    const run = active[this.n % active.length] as M.ModelRun;
    const real = r.runs.get(run.id);
    const want = M.waitForSignal(m, run, this.name, this.timeoutMs);
    count(
      `waitForSignal: ${typeof want === 'object' ? (want.received ? 'received' : 'timed out') : want}`,
    );
    if (want !== 'paused')
      scriptOf(r, run.task).push({ kind: 'signal', name: this.name, ms: this.timeoutMs });
    else if ((m.tasks[run.task] as M.ModelTask).pausedFrom === 'SUSPENDED') {
      scriptOf(r, run.task).push({ kind: 'signal', name: this.name, ms: this.timeoutMs });
    }
    const call = real?.ctx.waitForSignal(this.name, { timeoutMs: this.timeoutMs });
    if (call !== undefined && real !== undefined) {
      // Whichever comes first: the wait's return, or the run's end (it suspended or paused).
      // Awaiting only the one the model expects would hang when the system did the other.
      const got = await Promise.race([
        call.then(
          (value) => ({ returned: value as unknown }),
          (err: unknown) => ({ threw: err }),
        ),
        real.batch.then(() => 'the run ended' as const),
      ]);
      if (typeof want === 'object') {
        expect(got, `${this.toString()} returns at once`).toEqual({ returned: want });
      } else {
        expect(got, `${this.toString()} ends the run (${want})`).toSatisfy(
          (g: unknown) =>
            g === 'the run ended' || (typeof g === 'object' && g !== null && 'threw' in g),
        );
        propagatePause(got, real);
        await real.batch;
      }
    }
    await compare(m, r, [run.task]);
  }
  toString = () => `waitForSignal(holder #${this.n}, ${this.name}, ${this.timeoutMs} ms)`;
}

/** Runs that hold their task's lease. */
const holders = (m: M.Model) =>
  M.activeRuns(m).filter((run) => (m.tasks[run.task] as M.ModelTask).holder === run.id);

class Signal implements Cmd {
  constructor(
    readonly task: number,
    readonly name: string,
  ) {}
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    count(this.task < m.tasks.length ? 'signal' : 'signal to an unknown id');
    const want = M.signal(m, this.task, this.name);
    const got = await r.client
      .signal(r.id(this.task), this.name, { n: typeof want === 'number' ? want : -1 })
      .then(
        (result) => result.seq,
        (err: unknown) => err,
      );
    if (want === 'not found') expect(got).toBeInstanceOf(TaskNotFoundError);
    else if (want === 'rejected') expect(got).toBeInstanceOf(TransitionRejectedError);
    else expect(got, `${this.toString()} is stored`).toBeTypeOf('number');
    await compare(m, r, this.task < m.tasks.length ? [this.task] : []);
  }
  toString = () => `signal(t${this.task}, ${this.name})`;
}

class Pause implements Cmd {
  constructor(readonly task: number) {}
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    const want = M.pause(m, this.task);
    count(`pause: ${want}`);
    const got = await r.client.pause(r.id(this.task)).then(
      (record) => (record.status === 'RUNNING' ? 'requested' : record.status),
      (err: unknown) => err,
    );
    if (want === 'not found') expect(got).toBeInstanceOf(TaskNotFoundError);
    else if (want === 'rejected') expect(got).toBeInstanceOf(TransitionRejectedError);
    else expect(got, this.toString()).toBe(want === 'paused' ? 'PAUSED' : 'requested');
    await compare(m, r, [this.task]);
  }
  toString = () => `pause(t${this.task})`;
}

class Resume implements Cmd {
  constructor(readonly task: number) {}
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    const want = M.resume(m, this.task);
    count(`resume: ${want}`);
    const got = await r.client.resume(r.id(this.task)).then(
      () => 'done',
      (err: unknown) => err,
    );
    if (want === 'not found') expect(got).toBeInstanceOf(TaskNotFoundError);
    else if (want === 'rejected') expect(got).toBeInstanceOf(TransitionRejectedError);
    else expect(got, this.toString()).toBe('done');
    await compare(m, r, [this.task]);
  }
  toString = () => `resume(t${this.task})`;
}

const crash = (n: number) =>
  new RunCommand(n, 'crash', `crash(run #${n})`, async (_m, r, run) => {
    M.crash(run);
    r.runs.delete(run.id); // its handler never returns; its lease stays until it expires
  });

class Tick implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    count(this.ms > LEASE_MS ? 'lease-expire' : 'tick');
    m.steps += 1;
    m.now += this.ms;
    r.clock.now += this.ms;
  }
  toString = () => (this.ms > LEASE_MS ? 'lease-expire' : `tick(${this.ms} ms)`);
}

class Sweep implements Cmd {
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    count('sweep');
    const before = await Promise.all(all(m).map(async (i) => (await r.get(i))?.generation));
    const suspended = all(m).filter((i) => m.tasks[i]?.status === 'SUSPENDED');
    const woken = M.sweep(m);
    await r.sweep();
    // A lost wake is repaired by a new generation's message: the timeout fires through the
    // sweeper when no message came (held for the timer, here never delivered by itself).
    for (const i of suspended) {
      const after = (await r.get(i))?.generation;
      const moved = after !== undefined && before[i] !== undefined && after > (before[i] ?? 0);
      expect(moved, `sweep should ${woken.includes(i) ? '' : 'not '}wake t${i} again`).toBe(
        woken.includes(i),
      );
    }
    if (woken.length > 0) count('sweep: wakes a suspended task');
    await compare(m, r, all(m));
  }
  toString = () => 'sweep';
}

class Cancel implements Cmd {
  constructor(readonly task: number) {}
  check = () => true;
  async run(m: M.Model, r: RealSystem) {
    count('cancel');
    const want = M.cancel(m, this.task);
    expect(await r.cancel(this.task), `cancel(t${this.task})`).toBe(want);
    await compare(m, r, [this.task]);
  }
  toString = () => `cancel(t${this.task})`;
}

/** The command generators over `tasks` tasks. */
export function commands(tasks: number): fc.Arbitrary<Iterable<Cmd>> {
  // Half the sequences start with every task enqueued, so that more of their commands reach
  // runs, waits and pauses; the other half still meet tasks that do not exist yet.
  return fc
    .tuple(fc.boolean(), sequences(tasks))
    .map(([enqueued, cmds]) =>
      enqueued
        ? withToString(
            [...Array.from({ length: tasks }, (_, t) => new Enqueue(t, true)), ...cmds],
            cmds,
          )
        : cmds,
    );
}

/** A prefixed sequence that prints as fast-check prints the sequence (with its replay path). */
function withToString(list: Cmd[], cmds: Iterable<Cmd>): Iterable<Cmd> {
  const prefix = list
    .slice(0, list.length - [...cmds].length)
    .map(String)
    .join(',');
  return Object.assign(list, { toString: () => `${prefix} + ${String(cmds)}` });
}

function sequences(tasks: number): fc.Arbitrary<Iterable<Cmd>> {
  const task = fc.integer({ min: 0, max: tasks - 1 });
  const worker = fc.integer({ min: 0, max: 1 });
  const n = fc.nat({ max: 7 });
  const enqueue = fc.tuple(task, fc.boolean()).map(([t, send]) => new Enqueue(t, send));
  const deliver = fc.tuple(task, worker).map(([t, w]) => new Deliver(t, w, 'deliver'));
  const finishes = fc.tuple(n, fc.boolean()).map(([i, ok]) => finish(i, ok));
  const sleeps = fc
    .tuple(n, fc.constantFrom(1_000, 4_000, 30_000, 120_000))
    .map(([i, ms]) => sleep(i, ms));
  const signalName = fc.constantFrom(...SIGNAL_NAMES);
  const waits = fc
    .tuple(n, signalName, fc.constantFrom(2_000, 30_000, 120_000))
    .map(([i, s, ms]) => new WaitForSignal(i, s, ms));
  const signals = fc.tuple(task, signalName).map(([t, s]) => new Signal(t, s));
  const pauses = task.map((t) => new Pause(t));
  const resumes = task.map((t) => new Resume(t));
  const ticks = fc.integer({ min: 1, max: 5_000 }).map((ms) => new Tick(ms));
  // Repeated entries weigh the choice: a run must be enqueued and delivered to be finished,
  // and must be running to sleep or wait.
  return fc.commands(
    [
      enqueue,
      enqueue,
      enqueue,
      deliver,
      deliver,
      deliver,
      deliver,
      deliver,
      fc.tuple(task, worker).map(([t, w]) => new Deliver(t, w, 'duplicate')),
      finishes,
      finishes,
      n.map(heartbeat),
      n.map(checkpoint),
      n.map(continueRun),
      sleeps,
      sleeps,
      n.map(crash),
      fc.constant(new Tick(LEASE_MS + 1)),
      ticks,
      ticks,
      fc.constant(new Sweep()),
      task.map((t) => new Cancel(t)),
      // Signals, waits, pause and resume (issue 26); t2 is never enqueued: an unknown id.
      fc.tuple(fc.integer({ min: 0, max: tasks }), signalName).map(([t, s]) => new Signal(t, s)),
      signals,
      signals,
      waits,
      waits,
      waits,
      pauses,
      pauses,
      resumes,
      resumes,
    ],
    { maxCommands: MAX_COMMANDS, size: 'max' },
  );
}
