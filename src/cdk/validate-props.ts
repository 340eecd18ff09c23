/**
 * Validation of TaskExecutorProps: a table of rules, one message listing every failure.
 * Values that are CDK Tokens are not known at synth time and are skipped.
 */
import { existsSync, statSync } from 'node:fs';
import { Token } from 'aws-cdk-lib';
import { Defaults } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../core/errors.js';
import { type ExecutorSettingsProps, settingsIssues } from '../settings/executor.js';
import { retentionIssue } from '../settings/retention.js';
import { statusShardsIssue } from '../store/status-index-keys.js';
import { retryHorizonIssue } from '../tasks/retry-horizon.js';
import { MIN_NODE_MAJOR } from './executor-functions.js';

/** The subset of TaskExecutorProps that this module checks, with Durations in seconds. */
export interface PropsToValidate extends ExecutorSettingsProps {
  readonly workerEntry: string | undefined;
  readonly workerMemorySize?: number | undefined;
  /** `lambdaRuntime`'s name, e.g. `nodejs24.x`. */
  readonly lambdaRuntimeName?: string | undefined;
  readonly batchSize?: number | undefined;
  readonly maxConcurrency?: number | undefined;
  /** With lanes, every lane's maxConcurrency added up. */
  readonly laneConcurrency?: number | undefined;
  readonly reservedConcurrency?: number | undefined;
  readonly oldestMessageAgeThresholdSeconds?: number | undefined;
  /** `maxRetryDelay`, in seconds. */
  readonly maxRetryDelaySeconds?: number | undefined;
  /** `retention`, in milliseconds, or `'forever'`. */
  readonly retentionMs?: number | 'forever' | undefined;
  readonly statusShards?: number | undefined;
}

interface Rule {
  /** The prop the rule is about, as the user wrote it. */
  readonly path: string;
  /** Returns what was expected when the props break the rule. */
  readonly check: (props: PropsToValidate) => string | undefined;
}

const ENTRY_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

function integerIn(
  value: number | undefined,
  min: number,
  max: number,
  what = '',
): string | undefined {
  if (value === undefined || Token.isUnresolved(value)) return undefined;
  if (Number.isInteger(value) && value >= min && value <= max) return undefined;
  return `expected an integer from ${min} to ${max}${what}, received ${value}`;
}

