/**
 * The feature model's operator commands, through the real TaskClient: cancel, redrive by id
 * and by ordering key, releaseKey, and purge of DEAD tasks. Each records what it was told
 * (which tasks were redriven or purged) for the oracle.
 */
import { TaskStatus } from '../../src/core/constants.js';
import { count, type FeatureCommand } from './enqueue-commands.js';
import type { FeatureModel } from './feature-model.js';
import type { FeatureSystem } from './feature-system.js';

async function quietly<T>(call: () => Promise<T>): Promise<T | Error> {
  try {
    return await call();
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** The index n of key `k<n>` of this sequence, or -1. */
function keyIndex(r: FeatureSystem, key: string): number {
  for (let n = 0; n < 2; n++) if (r.key(n) === key) return n;
  return -1;
}

function redriven(m: FeatureModel, ids: readonly string[]): void {
  for (const id of ids) {
    const task = m.tasks.get(id);
    if (task !== undefined) task.redrives += 1;
  }
}

export class Cancel implements FeatureCommand {
  constructor(readonly slot: number) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('cancel');
    const out = await quietly(() => r.producer(false).cancel(r.id(this.slot)));
    m.trace.push(`  ${out instanceof Error ? `threw ${out.name}` : 'done'}`);
  }

  toString = () => `cancel(t${this.slot})`;
}

export class RedriveIds implements FeatureCommand {
  constructor(readonly slot: number) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('redrive by id');
    const out = await quietly(() => r.producer(false).redrive({ ids: [r.id(this.slot)] }));
    if (out instanceof Error) {
      m.trace.push(`  threw ${out.name}: ${out.message}`);
      return;
    }
    redriven(m, out.redriven);
    m.trace.push(`  redriven [${out.redriven.join(', ')}]`);
  }

  toString = () => `redrive({ ids: [t${this.slot}] })`;
}

/**
 * Redrives a key's DEAD tasks; aimed (`parked`), the key a delivery saw a task park last, so
 * that a redrive in place meets what came after the park (a fold, a dependent, a purge).
 */
export class RedriveKey implements FeatureCommand {
  constructor(
    readonly key: number,
    readonly parked = false,
  ) {}
  check = (m: Readonly<FeatureModel>): boolean => !this.parked || m.lastParked !== undefined;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count(this.parked ? 'redrive by parked key' : 'redrive by key');
    const key = (this.parked ? m.lastParked?.key : undefined) ?? r.key(this.key);
    if (this.parked) m.trace.push(`  (parked: ${key.replace(/^.*-/, '')})`);
    const out = await quietly(() => r.producer(false).redrive({ orderingKey: key }));
    if (out instanceof Error) {
      m.trace.push(`  threw ${out.name}: ${out.message}`);
      return;
    }
    redriven(m, out.redriven);
    if (m.lastParked !== undefined && out.redriven.includes(m.lastParked.id))
      m.lastParked = undefined;
    // A debounced task put back in place: what an aimed debounce meets before it reruns.
    for (const id of out.redriven) {
      const task = m.tasks.get(id);
      const dkey = task?.debounce === undefined ? -1 : keyIndex(r, task.debounce.key);
      if (task !== undefined && dkey >= 0) m.redrivenDebounce = { id, dkey, type: task.type };
    }
    m.trace.push(`  redriven [${out.redriven.join(', ')}]`);
  }

  toString = () =>
    `redrive({ orderingKey: ${this.parked ? `the key parked last, else k${this.key}` : `k${this.key}`} })`;
}

export class ReleaseKey implements FeatureCommand {
  constructor(readonly key: number) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('releaseKey');
    const out = await quietly(() => r.producer(false).releaseKey(r.key(this.key)));
    if (m.lastParked?.key === r.key(this.key)) m.lastParked = undefined;
    m.trace.push(
      `  ${out instanceof Error ? `threw ${out.name}: ${out.message}` : `released ${out.released} (${out.taskId})`}`,
    );
  }

  toString = () => `releaseKey(k${this.key})`;
}

/** Purges the DEAD tasks that died more than a second ago (on the model's clock). */
export class Purge implements FeatureCommand {
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('purge');
    const out = await quietly(() =>
      r.producer(false).purge({ status: TaskStatus.DEAD, olderThan: '1s' }),
    );
    if (out instanceof Error) {
      m.trace.push(`  threw ${out.name}: ${out.message}`);
      return;
    }
    // Other sequences' DEAD tasks are purged too; only this one's matter.
    const mine = out.purged.filter((id) => id.startsWith(`${r.prefix}-`) || m.tasks.has(id));
    for (const id of mine) {
      m.purged.add(id);
      if (m.lastParked?.id === id) m.lastParked = undefined;
      const key = m.tasks.get(id)?.key;
      if (key !== undefined) m.lastPurgedKey = key;
    }
    m.trace.push(`  purged [${mine.join(', ')}]`);
  }

  toString = () => "purge({ status: 'DEAD', olderThan: '1s' })";
}

/**
 * Pauses a key's unfinished tasks (`client.pause({ orderingKey })`, issue 26). Each task the
 * call paused is noted with the starts so far: none of it may start until a resume of the key
 * (checked by {@link ResumeKey} and the drain), and the key's later tasks must wait behind
 * it, which the key-order guarantee checks.
 */
export class PauseKey implements FeatureCommand {
  constructor(readonly key: number) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('pause by key');
    const out = await quietly(() => r.producer(false).pause({ orderingKey: r.key(this.key) }));
    if (out instanceof Error) {
      m.trace.push(`  threw ${out.name}: ${out.message}`);
      return;
    }
    for (const id of out.done) if (!m.paused.has(id)) m.paused.set(id, r.starts.length);
    if (out.requested.length > 0) count('pause by key: a running task asked');
    m.trace.push(
      `  paused [${out.done.join(', ')}] asked [${out.requested.join(', ')}] skipped [${out.skipped.join(', ')}]`,
    );
  }

  toString = () => `pause({ orderingKey: k${this.key} })`;
}

/** Resumes a key's PAUSED tasks (`client.resume({ orderingKey })`), in enqueue order. */
export class ResumeKey implements FeatureCommand {
  constructor(readonly key: number) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count('resume by key');
    const out = await resumeKey(m, r, r.key(this.key));
    m.trace.push(`  ${out}`);
  }

  toString = () => `resume({ orderingKey: k${this.key} })`;
}

/**
 * Resumes the PAUSED tasks of `key`, first checking that none of the tasks a pause of the key
 * paused has started since (a paused task never runs). Returns a line for the trace.
 */
export async function resumeKey(m: FeatureModel, r: FeatureSystem, key: string): Promise<string> {
  const out = await quietly(() => r.producer(false).resume({ orderingKey: key }));
  if (out instanceof Error) return `threw ${out.name}: ${out.message}`;
  for (const id of out.done) {
    const mark = m.paused.get(id);
    if (mark === undefined) continue;
    const started = r.starts.find((s) => s.id === id && s.order >= mark);
    if (started !== undefined) {
      m.violate(`paused: ${id} started (attempt ${started.attempt}) while PAUSED by its key`);
    }
    m.paused.delete(id);
  }
  return `resumed [${out.done.join(', ')}] skipped [${out.skipped.join(', ')}]`;
}
