/**
 * The console's pause and resume of a whole lane (issue 26; the writes and their audit lines
 * are the client's: `pauseLane` / `resumeLane`, docs/adr/0048-durable-sleep-signals-pause.md,
 * "Pausing a lane"): what the confirmation page says, and what the outcome page reports,
 * changed or not, with the event source mappings switched or why none was.
 */
import type { LanePauseResult, LaneState, TaskClient } from 'tasklane';
import { ConfigurationError, TasklaneError, UnknownLaneError } from 'tasklane';

/** A pause or resume of a whole lane. */
export interface LaneAction {
  readonly kind: 'pause-lane' | 'resume-lane';
  readonly lane: string;
  /** The operator's reason (a pause only); the console's own when none was typed. */
  readonly reason?: string;
}

/** The reason a lane's pause is recorded with when the operator typed none. */
export const CONSOLE_LANE_PAUSE_REASON = 'paused from the console';

/** The longest reason the confirmation form takes. */
export const MAX_LANE_REASON = 200;

/** What the client's lane calls need: the console passes its `TaskClient`. */
export type LaneClient = Pick<TaskClient, 'pauseLane' | 'resumeLane'>;

/** What the outcome page shows (the same shape as actions.ts's `ActionOutcome`). */
export interface LaneOutcome {
  readonly title: string;
  readonly lines: readonly string[];
  readonly ids: readonly string[];
  readonly failed: boolean;
}

/** The confirmation page's sentence. */
export function describeLane(action: LaneAction): string {
  return action.kind === 'pause-lane'
    ? `Pause the lane "${action.lane}": nothing new is received from its queue until it is resumed. Its tasks are not changed: they wait, PENDING or QUEUED, their messages in the lane's queue, and run at the resume, once each, a key's in order; tasks running now finish. In AWS the lane's Lambda event source mappings are disabled; a poller outside Lambda (worker.poll(), tasklane dev) stops receiving within its period (10 s by default, 1 s locally), plus a long poll already waiting. Other lanes run on.`
    : `Resume the lane "${action.lane}": its queue is received from again. The Lambda event source mappings its pause disabled are enabled, and pollers outside Lambda receive again within their period; its waiting tasks run, a key's in order.`;
}

/** The lane's state in words, for the confirmation page. */
export function laneStateLine(state: LaneState): string {
  if (state.paused) {
    const mappings =
      state.mappings.length === 0
        ? 'no Lambda event source mapping was disabled by it'
        : `it disabled the event source mapping(s) ${state.mappings.join(', ')}`;
    return `The lane "${state.lane}" has been paused${by(state, 'since')}${state.reason === undefined ? '' : `: ${state.reason}`} (${mappings}).`;
  }
  return state.changedAt === undefined
    ? `The lane "${state.lane}" is running: it has never been paused.`
    : `The lane "${state.lane}" is running (resumed${by(state, 'at')}).`;
}

function by(state: LaneState, word: 'at' | 'since'): string {
  const when = state.changedAt === undefined ? '' : ` ${word} ${iso(state.changedAt)}`;
  return `${when}${state.principal === undefined ? '' : ` by ${state.principal}`}`;
}

