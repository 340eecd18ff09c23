/**
 * How big a benchmark run is. `default` is what `npm run bench` runs and what BENCHMARKS.md
 * reports; it is sized to finish in about 10 minutes on a 2-core machine with moto. `full`
 * uses the sizes (1k/5k/10k) and takes hours on moto. `quick` is a smoke test.
 */
import { TableSchema } from '../src/core/constants.js';

/** The sizes and repetitions of one run. */
export interface BenchProfile {
  readonly name: 'default' | 'full' | 'quick';
  /** Task counts of the enqueue, end-to-end and scaling runs (one run per size per rep). */
  readonly sizes: readonly number[];
  /** The size at which the Powertools baseline runs end to end. */
  readonly powertoolsSize: number;
  /** Repetitions of every timed figure (at least 5). */
  readonly reps: number;
  /** Single enqueues (and raw SendMessage calls) per repetition. */
  readonly singleEnqueueTasks: number;
  /** Tasks per repetition of the retry runs; each fails once, then succeeds. */
  readonly retryTasks: number;
  /** Fresh node processes per bundle for the cold-init measurement (at least 10). */
  readonly coldInitProcesses: number;
  /** SQS batch size: SendMessageBatch, the mapping's batch, DeleteMessageBatch. */
  readonly batchSize: number;
  /** The mapping's maximum concurrency (and the raw loop's number of loops). */
  readonly concurrency: number;
  /** Tasks of each realistic run (successful, retried), counted, not timed. */
  readonly realisticTasks: number;
  /** Tasks of each feature-cost scenario. */
  readonly featureTasks: number;
  /** Sizes of the AWS-shaped mode (one run of each per repetition and system). */
  readonly awsShaped: {
    /** Tasks of one enqueueBatch (and of the raw SendMessageBatch loop). */
    readonly batchTasks: number;
    /** Single enqueues (and raw SendMessage calls) in sequence. */
    readonly singleTasks: number;
    /** Tasks drained end to end, with 100 ms handlers. */
    readonly endToEndTasks: number;
  };
  /** Where the report goes. */
  readonly output: string;
}

const common = { reps: 5, batchSize: 10, concurrency: 2 } as const;

/** Every profile by name. */
export const PROFILES: Readonly<Record<BenchProfile['name'], BenchProfile>> = {
  default: {
    ...common,
    name: 'default',
    sizes: [100, 300, 1000],
    powertoolsSize: 300,
    singleEnqueueTasks: 50,
    retryTasks: 30,
    coldInitProcesses: 20,
    realisticTasks: 200,
    featureTasks: 100,
    awsShaped: { batchTasks: 1000, singleTasks: 30, endToEndTasks: 200 },
    output: 'BENCHMARKS.md',
  },
  full: {
    ...common,
    name: 'full',
    sizes: [1000, 5000, 10000],
    powertoolsSize: 1000,
    singleEnqueueTasks: 200,
    retryTasks: 100,
    coldInitProcesses: 20,
    realisticTasks: 1000,
    featureTasks: 300,
    awsShaped: { batchTasks: 1000, singleTasks: 100, endToEndTasks: 1000 },
    output: 'BENCHMARKS.md',
  },
  quick: {
    ...common,
    name: 'quick',
    sizes: [20, 50],
    powertoolsSize: 20,
    singleEnqueueTasks: 5,
    retryTasks: 5,
    coldInitProcesses: 10,
    realisticTasks: 20,
    featureTasks: 10,
    awsShaped: { batchTasks: 100, singleTasks: 5, endToEndTasks: 20 },
    output: '.tasklane/BENCHMARKS.quick.md',
  },
};

/** The attributes keying the task table's sparse status index (docs/adr/0021-sparse-status-index.md). */
export const INDEX_KEY_ATTRIBUTES: readonly string[] = [
  TableSchema.STATUS_INDEX_PARTITION_KEY,
  TableSchema.STATUS_INDEX_SORT_KEY,
];

/**
 * Picks the profile from `--profile NAME` / `--profile=NAME` or BENCH_PROFILE.
 *
 * @throws Error naming the known profiles when the name is unknown.
 */
export function selectProfile(argv: readonly string[], env: NodeJS.ProcessEnv): BenchProfile {
  const index = argv.findIndex((a) => a === '--profile' || a.startsWith('--profile='));
  const arg = index < 0 ? undefined : (argv[index]?.split('=')[1] ?? argv[index + 1]);
  const name = arg ?? env.BENCH_PROFILE ?? 'default';
  const profile = PROFILES[name as BenchProfile['name']];
  if (profile === undefined) {
    throw new Error(
      `unknown profile '${name}'; expected one of ${Object.keys(PROFILES).join(', ')}`,
    );
  }
  return profile;
}
