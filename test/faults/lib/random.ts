/**
 * Seeded randomness for the fault suite. One master seed (FAULT_SEED) feeds every scenario;
 * each scenario derives its own stream from the master seed and its label, so a scenario
 * replays the same fault schedule whether it runs alone or in the whole suite.
 */

/** A deterministic random stream. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A new independent stream for `label`, derived from this one's seed. */
  fork(label: string): Rng;
  readonly seed: number;
}

/** FNV-1a over `master:label`: a stable 32-bit seed per label. */
export function deriveSeed(master: number, label: string): number {
  let hash = 0x811c9dc5;
  for (const ch of `${master >>> 0}:${label}`) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** mulberry32: small, fast and good enough to drive fault schedules. */
export function rng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    fork: (label) => rng(deriveSeed(seed, label)),
  };
}

/** Parses FAULT_SEED, or draws a fresh seed when it is unset. */
export function masterSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FAULT_SEED;
  if (raw === undefined || raw === '') return Math.floor(Math.random() * 4_294_967_296);
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 4_294_967_296) {
    throw new Error(
      `FAULT_SEED must be an integer from 0 to 2^32-1, received ${JSON.stringify(raw)}`,
    );
  }
  return seed;
}

/** Sleeps `ms`; resolves early (without error) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
