/**
 * The durable operations' own costs (ADR 0047, ADR 0048), computed from the feature rows:
 * each operation is its row minus the row it adds to (the plain task, or another durable
 * row), per task, so each figure is per operation, over and above a plain task. Also the
 * measured proof that a wait costs nothing while it waits.
 */
import { costPerMillion } from '../lib/cost.js';
import { mergeTallies, scaleTally, type Tally } from '../lib/request-counter.js';
import type { FeatureRun } from '../scenarios/features.js';
import { requestsWhileWaiting } from '../scenarios/measure-tasks.js';
import { num, table, usd } from './markdown.js';
import { taskFigures } from './measured-figures.js';

/** One durable operation: a feature row, and the row it is measured against. */
export interface DurableOperation {
  /** The feature row's id. */
  readonly id: string;
  /** The row it adds to. */
  readonly base: string;
  readonly label: string;
}

/** The operations, in the table's order. */
export const DURABLE_OPERATIONS: readonly DurableOperation[] = [
  { id: 'step', base: 'plain', label: 'A memoized step, first run (300-byte result)' },
  { id: 'checkpoint', base: 'plain', label: 'A checkpoint (100 bytes)' },
  { id: 'continue', base: 'checkpoint', label: 'A continuation' },
  { id: 'sleepHeld', base: 'plain', label: 'A short sleep (message held: SQS visibility)' },
  { id: 'sleepScheduled', base: 'plain', label: 'A long sleep (one-time wake schedule)' },
  { id: 'signalAfter', base: 'plain', label: 'A signal wait, the signal sent during the wait' },
  { id: 'signalBefore', base: 'plain', label: 'A signal wait, the signal sent before it' },
  { id: 'signalTimeout', base: 'plain', label: 'A signal wait that times out' },
  { id: 'pauseQueued', base: 'plain', label: 'A pause and resume of a QUEUED task' },
  {
    id: 'pauseSuspended',
    base: 'signalAfter',
    label: 'A pause and resume of a SUSPENDED task (waiting for a signal)',
  },
];

/** One operation's figures, per operation. */
export interface OperationCost {
  readonly operation: DurableOperation;
  readonly requests: Readonly<Record<'SQS' | 'DynamoDB' | 'Scheduler' | 'S3', number>>;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly invocations: number;
  /** Dollars per million operations (Scheduler: one invocation per schedule created). */
  readonly cost: number;
}

function negate(tally: Tally): Tally {
  return scaleTally(tally, -1);
}

function serviceRequests(tally: Tally, service: string): number {
  return Object.entries(tally)
    .filter(([key]) => key.startsWith(`${service}.`))
    .reduce((sum, [, t]) => sum + t.requests, 0);
}

/** The cost of each operation whose row and base row were both measured. */
export function operationCosts(runs: readonly FeatureRun[]): OperationCost[] {
  const byId = new Map(runs.map((run) => [run.id, taskFigures(run.measured)]));
  return DURABLE_OPERATIONS.flatMap((operation) => {
    const row = byId.get(operation.id);
    const base = byId.get(operation.base);
    if (row === undefined || base === undefined) return [];
    const tally = mergeTallies(row.tally, negate(base.tally));
    const invocations = row.invocations - base.invocations;
    const schedules = serviceRequests(tally, 'Scheduler');
    return [
      {
        operation,
        requests: {
          SQS: serviceRequests(tally, 'SQS'),
          DynamoDB: serviceRequests(tally, 'DynamoDB'),
          Scheduler: schedules,
          S3: serviceRequests(tally, 'S3'),
        },
        writeUnits: row.writeUnits - base.writeUnits,
        readUnits: row.readUnits - base.readUnits,
        invocations,
        cost: costPerMillion({
          tally,
          lambdaInvocations: invocations,
          schedulerInvocations: schedules,
        }).total,
      },
    ];
  });
}

/** What the observed waits sent, over every scenario that observed one. */
export interface WaitSummary {
  /** Scenarios whose wait was observed. */
  readonly scenarios: number;
  /** The shortest window, ms. */
  readonly windowMs: number;
  /** Tasks waiting in each window. */
  readonly tasks: number;
  /** Requests in all windows beyond the event source mapping's idle receives. */
  readonly requests: number;
  readonly invocations: number;
  /** The idle receives, which the mapping sends whether or not a task waits. */
  readonly idleReceives: number;
}

/** Sums the observed wait windows, or undefined when no scenario observed one. */
export function waitSummary(runs: readonly FeatureRun[]): WaitSummary | undefined {
  const windows = runs.flatMap((run) =>
    run.measured.waitWindow === undefined ? [] : [run.measured.waitWindow],
  );
  if (windows.length === 0) return undefined;
  return {
    scenarios: windows.length,
    windowMs: Math.min(...windows.map((w) => w.ms)),
    tasks: Math.min(...windows.map((w) => w.suspendedAtStart)),
    requests: windows.reduce((sum, w) => sum + requestsWhileWaiting(w), 0),
    invocations: windows.reduce((sum, w) => sum + w.invocations, 0),
    idleReceives: windows.reduce(
      (sum, w) => sum + (w.tally['SQS.ReceiveMessage(empty)']?.requests ?? 0),
      0,
    ),
  };
}

/** The table of {@link operationCosts}, in Markdown. */
export function operationsTable(costs: readonly OperationCost[]): string {
  const signed = (x: number) => num(Math.abs(x) < 0.005 ? 0 : x);
  return table(
    [
      'Durable operation',
      'Measured as',
      'SQS requests',
      'DynamoDB requests',
      'Scheduler requests',
      'S3 requests',
      'Write units',
      'Read units',
      'Lambda invocations',
      'Cost per million',
    ],
    costs.map((c) => [
      c.operation.label,
      `\`${c.operation.id}\` − \`${c.operation.base}\``,
      signed(c.requests.SQS),
      signed(c.requests.DynamoDB),
      signed(c.requests.Scheduler),
      signed(c.requests.S3),
      signed(c.writeUnits),
      signed(c.readUnits),
      signed(c.invocations),
      usd(c.cost),
    ]),
  );
}
