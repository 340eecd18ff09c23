/**
 * The settings of an executor's lanes (docs/lanes.md): their queues' names and attributes
 * and their event source mappings' concurrency and batch size, shared by the CDK construct
 * and the emulator's provisioning like the rest of {@link ExecutorSettings}.
 */
import type { ValidationIssue } from './core/errors.js';
import { DEFAULT_LANE, laneNameProblem, MAX_LANES } from './lanes.js';

/** One lane of `TaskExecutorProps.lanes`. */
export interface LaneProps {
  /**
   * The lane's event source mapping's maximum concurrent invocations, 2 to 1000: how many
   * of the lane's batches run at once, whatever the other lanes do.
   * @default the executor's maxConcurrency
   */
  readonly maxConcurrency?: number;
  /** Messages per worker invocation from this lane, 1 to 10 (FIFO). @default the executor's batchSize */
  readonly batchSize?: number;
}

/** One SQS queue: its name and CreateQueue attributes. */
export interface LaneQueueSettings {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** A lane as the construct and provisioning build it. */
export interface LaneSettings {
  readonly workQueue: LaneQueueSettings;
  readonly deadLetterQueue: LaneQueueSettings;
  /** Undefined: the executor's maxConcurrency. */
  readonly maxConcurrency: number | undefined;
  /** Undefined: the executor's batchSize. */
  readonly batchSize: number | undefined;
}

/** SQS's longest queue name, `.fifo` included. */
const MAX_QUEUE_NAME = 80;

/** The work queue and DLQ names of `lane`; the default lane keeps the executor's own. */
export function laneQueueNames(name: string, lane: string): { work: string; dlq: string } {
  return lane === DEFAULT_LANE
    ? { work: `${name}-work.fifo`, dlq: `${name}-dlq.fifo` }
    : { work: `${name}-${lane}-work.fifo`, dlq: `${name}-${lane}-dlq.fifo` };
}

function integerIssue(
  issues: ValidationIssue[],
  path: string,
  value: unknown,
  min: number,
  max: number,
  known: (value: unknown) => boolean,
): void {
  if (value === undefined || !known(value)) return;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return;
  issues.push({
    path,
    message: `expected an integer from ${min} to ${max}, received ${String(value)}`,
  });
}

/** Every problem of the `lanes` prop, each with the value received. */
export function laneIssues(
  name: string,
  lanes: Readonly<Record<string, LaneProps>> | undefined,
  known: (value: unknown) => boolean = () => true,
): ValidationIssue[] {
  if (lanes === undefined) return [];
  const issues: ValidationIssue[] = [];
  if (lanes === null || typeof lanes !== 'object' || Array.isArray(lanes)) {
    return [
      {
        path: 'lanes',
        message: `expected an object of lane name → lane props, received ${JSON.stringify(lanes)}`,
      },
    ];
  }
  const names = Object.keys(lanes);
  const count = new Set([DEFAULT_LANE, ...names]).size;
  if (count > MAX_LANES) {
    issues.push({
      path: 'lanes',
      message: `expected at most ${MAX_LANES} lanes, the default lane included, received ${count}`,
    });
  }
  for (const lane of names) {
    const problem = laneNameProblem(lane);
    if (problem !== undefined) {
      issues.push({ path: `lanes.${lane}`, message: `lane name: ${problem}` });
      continue;
    }
    const props = lanes[lane] ?? {};
    if (typeof props !== 'object' || props === null) {
      issues.push({
        path: `lanes.${lane}`,
        message: `expected { maxConcurrency?, batchSize? }, received ${JSON.stringify(props)}`,
      });
      continue;
    }
    integerIssue(issues, `lanes.${lane}.maxConcurrency`, props.maxConcurrency, 2, 1_000, known);
    integerIssue(issues, `lanes.${lane}.batchSize`, props.batchSize, 1, 10, known);
    const { work } = laneQueueNames(name, lane);
    if (known(name) && work.length > MAX_QUEUE_NAME) {
      issues.push({
        path: `lanes.${lane}`,
        message: `expected a lane name short enough for its queue name, ${JSON.stringify(work)} (at most ${MAX_QUEUE_NAME} characters), received ${JSON.stringify(lane)}`,
      });
    }
  }
  return issues;
}

/**
 * The lanes' settings: every lane of `lanes` and the default lane (always there), each with
 * the work queue and DLQ attributes of the executor's own queues. Empty without `lanes`.
 */
export function laneSettings(
  name: string,
  lanes: Readonly<Record<string, LaneProps>> | undefined,
  queues: { readonly work: LaneQueueSettings; readonly dlq: LaneQueueSettings },
): Readonly<Record<string, LaneSettings>> {
  if (lanes === undefined) return {};
  const names = [
    DEFAULT_LANE,
    ...Object.keys(lanes)
      .filter((l) => l !== DEFAULT_LANE)
      .sort(),
  ];
  return Object.fromEntries(
    names.map((lane) => {
      const queueNames = laneQueueNames(name, lane);
      return [
        lane,
        {
          workQueue: { name: queueNames.work, attributes: queues.work.attributes },
          deadLetterQueue: { name: queueNames.dlq, attributes: queues.dlq.attributes },
          maxConcurrency: lanes[lane]?.maxConcurrency,
          batchSize: lanes[lane]?.batchSize,
        },
      ];
    }),
  );
}
