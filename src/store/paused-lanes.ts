/**
 * Which lanes are paused, as a sweep sees them (docs/adr/0048-durable-sleep-signals-pause.md,
 * "Pausing a lane"). A paused lane's messages wait in its queue, received by nobody, so the
 * sweep must not send its old PENDING tasks again, nor give its overdue QUEUED tasks a new
 * generation, nor wake its due SUSPENDED tasks again: each would be one more message, and
 * duplicates would pile up until the resume.
 *
 * The lanes' control items are read once per sweep, in one BatchGetItem, and only when the
 * first candidate task asks: a sweep with nothing old to send reads nothing. The read is
 * eventually consistent, as the pollers' is: a pause or resume seen one sweep late costs one
 * redundant message, or one sweep's wait.
 */
import { describeError } from '../core/errors.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { readLanePauses } from './lane-control-key.js';
import type { WriteContext } from './store-context.js';

/** Answers "is this task's lane paused?" for one sweep, reading the control items at most once. */
export class PausedLanes {
  private paused: Promise<ReadonlySet<string>> | undefined;

  /**
   * @param lanes the executor's lanes (the default lane among them); a task of a lane not
   *   listed is taken as unpaused.
   */
  constructor(
    private readonly ctx: WriteContext,
    private readonly lanes: readonly string[],
  ) {}

  /**
   * Whether `lane` (undefined: the default lane) is paused. The first call reads every
   * lane's control item; later calls answer from that read. A failed read is logged and
   * taken as "no lane paused": a re-send is harmless, only a cost, while holding back every
   * send of the sweep would leave lost messages unrepaired.
   */
  async isPaused(lane: string | undefined): Promise<boolean> {
    this.paused ??= this.read();
    return (await this.paused).has(lane ?? DEFAULT_LANE);
  }

  private async read(): Promise<ReadonlySet<string>> {
    const names = [...new Set([DEFAULT_LANE, ...this.lanes])];
    try {
      const reads = await readLanePauses(this.ctx.doc, this.ctx.tableName, names);
      return new Set(reads.filter((r) => r.paused).map((r) => r.lane));
    } catch (err) {
      this.ctx.logger.warn('sweep could not read the lanes’ pauses; sending as if none were', {
        error: describeError(err),
      });
      return new Set();
    }
  }
}
