/**
 * One fault scenario: its seed, its own executor and effects ledger, worker factories, and
 * the bookkeeping that ends in a table of figures and a list of pass criteria.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { expect, inject } from 'vitest';
import type { TaskClientOptions } from '../../../src/client/options.js';
import { TaskClient } from '../../../src/client/task-client.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { noopMetrics } from '../../../src/observability/metrics.js';
import {
  createWorker,
  type Worker,
  type WorkerOptions,
} from '../../../src/worker/create-worker.js';
import { type AwsClients, tasklaneClients, tasklaneScheduler } from '../../helpers/aws.js';
import { type EmulatorExecutor, provisionExecutor } from '../../helpers/executor.js';
import { classify, type Expectation, type Figures, type TaskVerdict } from './classify.js';
import { faultTask, type HandlerEnv, type TaskProfile } from './fault-tasks.js';
import { KNOWN_FAILURES } from './known-failures.js';
import { CallLog, EffectsLedger } from './ledger.js';
import { WorkerFleet, type WorkerProcessConfig } from './processes.js';
import { deriveSeed, type Rng, rng } from './random.js';
import { quiesce, readAllRecords } from './records.js';
import {
  type CriterionResult,
  figuresTable,
  rowTitle,
  type ScenarioResult,
  saveResult,
} from './report.js';

export interface ScenarioOptions {
  /** Short id, also the result's file name and sort key: `a`, `b`, … */
  readonly id: string;
  readonly title: string;
  /** One or two sentences for RELIABILITY.md: what the scenario does. */
  readonly description: string;
  /** Sets the queue's visibility timeout (6×). */
  readonly workerTimeoutSeconds: number;
  readonly maxAttempts: number;
  /** Provisions a schedule group too (delayed tasks). */
  readonly scheduling?: boolean;
}

export class Scenario {
  readonly masterSeed = inject('faultSeed');
  readonly seed: number;
  readonly rng: Rng;
  readonly logFile: string;
  /** Every handler call of the scenario, in process and in child processes. */
  readonly calls = new CallLog();
  private readonly started = Date.now();
  private readonly criteria: CriterionResult[] = [];
  private readonly notes: Record<string, string | number> = {};
  private figures: Partial<Figures> | undefined;
  private sequences: number | undefined;
  private described = '';

  private constructor(
    readonly options: ScenarioOptions,
    readonly executor: EmulatorExecutor,
    readonly ledger: EffectsLedger,
  ) {
    this.seed = deriveSeed(this.masterSeed, options.id);
    this.rng = rng(this.seed);
    this.logFile = path.join(inject('faultResultsDir'), `${options.id}.log`);
    console.log(`[faults] (${options.id}) seed ${this.seed}; worker logs: ${this.logFile}`);
  }

  static async open(options: ScenarioOptions): Promise<Scenario> {
    const executor = await provisionExecutor({
      label: `faults-${options.id}`,
      workerTimeoutSeconds: options.workerTimeoutSeconds,
      maxAttempts: options.maxAttempts,
      maxReceiveCount: Math.max(50, options.maxAttempts * 10),
      // Clients configured as Tasklane's own: their retries are part of what is tested.
      clients: {
        ...tasklaneClients(),
        ...(options.scheduling ? { scheduler: tasklaneScheduler() } : {}),
      },
    });
    const ledger = await EffectsLedger.create(
      `${executor.name}-effects`,
      executor.clients.dynamodb,
    );
    return new Scenario(options, executor, ledger);
  }

  /** The fault task as a producer sees it (its handler never runs in the producer). */
  producerTask(profile: TaskProfile) {
    return faultTask({
      ledger: this.ledger,
      calls: () => undefined,
      workerId: 'producer',
      profile,
    });
  }

  /** A producer; `clients` lets a scenario inject faults into the producer alone. */
  client(options: Partial<TaskClientOptions> & { clients?: AwsClients } = {}): TaskClient {
    const { clients, ...rest } = options;
    return new TaskClient({
      tableName: this.executor.tableName,
      queueUrl: this.executor.queueUrl,
      deadLetterQueueUrl: this.executor.deadLetterQueueUrl,
      ...(clients ?? this.executor.clients),
      logger: silentLogger,
      ...rest,
    });
  }

