/**
 * Lanes: an executor's work queues, one FIFO queue and DLQ per lane, each behind its own
 * event source mapping (docs/lanes.md, docs/adr/0028-lanes.md). A task type names its lane
 * (`defineTask(type, { lane })`); the lane is written on the task's record at creation, so
 * every later send of the task (the sweeper's re-send, a redrive, a delayed task's schedule)
 * goes to the same queue. Types that name no lane run in the `default` lane, the executor's
 * original work queue.
 */
import { ConfigurationError, type ValidationIssue } from '../core/errors.js';

/** How often a poller reads its lanes' control items by default (src/worker/lane-gate.ts). */
export const DEFAULT_LANE_CONTROL_PERIOD_MS = 10_000;

/** The lane of task types that name none: the executor's original work queue. */
export const DEFAULT_LANE = 'default';

/** Lowercase letters and digits, starting with a letter: fits queue names and output keys. */
export const LANE_NAME_PATTERN = /^[a-z][a-z0-9]{0,19}$/;

/** The most lanes an executor may have, the default lane included. */
export const MAX_LANES = 10;

/**
 * The key of a lane's control item in the task table (its pause, docs/adr/0048): a prefix
 * ending with a space, which no task id can hold, so a control item never collides with a
 * task. Here, in the settings, because the construct's `grantPauseLanes` scopes its
 * `dynamodb:LeadingKeys` condition to these keys.
 */
export const laneControlKey = (lane: string): string => `lane-control ${lane}`;

/** Environment variables of an executor with lanes: JSON objects keyed by lane name. */
export const LaneEnvVars = {
  /** `{ "<lane>": "<work queue URL>" }`, every lane, the default lane included. */
  QUEUE_URLS: 'TASKLANE_LANE_QUEUE_URLS',
  /** `{ "<lane>": "<work queue ARN>" }`: the targets of the lanes' schedules. */
  QUEUE_ARNS: 'TASKLANE_LANE_QUEUE_ARNS',
  /** `{ "<lane>": "<DLQ URL>" }`: what `dlq peek` and redrive read. */
  DLQ_URLS: 'TASKLANE_LANE_DLQ_URLS',
} as const;

/** Where one lane's queues are. */
export interface LaneLocation {
  /** The lane's FIFO work queue. */
  readonly queueUrl: string;
  /** The work queue's ARN, the target of the lane's schedules. @default looked up from the URL */
  readonly queueArn?: string | undefined;
  /** The lane's FIFO DLQ, for `dlq peek` and redrive. */
  readonly deadLetterQueueUrl?: string | undefined;
}

/** The lanes of an executor, keyed by lane name. */
export type LaneLocations = Readonly<Record<string, LaneLocation>>;

/** Why `name` cannot name a lane; undefined when it can. */
export function laneNameProblem(name: unknown): string | undefined {
  if (typeof name === 'string' && LANE_NAME_PATTERN.test(name)) return undefined;
  return `expected 1-20 lowercase letters and digits, starting with a letter, received ${JSON.stringify(name) ?? typeof name}`;
}

/** A task's lane names none of the executor's lanes. */
export class UnknownLaneError extends ConfigurationError {
  /** The lane asked for. */
  readonly lane: string;
  /** The lanes the executor has. */
  readonly known: readonly string[];

  constructor(lane: string, known: readonly string[], what: string) {
    super(
      `${what} names the lane '${lane}', which the executor does not have: expected one of ${known
        .map((k) => `'${k}'`)
        .join(
          ', ',
        )}. Add it to the TaskExecutor's lanes and give the client its queue (the stack outputs, or ${LaneEnvVars.QUEUE_URLS}).`,
    );
    this.name = 'UnknownLaneError';
    this.lane = lane;
    this.known = known;
  }
}

/**
 * The queues of an executor's lanes: the default lane's (the executor's work queue) and
 * those of the other lanes, if any. Routes a task to its lane's queue.
 */
export class LaneQueues {
  private readonly lanes: ReadonlyMap<string, LaneLocation>;

  constructor(defaultLane: LaneLocation, lanes: LaneLocations = {}) {
    const all = new Map<string, LaneLocation>(Object.entries(lanes));
    all.set(DEFAULT_LANE, { ...lanes[DEFAULT_LANE], ...stripUndefined(defaultLane) });
    this.lanes = all;
  }

  /** The lane names, the default lane first. */
  names(): string[] {
    return [DEFAULT_LANE, ...[...this.lanes.keys()].filter((n) => n !== DEFAULT_LANE).sort()];
  }