function iso(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/**
 * Performs the action through the client. A pause asks for the lane's mappings to be
 * disabled; where the client cannot load `@aws-sdk/client-lambda` (the console embedded in an
 * app without it) it records the pause only, and the outcome says that a Lambda worker keeps
 * receiving. A resume never falls back: enabling the mappings a pause disabled is its job, and
 * recording a resume without them would leave the lane stopped while shown running. A failed
 * call is a failed outcome saying whether repeating it is safe, never a throw.
 */
export async function performLane(client: LaneClient, action: LaneAction): Promise<LaneOutcome> {
  try {
    if (action.kind === 'resume-lane') return resumed(await client.resumeLane(action.lane));
    const reason = action.reason ?? CONSOLE_LANE_PAUSE_REASON;
    try {
      return paused(await client.pauseLane(action.lane, { reason }), true);
    } catch (err) {
      if (!lambdaMissing(err)) throw err;
      return paused(await client.pauseLane(action.lane, { reason, mappings: false }), false);
    }
  } catch (err) {
    if (!(err instanceof UnknownLaneError)) return failedLane(action, err);
    return {
      title: `No lane is named "${action.lane}"`,
      lines: [
        `Nothing was ${action.kind === 'pause-lane' ? 'paused' : 'resumed'}: the executor's lanes are ${err.known.join(', ')}.`,
      ],
      ids: [],
      failed: true,
    };
  }
}

/**
 * A lane call that failed (Lambda or the table refused, say): what was wrong, and that
 * repeating it is safe, which the client's order of writes makes true: a pause records the
 * mappings before disabling them and a repeat disables what is left; a resume enables them
 * before recording itself, so the lane stays paused until it has.
 */
function failedLane(action: LaneAction, err: unknown): LaneOutcome {
  const message =
    err instanceof TasklaneError
      ? `${err.code}: ${err.message}`
      : `${(err as Error).name}: ${(err as Error).message}`;
  return {
    title: `The ${action.kind === 'pause-lane' ? 'pause' : 'resume'} of lane ${action.lane} failed`,
    lines: [
      message,
      action.kind === 'pause-lane'
        ? 'The pause may be recorded with some of its mappings still polling: pausing the lane again disables those it recorded.'
        : 'The lane stays paused until its mappings are enabled and the resume recorded: resuming it again is safe.',
    ],
    ids: [],
    failed: true,
  };
}

/** True for the client's refusal to switch mappings without `@aws-sdk/client-lambda`. */
export function lambdaMissing(err: unknown): boolean {
  if (!(err instanceof ConfigurationError) || err instanceof UnknownLaneError) return false;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

function paused(out: LanePauseResult, withMappings: boolean): LaneOutcome {
  const lines: string[] = [];
  if (!out.changed) {
    lines.push(
      `It has been paused${by(out, 'since')}${out.reason === undefined ? '' : `: ${out.reason}`}. Nothing was written.`,
    );
    if (out.switchedMappings.length > 0) {
      lines.push(
        `Disabled again the event source mapping(s) its pause had recorded and that were polling: ${out.switchedMappings.join(', ')}.`,
      );
    }
  } else if (!withMappings) {
    lines.push(
      'The pause is recorded only: @aws-sdk/client-lambda could not be loaded where the console runs, so no Lambda event source mapping was disabled. Pollers outside Lambda (worker.poll(), tasklane dev) stop receiving within their period; a Lambda worker keeps receiving from the lane. To stop it too, resume the lane and pause it again with the tasklane command, which has the Lambda client.',
    );
  } else if (out.switchedMappings.length === 0) {
    lines.push(
      'The pause is recorded only: no Lambda event source mapping polls the lane’s queue (none does on the emulator or under tasklane dev), so none was disabled. Pollers outside Lambda stop receiving within their period.',
    );
  } else {
    lines.push(
      `Disabled the Lambda event source mapping(s) ${out.switchedMappings.join(', ')}: Lambda receives nothing more from the lane's queue; a batch it holds finishes.`,
    );
  }
  if (out.changed) lines.push(`Recorded by ${out.principal ?? 'an unknown principal'}.`);
  return {
    title: out.changed ? `Paused lane ${out.lane}` : `Lane ${out.lane} was already paused`,
    lines,
    ids: [],
    failed: false,
  };
}

function resumed(out: LanePauseResult): LaneOutcome {
  if (!out.changed) {
    return {
      title: `Lane ${out.lane} was already running`,
      lines: ['It was not paused: nothing was written.'],
      ids: [],
      failed: false,
    };
  }
  return {
    title: `Resumed lane ${out.lane}`,
    lines: [
      out.switchedMappings.length === 0
        ? 'No Lambda event source mapping was disabled by its pause, so none was enabled. Pollers outside Lambda receive again within their period.'
        : `Enabled the Lambda event source mapping(s) ${out.switchedMappings.join(', ')}: Lambda receives from the lane's queue again.`,
      `Recorded by ${out.principal ?? 'an unknown principal'}.`,
    ],
    ids: [],
    failed: false,
  };
}
