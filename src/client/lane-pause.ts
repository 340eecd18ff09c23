/**
 * `TaskClient.pauseLane`, `resumeLane` and `laneStates` (docs/durable-tasks.md, "Pausing a
 * lane"; docs/adr/0048-durable-sleep-signals-pause.md). A lane's pause is one conditional
 * write of its control item, which the pollers outside Lambda read, and, in AWS, its event
 * source mappings disabled, so that Lambda stops receiving from its queue. Its tasks stay
 * QUEUED, their messages waiting in the queue; running ones finish.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { AuditEvent } from '../core/constants.js';
import { logAudit } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneQueues } from '../settings/lanes.js';
import { type LaneControl, LaneControls } from '../store/lane-controls.js';
import type { TaskStore } from '../store/task-store.js';
import { isPolling, type LaneMappings } from './lane-mappings.js';

/** A lane's pause state. */
export interface LaneState {
  /** The lane's name (`default` for the executor's original work queue). */
  readonly lane: string;
  /** Whether an operator paused it and has not resumed it yet. */
  readonly paused: boolean;
  /** When it was last paused or resumed (epoch ms); undefined for a lane never paused. */
  readonly changedAt: number | undefined;
  /** Who last paused or resumed it (ADR 0039). */
  readonly principal: string | undefined;
  /** The pause's reason, while paused. */
  readonly reason: string | undefined;
  /** The Lambda event source mappings (UUIDs) the pause disabled, while paused. */
  readonly mappings: readonly string[];
}

/** What `pauseLane` or `resumeLane` did. */
export interface LanePauseResult extends LaneState {
  /** False when the lane was already paused (or already running): nothing was written. */
  readonly changed: boolean;
  /** The event source mappings this call disabled (pause) or enabled (resume). */
  readonly switchedMappings: readonly string[];
}

/** Options of `TaskClient.pauseLane`. */
export interface PauseLaneOptions {
  /** Recorded on the lane's control item and in the audit line. */
  readonly reason?: string;
  /**
   * Disable the lane's Lambda event source mappings (found by its queue ARN and the worker
   * function). `false` only records the pause, which pollers outside Lambda honour: for an
   * executor without Lambda, or a client without `@aws-sdk/client-lambda`. @default true
   */
  readonly mappings?: boolean;
}

/** Options of `TaskClient.resumeLane`. */
export interface ResumeLaneOptions {
  /** Enable the mappings the pause disabled. @default true */
  readonly mappings?: boolean;
}

/** What the lane operations need from the client. */
export interface LanePauseDeps {
  readonly store: TaskStore;
  readonly lanes: LaneQueues;
  readonly sqs: SQSClient;
  readonly mappings: () => LaneMappings;
  readonly logger: TaskLogger;
  readonly clock: () => number;
  readonly principal: () => Promise<string>;
}

/**
 * The states of `names` (every lane of the client, the default lane first, when absent).
 *
 * @throws UnknownLaneError for a lane the client does not know.
 */
export async function laneStates(
  names: readonly string[] | undefined,
  deps: Pick<LanePauseDeps, 'store' | 'lanes'>,
): Promise<LaneState[]> {
  const asked = names ?? deps.lanes.names();
  for (const lane of asked) deps.lanes.get(lane, 'laneStates');
  return (await controls(deps.store).read(asked, true)).map(stateOf);
}

/**
 * Pauses `lane`: records it (one conditional write), then disables the mappings that were
 * polling its queue. On a lane already paused it writes nothing and disables again any
 * mapping its pause recorded that polls again (a pause whose disable failed halfway).
 *
 * @throws UnknownLaneError for a lane the client does not know.
 */
export async function pauseLane(
  lane: string,
  options: PauseLaneOptions,
  deps: LanePauseDeps,
): Promise<LanePauseResult> {
  const location = deps.lanes.get(lane, 'pauseLane');
  const principal = await deps.principal();
  const mappings =
    options.mappings === false
      ? []
      : await deps
          .mappings()
          .find(location.queueArn ?? (await queueArn(deps.sqs, location.queueUrl)));
  const polling = mappings.filter((m) => isPolling(m.state)).map((m) => m.uuid);
  const written = await controls(deps.store).pause(lane, options.reason, principal, polling);
  const toDisable = written.changed
    ? polling
    : polling.filter((uuid) => written.control.mappings.includes(uuid));
  for (const uuid of toDisable) await deps.mappings().setEnabled(uuid, false);
  if (written.changed) audit(deps, AuditEvent.LANE_PAUSED, written.control, principal);
  return { ...stateOf(written.control), changed: written.changed, switchedMappings: toDisable };
}

/**
 * Resumes `lane`: enables the mappings its pause disabled, then records the resume (one
 * conditional write), so that a failed enable leaves the lane paused, to be resumed again.
 * A lane that is not paused is returned as it is.
 *
 * @throws UnknownLaneError for a lane the client does not know.
 */
export async function resumeLane(
  lane: string,
  options: ResumeLaneOptions,
  deps: LanePauseDeps,
): Promise<LanePauseResult> {
  deps.lanes.get(lane, 'resumeLane');
  const principal = await deps.principal();
  const [seen] = await controls(deps.store).read([lane], true);
  if (seen === undefined || !seen.paused) {
    return { ...stateOf(seen ?? unpaused(lane)), changed: false, switchedMappings: [] };
  }
  const toEnable = options.mappings === false ? [] : seen.mappings;
  for (const uuid of toEnable) await deps.mappings().setEnabled(uuid, true);
  const written = await controls(deps.store).resume(lane, principal);
  if (written.changed) audit(deps, AuditEvent.LANE_RESUMED, written.control, principal);
  return {
    ...stateOf(written.control),
    changed: written.changed,
    switchedMappings: written.changed ? toEnable : [],
  };
}

/** The store's lane control items (a part of its own: the worker's bundle leaves it out). */
function controls(store: TaskStore): LaneControls {
  return store.feature(LaneControls);
}

function stateOf(control: LaneControl): LaneState {
  return {
    lane: control.lane,
    paused: control.paused,
    changedAt: control.changedAt,
    principal: control.principal,
    reason: control.reason,
    mappings: control.paused ? control.mappings : [],
  };
}

function unpaused(lane: string): LaneControl {
  const none = undefined;
  return {
    lane,
    paused: false,
    version: 0,
    changedAt: none,
    principal: none,
    reason: none,
    mappings: [],
  };
}

function audit(
  deps: LanePauseDeps,
  event: AuditEvent,
  control: LaneControl,
  principal: string,
): void {
  logAudit(
    deps.logger,
    {
      event,
      taskId: undefined,
      taskType: undefined,
      attempt: 0,
      status: undefined,
      workerId: undefined,
      at: control.changedAt ?? deps.clock(),
      detail: `lane ${control.lane}${control.reason === undefined ? '' : `: ${control.reason}`}`,
      principal,
    },
    { fields: { lane: control.lane, mappings: [...control.mappings] } },
  );
}

async function queueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const arn = out.Attributes?.QueueArn;
  if (arn === undefined) throw new Error(`SQS reported no QueueArn for ${queueUrl}`);
  return arn;
}
