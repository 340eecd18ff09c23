/** Everything one benchmark run measured: the input of the report. */
import type { BenchProfile } from '../config.js';
import type { Check } from '../lib/checks.js';
import type { MachineFacts } from '../lib/machine.js';
import type { AwsShapedResults } from '../scenarios/aws-shaped.js';
import type { FeatureResults } from '../scenarios/features.js';
import type { PackageResults } from '../scenarios/package.js';
import type { RateLimitResults } from '../scenarios/rate-limits.js';
import type { RealisticResults } from '../scenarios/realistic.js';
import type { RetryResults } from '../scenarios/retries.js';
import type { SingleEnqueueResults } from '../scenarios/single-enqueue.js';
import type { ThroughputResults } from '../scenarios/throughput.js';

/** The raw results of a run, also written next to the report as JSON. */
export interface BenchResults {
  /** ISO date-time of the end of the run. */
  readonly date: string;
  readonly wallMs: number;
  readonly profile: BenchProfile;
  readonly machine: MachineFacts;
  /** 1-minute load average at the start and at the end of the run. */
  readonly loadAverage: { readonly start: number; readonly end: number };
  /** True when the run started its own (patched) moto. */
  readonly emulatorStarted: boolean;
  readonly checks: readonly Check[];
  readonly pkg: PackageResults;
  readonly single: SingleEnqueueResults;
  readonly retries: RetryResults;
  readonly throughput: ThroughputResults;
  /**
   * The realistic scenario, the feature costs and the AWS-shaped mode; absent from results
   * recorded before the bench measured them (the report then says "not measured").
   */
  readonly realistic?: RealisticResults;
  readonly features?: FeatureResults;
  readonly awsShaped?: AwsShapedResults;
  /** Whether rate limits reach their rate (issue 29); absent from older results. */
  readonly rateLimits?: RateLimitResults;
}