  /** True when the executor has more lanes than the default one. */
  get hasLanes(): boolean {
    return this.lanes.size > 1;
  }

  /** True when `lane` (undefined: the default lane) is one of the executor's lanes. */
  has(lane: string | undefined): boolean {
    return this.lanes.has(lane ?? DEFAULT_LANE);
  }

  /**
   * The queues of `lane` (undefined: the default lane).
   *
   * @throws UnknownLaneError when the executor has no such lane.
   */
  get(lane: string | undefined, what = 'The task'): LaneLocation {
    const found = this.lanes.get(lane ?? DEFAULT_LANE);
    if (found === undefined) throw new UnknownLaneError(lane ?? DEFAULT_LANE, this.names(), what);
    return found;
  }

  /** The work queue URL of `lane`. @throws UnknownLaneError */
  queueUrl(lane: string | undefined, what?: string): string {
    return this.get(lane, what).queueUrl;
  }

  /** Every lane with its queues, the default lane first. */
  entries(): [string, LaneLocation][] {
    return this.names().map((name) => [name, this.lanes.get(name) as LaneLocation]);
  }
}

function stripUndefined(location: LaneLocation): LaneLocation {
  return Object.fromEntries(
    Object.entries(location).filter(([, v]) => v !== undefined),
  ) as unknown as LaneLocation;
}

/**
 * The lanes named in the environment ({@link LaneEnvVars}); undefined when it names none.
 *
 * @throws ConfigurationError when a variable is not a JSON object of strings.
 */
export function lanesFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): LaneLocations | undefined {
  const urls = laneMap(env, LaneEnvVars.QUEUE_URLS);
  if (urls === undefined) return undefined;
  const arns = laneMap(env, LaneEnvVars.QUEUE_ARNS) ?? {};
  const dlqs = laneMap(env, LaneEnvVars.DLQ_URLS) ?? {};
  return lanesFromMaps(urls, arns, dlqs);
}

/** Joins lane → URL, lane → ARN and lane → DLQ URL maps into {@link LaneLocations}. */
export function lanesFromMaps(
  urls: Readonly<Record<string, string>>,
  arns: Readonly<Record<string, string>> = {},
  dlqs: Readonly<Record<string, string>> = {},
): LaneLocations {
  return Object.fromEntries(
    Object.entries(urls).map(([lane, queueUrl]) => [
      lane,
      {
        queueUrl,
        ...(arns[lane] === undefined ? {} : { queueArn: arns[lane] }),
        ...(dlqs[lane] === undefined ? {} : { deadLetterQueueUrl: dlqs[lane] }),
      },
    ]),
  );
}

/**
 * Parses a lane map: a JSON object of lane name → string.
 *
 * @throws ConfigurationError naming the variable (or output) and what it held.
 */
export function parseLaneMap(json: string, source: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  const valid =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.entries(value as object).every(
      ([lane, v]) => laneNameProblem(lane) === undefined && typeof v === 'string' && v !== '',
    );
  if (!valid) {
    throw new ConfigurationError(
      `${source} must be a JSON object of lane name → string (lane names of lowercase letters and digits), received ${JSON.stringify(json.slice(0, 200))}`,
    );
  }
  return value as Record<string, string>;
}

function laneMap(env: NodeJS.ProcessEnv, variable: string): Record<string, string> | undefined {
  const json = env[variable];
  return json === undefined || json === '' ? undefined : parseLaneMap(json, variable);
}

/**
 * The {@link LaneEnvVars} of `lanes`, for a function's or a process's environment; a kind no
 * lane has (e.g. DLQ URLs left out to keep a function's environment under Lambda's 4 KB) is
 * left out.
 */
export function laneEnvironment(lanes: LaneLocations): Record<string, string> {
  const variables: Record<string, string> = {};
  const pick = (variable: string, field: keyof LaneLocation) => {
    const entries = Object.entries(lanes).flatMap(([lane, l]) =>
      l[field] === undefined ? [] : [[lane, l[field]]],
    );
    if (entries.length > 0) variables[variable] = JSON.stringify(Object.fromEntries(entries));
  };
  pick(LaneEnvVars.QUEUE_URLS, 'queueUrl');
  pick(LaneEnvVars.QUEUE_ARNS, 'queueArn');
  pick(LaneEnvVars.DLQ_URLS, 'deadLetterQueueUrl');
  return variables;
}

/*
 * The settings of an executor's lanes (docs/lanes.md): their queues' names and attributes
 * and their event source mappings' concurrency and batch size, shared by the CDK construct
 * and the emulator's provisioning like the rest of {@link ExecutorSettings}.
 */

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
