/**
 * The key of a lane's control item, in a module of its own: the worker's poller reads the
 * item (worker/lane-gate.ts) and its bundle takes this line, not the writes (lane-controls.ts).
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { laneControlKey } from '../settings/lanes.js';
import { getItems } from './batch-get.js';

/** The control item's key of `lane` (its definition sits in settings/lanes.ts, for the construct). */
export { laneControlKey };

/** What a poller reads of a lane's control item. */
export interface LanePauseRead {
  readonly lane: string;
  readonly paused: boolean;
}

/** Which of `lanes` are paused: one eventually consistent BatchGetItem of their items. */
export async function readLanePauses(
  doc: DynamoDBDocumentClient,
  tableName: string,
  lanes: readonly string[],
): Promise<LanePauseRead[]> {
  const items = await getItems(doc, tableName, lanes.map(laneControlKey));
  return lanes.map((lane) => ({ lane, paused: items.get(laneControlKey(lane))?.paused === true }));
}