  /** An in-process worker running the fault task. */
  worker(
    env: Omit<HandlerEnv, 'ledger' | 'workerId' | 'calls' | 'ends'>,
    options: Partial<WorkerOptions> & { clients?: AwsClients } = {},
  ): Worker {
    const { clients, ...rest } = options;
    const workerId = rest.workerId ?? `inproc-${randomBytes(3).toString('hex')}`;
    const calls = (entry: Parameters<HandlerEnv['calls']>[0]) => this.calls.record(entry);
    const ends = (entry: Parameters<NonNullable<HandlerEnv['ends']>>[0]) =>
      this.calls.recordEnd(entry);
    return createWorker([faultTask({ ...env, ledger: this.ledger, calls, ends, workerId })], {
      tableName: this.executor.tableName,
      queueUrl: this.executor.queueUrl,
      ...(clients ?? this.executor.clients),
      logger: silentLogger,
      // A short grace, so that a lease lost to a fault is taken over within seconds; the
      // clock-skew scenario sets the production default explicitly.
      leaseGraceMs: 2000,
      metrics: noopMetrics,
      ...rest,
      workerId,
    });
  }

  /** A supervised fleet of worker child processes. */
  fleet(
    profile: TaskProfile,
    settings: Omit<
      WorkerProcessConfig,
      'workerId' | 'tableName' | 'queueUrl' | 'ledgerTable' | 'profile'
    >,
    idPrefix = 'proc',
  ): WorkerFleet {
    return new WorkerFleet(
      inject('faultWorkerScript'),
      {
        ...settings,
        profile,
        tableName: this.executor.tableName,
        queueUrl: this.executor.queueUrl,
        ledgerTable: this.ledger.tableName,
      },
      this.logFile,
      this.calls,
      idPrefix,
    );
  }

  /** Waits for every task to be terminal (workers and sweeper must still be running). */
  async quiesce(ids: readonly string[], timeoutMs: number): Promise<void> {
    const outcome = await quiesce(this.executor, ids, timeoutMs);
    this.note('quiesce wait', `${(outcome.waitedMs / 1000).toFixed(1)} s`);
    if (!outcome.quiescent) this.note('open tasks at the quiesce deadline', outcome.open);
  }

  /** Classifies every task in `expected` and records the figures. */
  async classify(
    expected: ReadonlyMap<string, Expectation>,
  ): Promise<{ figures: Figures; verdicts: TaskVerdict[] }> {
    const [records, ledger] = await Promise.all([
      readAllRecords(this.executor),
      this.ledger.readAll(),
    ]);
    const outcome = classify(expected, records, ledger, this.calls.entries);
    this.figures = outcome.figures;
    const odd = outcome.verdicts.filter((v) => v.category !== 'exactly-once');
    for (const v of odd.slice(0, 15)) {
      const history = (records.get(v.id)?.history ?? [])
        .map(
          (h) =>
            `${h.event}#${h.attempt}${h.workerId ? `@${h.workerId}` : ''}${h.detail ? ` (${h.detail})` : ''}`,
        )
        .join(' > ');
      const runs = [
        ...this.calls.entries.filter((e) => e.taskId === v.id).map((e) => ['call', e] as const),
        ...ledger.filter((e) => e.taskId === v.id).map((e) => ['effect', e] as const),
      ]
        .map(([kind, e]) => `${kind}#${e.attempt}@${e.workerId}`)
        .join(', ');
      console.log(
        `[faults] (${this.options.id}) ${v.category} ${v.id}: ${v.reasons.join('; ')}\n  history: ${history}\n  ledger: ${runs}`,
      );
    }
    return outcome;
  }

  /** Figures for scenarios that are not about a population of tasks (some left out). */
  setFigures(figures: Partial<Figures>): void {
    this.figures = figures;
  }

  /** A model-based test's count of command sequences, for the summary tables. */
  setSequences(sequences: number): void {
    this.sequences = sequences;
  }

  /** Adds a sentence of what the run found to the scenario's description (RELIABILITY.md). */
  describe(sentence: string): void {
    this.described += ` ${sentence}`;
  }

  note(key: string, value: string | number): void {
    this.notes[key] = value;
  }

  /** Records a pass criterion; `finish()` asserts them all. */
  check(id: string, text: string, pass: boolean, actual: string | number): void {
    const known = KNOWN_FAILURES[`${this.options.id}:${id}`];
    this.criteria.push({
      id,
      text,
      actual: String(actual),
      pass,
      ...(known === undefined ? {} : { known }),
    });
  }

