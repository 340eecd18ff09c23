/**
 * The rows of the transition table on a lane's control item (docs/adr/0048-durable-sleep-signals-pause.md,
 * "Pausing a lane"): one item per lane, `lane-control <lane>`, beside the tasks. An operator's
 * pause sets `paused` with one conditional UpdateItem that only an unpaused (or absent) item
 * accepts; a resume clears it with one that only a paused item accepts. Each bumps `version`,
 * so a reader can tell two pauses apart. Pollers outside Lambda read the item; in AWS the
 * lane's event source mapping is switched as well, and the item keeps the UUIDs the pause
 * disabled, so that the resume enables those and no other.
 */
import { equals, notExists, or, Update } from './expression.js';
import type { Write } from './row.js';

/** What a lane's pause records. */
export interface LanePauseInput {
  readonly key: string;
  readonly lane: string;
  readonly reason: string | undefined;
  readonly principal: string | undefined;
  /** The event source mappings the pause disables (their UUIDs), to enable again on resume. */
  readonly mappings: readonly string[];
}

/** What a lane's resume records. */
export interface LaneResumeInput {
  readonly key: string;
  readonly principal: string | undefined;
}

/** The attributes the two rows change on the control item. */
const LANE_CONTROL_WRITES = [
  'kind',
  'lane',
  'paused',
  'version',
  'changedAt',
  'principal',
  'reason',
  'mappings',
] as const;

/** An unpaused or absent lane item becomes paused, with who, why and which mappings. */
export const pauseLane: Write<LanePauseInput> = {
  kind: 'item',
  name: 'pause the lane',
  fence: () => [or([notExists('paused'), equals('paused', 'notPaused', false)])],
  request: ({ key, lane, reason, principal, mappings }, now) => ({
    op: 'update',
    key,
    update: new Update()
      .set('kind', 'lane-control')
      .set('lane', lane)
      .set('paused', true)
      .increment('version')
      .set('changedAt', now)
      .set('principal', principal)
      .set('reason', reason)
      .set('mappings', [...mappings])
      .build(),
    returns: 'ALL_NEW',
  }),
  writes: [...LANE_CONTROL_WRITES],
};

/** A paused lane item becomes unpaused; the mappings it names were enabled just before. */
export const resumeLane: Write<LaneResumeInput> = {
  kind: 'item',
  name: 'resume the lane',
  fence: () => [equals('paused', 'isPaused', true)],
  request: ({ key, principal }, now) => ({
    op: 'update',
    key,
    update: new Update()
      .set('paused', false)
      .increment('version')
      .set('changedAt', now)
      .set('principal', principal)
      .set('mappings', [])
      .remove('reason')
      .build(),
    returns: 'ALL_NEW',
  }),
  writes: [...LANE_CONTROL_WRITES],
};
