/**
 * What tells a poller outside Lambda (`worker.poll()`, the local stand-in for the event source
 * mapping) that an operator paused its lane: the lanes' control items, read every `periodMs`
 * (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane"). In AWS a paused lane's
 * mapping is disabled instead, and Lambda stops polling; a long-lived poller has no mapping, so
 * it reads the item the pause wrote. One BatchGetItem per period for every lane the process
 * polls, eventually consistent: a pause takes effect within about one period.
 */
import type { TaskLogger } from '../observability/logger.js';
import { DEFAULT_LANE_CONTROL_PERIOD_MS } from '../settings/lanes.js';
import type { LanePauseRead } from '../store/lane-control-key.js';
import { sleep } from './sqs-poller.js';

/** Options of {@link watchLanePauses}. */
export interface LaneGateOptions {
  /** Reads the control items of the lanes named. */
  readonly read: (lanes: readonly string[]) => Promise<readonly LanePauseRead[]>;
  readonly lanes: readonly string[];
  /** @default DEFAULT_LANE_CONTROL_PERIOD_MS */
  readonly periodMs?: number;
  /** Stops the reads. */
  readonly signal: AbortSignal;
  readonly logger: TaskLogger;
}

/** Which of a poller's lanes are paused, as last read. */
export interface LaneGate {
  /** Resolves after the first read (or its failure): a poller waits for it before receiving. */
  readonly ready: Promise<void>;
  /** Whether `lane` was paused at the last read. */
  paused(lane: string): boolean;
  /** Resolves when the reads have stopped. */
  readonly stopped: Promise<void>;
}

/**
 * Reads the lanes' control items now and every period until `signal` aborts. A failed read
 * keeps the last state read (a lane is taken as running until a read says otherwise): a
 * table that cannot be read stops the tasks' own writes anyway, and a pause is never lost,
 * only seen at the next read that works.
 */
export function watchLanePauses(options: LaneGateOptions): LaneGate {
  const periodMs = options.periodMs ?? DEFAULT_LANE_CONTROL_PERIOD_MS;
  const paused = new Set<string>();
  const readOnce = async () => {
    try {
      for (const control of await options.read(options.lanes)) {
        const was = paused.has(control.lane);
        if (control.paused === was) continue;
        if (control.paused) paused.add(control.lane);
        else paused.delete(control.lane);
        options.logger.info(control.paused ? 'lane paused' : 'lane resumed', {
          lane: control.lane,
        });
      }
    } catch (err) {
      options.logger.warn('lane read failed', { error: (err as Error).message });
    }
  };
  const ready = readOnce();
  const stopped = ready.then(async () => {
    while (!options.signal.aborted) {
      await sleep(periodMs, options.signal);
      if (!options.signal.aborted) await readOnce();
    }
  });
  return { ready, paused: (lane) => paused.has(lane), stopped };
}

export { readLanePauses } from '../store/lane-control-key.js';
export type { LanePauseRead };
