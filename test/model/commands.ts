/**
 * The model test's commands: each applies one step to the reference model and to the real
 * system, then compares the two for the tasks the step may have touched.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { AuditEvent } from '../../src/core/constants.js';
import { LeaseLostError } from '../../src/core/errors.js';
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
      },
      `t${i} after ${m.steps} step(s); history ${got.history.map((h) => `${h.event}#${h.attempt}`).join(' > ')}`,
    ).toEqual({
      status: want.status,
      attempt: want.attempt,
      history: want.history,
      heartbeats: want.heartbeats,
      terminalWrites: want.terminalWrites,
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
    count(this.name);
    const outcome = M.deliver(m, this.task);
    const run = await r.deliver(this.task, this.worker);
    expect(
      run !== undefined,
      `${this.toString()} should ${typeof outcome === 'object' ? '' : 'not '}start a run (${typeof outcome === 'object' ? 'claim' : outcome})`,
    ).toBe(typeof outcome === 'object');
    if (typeof outcome === 'object' && run !== undefined) r.runs.set(outcome.id, run);
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

const heartbeat = (n: number) =>
  new RunCommand(n, 'heartbeat', `heartbeat(run #${n})`, async (m, _r, run, real) => {
    const held = M.heartbeat(m, run);
    await fencedWrite(
      real?.ctx.heartbeat(),
      held,
      `heartbeat of run #${run.id} should ${held ? 'extend' : 'lose'} the lease`,
      real,
    );
  });

const checkpoint = (n: number) =>
  new RunCommand(n, 'checkpoint', `checkpoint(run #${n})`, async (m, _r, run, real) => {
    const held = M.checkpoint(m, run);
    await fencedWrite(
      real?.ctx.saveCheckpoint({ step: m.steps }),
      held,
      `checkpoint of run #${run.id} should ${held ? 'be stored' : 'lose the lease'}`,
      real,
    );
  });

const continueRun = (n: number) =>
  new RunCommand(n, 'continue', `continue(run #${n})`, async (m, _r, run, real) => {
    M.continueRun(m, run);
    if (real !== undefined) real.resolve(real.ctx.continue());
    await real?.batch;
  });

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
    M.sweep(m, 0);
    await r.sweep();
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
  const task = fc.integer({ min: 0, max: tasks - 1 });
  const worker = fc.integer({ min: 0, max: 1 });
  const n = fc.nat({ max: 7 });
  const enqueue = fc.tuple(task, fc.boolean()).map(([t, send]) => new Enqueue(t, send));
  const deliver = fc.tuple(task, worker).map(([t, w]) => new Deliver(t, w, 'deliver'));
  const finishes = fc.tuple(n, fc.boolean()).map(([i, ok]) => finish(i, ok));
  // Repeated entries weigh the choice: a run must be enqueued and delivered to be finished.
  return fc.commands(
    [
      enqueue,
      enqueue,
      deliver,
      deliver,
      deliver,
      fc.tuple(task, worker).map(([t, w]) => new Deliver(t, w, 'duplicate')),
      finishes,
      finishes,
      finishes,
      n.map(heartbeat),
      n.map(checkpoint),
      n.map(continueRun),
      n.map(crash),
      fc.constant(new Tick(LEASE_MS + 1)),
      fc.integer({ min: 1, max: 5_000 }).map((ms) => new Tick(ms)),
      fc.constant(new Sweep()),
      task.map((t) => new Cancel(t)),
    ],
    { maxCommands: MAX_COMMANDS, size: 'max' },
  );
}