  /** Saves and prints the result, then fails the test for any criterion not known to fail. */
  async finish(): Promise<ScenarioResult> {
    const result: ScenarioResult = {
      id: this.options.id,
      title: this.options.title,
      description: `${this.options.description}${this.described}`,
      masterSeed: this.masterSeed,
      seed: this.seed,
      date: new Date().toISOString(),
      wallMs: Date.now() - this.started,
      ...(this.figures === undefined ? {} : { figures: this.figures }),
      ...(this.sequences === undefined ? {} : { sequences: this.sequences }),
      criteria: this.criteria,
      notes: this.notes,
    };
    await saveResult(inject('faultResultsDir'), result);
    console.log(
      `\n[faults] ${rowTitle(result)} (seed ${result.seed}, FAULT_SEED=${result.masterSeed})\n` +
        `${figuresTable(result)}\n${this.criteria
          .map(
            (c) => `${c.pass ? 'PASS' : c.known ? 'KNOWN FAILURE' : 'FAIL'} ${c.text}: ${c.actual}`,
          )
          .join('\n')}\n`,
    );
    const failed = this.criteria.filter((c) => !c.pass && c.known === undefined);
    expect(
      failed.map((c) => `${c.text}: ${c.actual}`),
      `replay with FAULT_SEED=${this.masterSeed}`,
    ).toEqual([]);
    return result;
  }
}

/** Expectations for tasks that should all succeed exactly once. */
export function allSucceed(ids: Iterable<string>): Map<string, Expectation> {
  return new Map([...ids].map((id) => [id, { status: 'SUCCEEDED', effects: 1 }]));
}

/** The criteria every scenario shares: nothing lost, terminal written once. */
export function checkCommon(scenario: Scenario, figures: Figures): void {
  scenario.check('lost', 'lost = 0', figures.lost === 0, figures.lost);
  scenario.check(
    'terminal-once',
    'duplicated terminal writes = 0',
    figures.duplicatedTerminalWrites === 0,
    figures.duplicatedTerminalWrites,
  );
  scenario.check(
    'attempts',
    'attempts never exceed maxAttempts',
    figures.attemptsOverLimit === 0,
    `${figures.attemptsOverLimit} task(s) over, max seen ${figures.maxAttemptsSeen}`,
  );
}

/**
 * The criterion of scenarios where leases are lost on purpose: a handler may run again only
 * after a lost lease, so duplicated effects are bounded by the lost leases, and each one
 * belongs to an attempt that the task's history shows.
 */
export function checkDuplicatesExplained(scenario: Scenario, figures: Figures): void {
  scenario.check(
    'duplicates-explained',
    'duplicated side effects ≤ lost leases, each visible in the history',
    figures.unexplainedDuplicates === 0 && figures.duplicatedEffects <= figures.lostLeases,
    `${figures.duplicatedEffects} duplicated, ${figures.lostLeases} lost leases, ${figures.unexplainedDuplicates} unexplained`,
  );
}

/**
 * Every task SUCCEEDED, except that one may be DEAD if every one of its attempts lost its
 * lease or timed out: bounded retries (docs/design.md §1.5) then rightly give up on it. Such a
 * task may also have run its handler more than once (one run per lost lease), so it counts as
 * exhausted whether it was classified `duplicated` or `unexpected`; whether those runs are
 * explained is `checkDuplicatesExplained`'s question, not this one's.
 */
export function checkSucceededOrExhausted(
  scenario: Scenario,
  figures: Figures,
  verdicts: readonly TaskVerdict[],
): void {
  const isExhausted = (v: TaskVerdict) =>
    (v.category === 'unexpected' || v.category === 'duplicated') &&
    v.status === 'DEAD' &&
    v.lostLeases >= v.attempt;
  const exhausted = verdicts.filter(isExhausted).length;
  const succeeded = verdicts.filter((v) => v.status === 'SUCCEEDED').length;
  const otherUnexpected = verdicts.filter(
    (v) => v.category === 'unexpected' && !isExhausted(v),
  ).length;
  scenario.note('DEAD after every attempt lost its lease', exhausted);
  scenario.check(
    'succeeded',
    `every task SUCCEEDED, or is DEAD after all its attempts lost their lease`,
    succeeded + exhausted === figures.tasks && otherUnexpected === 0,
    `${succeeded} SUCCEEDED, ${exhausted} DEAD after lost leases, ${otherUnexpected} other unexpected, of ${figures.tasks}`,
  );
}