const rules: readonly Rule[] = [
  {
    path: 'workerEntry',
    check: ({ workerEntry }) => {
      if (workerEntry === undefined) {
        return 'expected the path of the worker module that exports `handler`, received undefined';
      }
      if (Token.isUnresolved(workerEntry)) return undefined;
      const shown = JSON.stringify(workerEntry);
      if (!ENTRY_EXTENSIONS.some((ext) => workerEntry.endsWith(ext))) {
        return `expected a module path ending in ${ENTRY_EXTENSIONS.join(', ')}, received ${shown}`;
      }
      if (!existsSync(workerEntry) || !statSync(workerEntry).isFile()) {
        return `expected an existing file that exports \`handler\`, received ${shown} (not found)`;
      }
      return undefined;
    },
  },
  { path: 'workerMemorySize', check: (p) => integerIn(p.workerMemorySize, 128, 10_240, ' MB') },
  {
    path: 'lambdaRuntime',
    check: ({ lambdaRuntimeName }) => {
      if (lambdaRuntimeName === undefined || Token.isUnresolved(lambdaRuntimeName))
        return undefined;
      const match = /^nodejs(\d+)\.x$/.exec(lambdaRuntimeName);
      if (match !== null && Number(match[1]) >= MIN_NODE_MAJOR) return undefined;
      return `expected a Node.js runtime, ${MIN_NODE_MAJOR} or later (the bundles are built for Node.js ${MIN_NODE_MAJOR}), received ${JSON.stringify(lambdaRuntimeName)}`;
    },
  },
  // A FIFO event source takes at most 10 messages per batch.
  { path: 'batchSize', check: (p) => integerIn(p.batchSize, 1, 10) },
  { path: 'maxConcurrency', check: (p) => integerIn(p.maxConcurrency, 2, 1_000) },
  {
    path: 'reservedConcurrency',
    check: ({ reservedConcurrency, maxConcurrency = 10, laneConcurrency }) => {
      if (reservedConcurrency === undefined || Token.isUnresolved(reservedConcurrency)) {
        return undefined;
      }
      if (laneConcurrency !== undefined && !Token.isUnresolved(laneConcurrency)) {
        // Lanes share the function: fewer executions than their mappings' sum lets a busy
        // lane take the executions another lane needs.
        return integerIn(
          reservedConcurrency,
          laneConcurrency,
          1_000_000,
          ` (at least the lanes' maxConcurrency added up, ${laneConcurrency})`,
        );
      }
      // Fewer reserved executions than the mapping's concurrency makes Lambda throttle it.
      const floor = Token.isUnresolved(maxConcurrency) ? 1 : maxConcurrency;
      return integerIn(
        reservedConcurrency,
        floor,
        1_000_000,
        ` (at least maxConcurrency, ${floor})`,
      );
    },
  },
  {
    path: 'oldestMessageAgeThreshold',
    check: (p) => integerIn(p.oldestMessageAgeThresholdSeconds, 60, 1_209_600, ' seconds'),
  },
  {
    path: 'maxRetryDelay',
    check: (p) =>
      integerIn(p.maxRetryDelaySeconds, 0, Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS, ' seconds'),
  },
  {
    // Retries reuse the first message, whose retention (14 days) runs from its first send.
    path: 'maxAttempts',
    check: ({
      maxAttempts = Defaults.MAX_ATTEMPTS,
      maxRetryDelaySeconds = Defaults.RETRY_MAX_DELAY_MS / 1000,
      workerTimeoutSeconds = 60,
    }) => {
      const figures = [maxAttempts, maxRetryDelaySeconds, workerTimeoutSeconds];
      if (figures.some((v) => Token.isUnresolved(v) || !Number.isFinite(v))) return undefined;
      return retryHorizonIssue(
        {
          maxAttempts,
          maxDelayMs: maxRetryDelaySeconds * 1000,
          timeoutMs: workerTimeoutSeconds * 1000,
        },
        Defaults.QUEUE_RETENTION_SECONDS * 1000,
        { maxDelay: 'maxRetryDelay', timeout: 'workerTimeout' },
      );
    },
  },
  {
    path: 'retention',
    check: ({ retentionMs }) =>
      retentionMs === undefined || Token.isUnresolved(retentionMs)
        ? undefined
        : retentionIssue(retentionMs),
  },
  {
    path: 'statusShards',
    check: ({ statusShards }) =>
      statusShards === undefined || Token.isUnresolved(statusShards)
        ? undefined
        : statusShardsIssue(statusShards),
  },
];

/** Settings paths in seconds, renamed to the construct's Duration props. */
const SETTINGS_PATHS: Readonly<Record<string, string>> = {
  workerTimeoutSeconds: 'workerTimeout',
  visibilityTimeoutSeconds: 'visibilityTimeout',
};

/**
 * Checks the props against every rule and the shared settings rules.
 *
 * @throws ValidationError listing every failure, each with the value received.
 */
export function validateTaskExecutorProps(props: PropsToValidate): void {
  const issues: ValidationIssue[] = [];
  for (const rule of rules) {
    const message = rule.check(props);
    if (message !== undefined) issues.push({ path: rule.path, message });
  }
  for (const issue of settingsIssues(props, { isUnresolved: (v) => Token.isUnresolved(v) })) {
    const renamed = SETTINGS_PATHS[issue.path];
    issues.push(
      renamed === undefined ? issue : { path: renamed, message: `${issue.message} (in seconds)` },
    );
  }
  if (issues.length > 0) throw new ValidationError('TaskExecutor props', issues);
}
