/**
 * The lanes' control items: whether an operator paused a lane, who, when and why
 * (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane"). One item per lane,
 * `lane-control <lane>`, written only by the rows of transitions/lanes.ts, read by the client
 * (the lanes' states) and by the pollers outside Lambda, which stop receiving while their lane
 * is paused.
 */
import { getItems } from './batch-get.js';
import { laneControlKey } from './lane-control-key.js';
import type { WriteContext } from './store-context.js';
import * as lanes from './transitions/lanes.js';
import { send } from './transitions/writer.js';

export { laneControlKey };

/** A lane's control state, as its item records it; an absent item is an unpaused lane. */
export interface LaneControl {
  readonly lane: string;
  readonly paused: boolean;
  /** Bumped by each pause and resume; 0 for a lane never paused. */
  readonly version: number;
  /** When it was last paused or resumed (epoch ms). */
  readonly changedAt: number | undefined;
  /** Who last paused or resumed it (ADR 0039). */
  readonly principal: string | undefined;
  /** The pause's reason, while paused. */
  readonly reason: string | undefined;
  /** The event source mappings the pause disabled, while paused (UUIDs). */
  readonly mappings: readonly string[];
}

/** The outcome of a pause or resume write. */
export type LaneControlWrite =
  | { readonly changed: true; readonly control: LaneControl }
  /** The lane was already in the state asked for: nothing was written. */
  | { readonly changed: false; readonly control: LaneControl };

/** Reads and writes the lanes' control items. */
export class LaneControls {
  constructor(private readonly ctx: WriteContext) {}

  /** The control state of each of `names`, in their order (one BatchGetItem per 100 lanes). */
  async read(names: readonly string[], consistent = false): Promise<LaneControl[]> {
    const items = await getItems(this.ctx.doc, this.ctx.tableName, names.map(laneControlKey), {
      consistent,
    });
    return names.map((lane) => toControl(lane, items.get(laneControlKey(lane))));
  }

  /** Pauses `lane` (row `pause the lane`); an already paused lane is returned unchanged. */
  async pause(
    lane: string,
    reason: string | undefined,
    principal: string | undefined,
    mappings: readonly string[],
  ): Promise<LaneControlWrite> {
    const key = laneControlKey(lane);
    const sent = await send(this.ctx, lanes.pauseLane, { key, lane, reason, principal, mappings });
    return sent.accepted
      ? { changed: true, control: toControl(lane, sent.item) }
      : { changed: false, control: toControl(lane, sent.current) };
  }

  /** Resumes `lane` (row `resume the lane`); a lane that is not paused is returned unchanged. */
  async resume(lane: string, principal: string | undefined): Promise<LaneControlWrite> {
    const key = laneControlKey(lane);
    const sent = await send(this.ctx, lanes.resumeLane, { key, principal });
    return sent.accepted
      ? { changed: true, control: toControl(lane, sent.item) }
      : { changed: false, control: toControl(lane, sent.current) };
  }
}

function toControl(lane: string, item: Record<string, unknown> | undefined): LaneControl {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    lane,
    paused: item?.paused === true,
    version: typeof item?.version === 'number' ? item.version : 0,
    changedAt: typeof item?.changedAt === 'number' ? item.changedAt : undefined,
    principal: text(item?.principal),
    reason: text(item?.reason),
    mappings: Array.isArray(item?.mappings)
      ? item.mappings.filter((m): m is string => typeof m === 'string')
      : [],
  };
}
