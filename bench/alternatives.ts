/**
 * List prices of the orchestrators the capacity model (docs/capacity.md) holds Tasklane
 * against, us-east-1 where a Region applies, and the shape of one task on each: a stated
 * assumption, not a measurement. Update `asOf` whenever a price changes.
 */

/** How many billed units one task takes on a system, succeeding at once or after one retry. */
export interface TaskShape {
  /** Units per task that succeeds at once. */
  readonly perTask: number;
  /** Units one retry adds. */
  readonly perRetry: number;
  /** What the units are, and why this many. */
  readonly assumption: string;
}

/** One orchestrator's price of a task, beside the Lambda invocation that runs its handler. */
export interface Alternative {
  readonly name: string;
  /** Dollars per million of its billed unit. */
  readonly perMillionUnits: number;
  readonly unit: string;
  readonly shape: TaskShape;
  /**
   * Other dollars per million tasks that do not depend on retries (Express duration,
   * durable data written); 0 when none.
   */
  readonly otherPerMillionTasks: number;
  readonly otherWhy: string;
  /** A percentage added to the usage charge (a plan fee), 0 when none. */
  readonly planPercent: number;
  /** True when each task's handler is its own Lambda invocation (priced as Tasklane's compute). */
  readonly invokesLambdaPerTask: boolean;
  /** Its throughput quota at these rates, in words, from the cited page. */
  readonly throughput: string;
  readonly sources: readonly string[];
}

const STEP_FUNCTIONS = 'https://aws.amazon.com/step-functions/pricing/';
const STEP_FUNCTIONS_QUOTAS =
  'https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html';

/** Step Functions Express: the billed duration of one execution, at its minimums. */
const EXPRESS = {
  perGbSecond: 0.00001667,
  memoryMb: 64,
  billedMs: 100,
} as const;

const expressDurationPerMillion =
  1e6 * (EXPRESS.memoryMb / 1024) * (EXPRESS.billedMs / 1000) * EXPRESS.perGbSecond;

/** Lambda durable functions: data each task checkpoints, in KB. */
const DURABLE_KB_WRITTEN = 1;
const DURABLE_PER_GB_WRITTEN = 0.25;

/** When these prices were checked. */
export const ALTERNATIVES_AS_OF = '2026-12-06';

/** The systems compared, in the order of the table. */
export const ALTERNATIVES: readonly Alternative[] = [
  {
    name: 'Step Functions Standard',
    perMillionUnits: 25,
    unit: 'state transitions',
    shape: {
      perTask: 2,
      perRetry: 1,
      assumption:
        'a Task state that invokes the handler function, then a Succeed state: 2 transitions; a retry of the Task state 1 more',
    },
    otherPerMillionTasks: 0,
    otherWhy: '',
    planPercent: 0,
    invokesLambdaPerTask: true,
    throughput:
      'StartExecution and state transitions are throttled by token buckets (adjustable, listed on the quotas page); new accounts start lower',
    sources: [STEP_FUNCTIONS, STEP_FUNCTIONS_QUOTAS],
  },
  {
    name: 'Step Functions Express',
    perMillionUnits: 1,
    unit: 'requests (executions)',
    shape: {
      perTask: 1,
      perRetry: 0,
      assumption:
        'one execution per task, retried inside it; billed at the minimums, 64 MB and 100 ms, at $0.00001667 per GB-s (the first 1,000 GB-hours of a month; later ones cost less)',
    },
    otherPerMillionTasks: expressDurationPerMillion,
    otherWhy: 'duration',
    planPercent: 0,
    invokesLambdaPerTask: true,
    throughput:
      'StartExecution is throttled by a token bucket (adjustable); executions are at-least-once and last at most 5 minutes',
    sources: [STEP_FUNCTIONS, STEP_FUNCTIONS_QUOTAS],
  },
  {
    name: 'Temporal Cloud',
    perMillionUnits: 25,
    unit: 'Actions',
    shape: {
      perTask: 2,
      perRetry: 1,
      assumption:
        "a Workflow that runs one Activity: Start Workflow and Schedule Activity, 2 Actions; a retry of the Activity 1 more. Priced at $25 per million, the lowest listed tier (100M–200M Actions a month; above 200M the price is by quote, the first 5M cost $50), plus the Business plan's 10% of usage; storage and your workers' compute are not counted",
    },
    otherPerMillionTasks: 0,
    otherWhy: '',
    planPercent: 10,
    invokesLambdaPerTask: false,
    throughput:
      '500 Actions/s per Namespace by default, raised automatically from the last 7 days of use or by provisioned capacity',
    sources: [
      'https://docs.temporal.io/cloud/pricing',
      'https://docs.temporal.io/cloud/actions',
      'https://docs.temporal.io/cloud/limits',
    ],
  },
  {
    name: 'Lambda durable functions',
    perMillionUnits: 8,
    unit: 'durable operations',
    shape: {
      perTask: 2,
      perRetry: 1,
      assumption: `the execution's start and one step: 2 operations; a retried step 1 more; ${DURABLE_KB_WRITTEN} KB checkpointed per task at $${DURABLE_PER_GB_WRITTEN} per GB written (retention not counted)`,
    },
    otherPerMillionTasks: ((1e6 * DURABLE_KB_WRITTEN) / (1024 * 1024)) * DURABLE_PER_GB_WRITTEN,
    otherWhy: 'data written',
    planPercent: 0,
    invokesLambdaPerTask: true,
    throughput:
      "the function's Lambda concurrency and scaling rate, as for Tasklane's worker, one invocation per task",
    sources: ['https://aws.amazon.com/lambda/pricing/'],
  },
];
