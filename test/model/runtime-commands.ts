/**
 * The feature model's runtime commands: a delivery of a lane's messages to a new worker (which
 * may die after any of its writes), the clock moving (a little, past a lease, or past the
 * 12-hour hold of a parked key), a sweep, a schedule pump tick, and the S3 and EventBridge
 * outages switched on and off.
 */
import { count, type FeatureCommand } from './enqueue-commands.js';
import type { FeatureModel } from './feature-model.js';
import { type FeatureSystem, LEASE_EXPIRY_MS } from './feature-system.js';

/** Past the 12-hour hold of a parked key's message. */
export const PARK_HOLD_EXPIRY_MS = 12 * 3_600_000 + 60_000;

export class Deliver implements FeatureCommand {
  constructor(
    readonly lane: string,
    readonly max: number,
    /** The worker dies after this many writes; undefined: it lives. */
    readonly dieAfter: number | undefined,
  ) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count(this.dieAfter === undefined ? 'deliver' : 'deliver, worker dies');
    const out = await r.deliver(this.lane, this.max, this.dieAfter);
    if (m.redrivenDebounce !== undefined && out.received.includes(m.redrivenDebounce.id))
      m.redrivenDebounce = undefined;
    if (out.died) {
      for (const id of out.received) {
        const task = m.tasks.get(id);
        if (task !== undefined) task.crashes += 1;
      }
    } else {
      // Which of them parked its key: what an aimed redrive by key takes next.
      for (const id of out.received) {
        const parkedKey = (await r.get(id))?.parkedKey;
        if (parkedKey !== undefined) m.lastParked = { id, key: parkedKey };
      }
    }
    m.trace.push(
      `  [${out.received.join(', ')}]${out.died ? ` died after ${out.writes.join(', ') || 'no write'}` : ''}`,
    );
  }

  toString = () =>
    `deliver(${this.lane}, ≤ ${this.max}${this.dieAfter === undefined ? '' : `, dies after ${this.dieAfter} write(s)`})`;
}

export class Tick implements FeatureCommand {
  constructor(readonly ms: number) {}
  check = () => true;

  async run(_m: FeatureModel, r: FeatureSystem): Promise<void> {
    count(
      this.ms >= PARK_HOLD_EXPIRY_MS
        ? 'tick 12 h'
        : this.ms >= LEASE_EXPIRY_MS
          ? 'lease-expire'
          : 'tick',
    );
    await r.tick(this.ms);
  }

  toString = () =>
    this.ms >= PARK_HOLD_EXPIRY_MS
      ? 'tick(12 h)'
      : this.ms >= LEASE_EXPIRY_MS
        ? 'lease-expire'
        : `tick(${this.ms} ms)`;
}

export class Sweep implements FeatureCommand {
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('sweep');
    m.trace.push(`  ${JSON.stringify(await r.sweep())}`);
  }

  toString = () => 'sweep';
}

export class Pump implements FeatureCommand {
  check = () => true;

  async run(_m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('pump');
    await r.pumpTick();
  }

  toString = () => 'pump';
}

/** Switches an outage: the payload bucket's S3, or EventBridge refusing lifecycle events. */
export class Outage implements FeatureCommand {
  constructor(
    readonly service: 's3' | 'events',
    readonly on: boolean,
  ) {}
  check = () => true;

  async run(_m: FeatureModel, r: FeatureSystem): Promise<void> {
    count(`${this.service} ${this.on ? 'down' : 'up'}`);
    if (this.service === 's3') r.s3Outage.on = this.on;
    else r.events.refusing = this.on;
  }

  toString = () => `${this.service} ${this.on ? 'down' : 'up'}`;
}
