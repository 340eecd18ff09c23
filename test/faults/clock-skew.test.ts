/**
 * (f) Clock skew. Three workers whose clocks are 30 s slow, right, and 30 s fast (an
 * injected clock) run tasks with the default lease grace (meant to absorb skew). While
 * each task runs, a duplicate of its message is delivered to another worker, which judges
 * the running lease by its own clock. The sweeper keeps true time. A takeover is a claim of
 * a lease that its holder still held.
 */
import { describe, it } from 'vitest';
import { AuditEvent, Defaults } from '../../src/core/constants.js';
import type { TaskRecord } from '../../src/core/record.js';
import type { Worker } from '../../src/worker/create-worker.js';
import { FAULT_TASK_TYPE, type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { syntheticDelivery } from './lib/messages.js';
import { readAllRecords } from './lib/records.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, checkDuplicatesExplained, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 200;
const OFFSETS_MS = [-30_000, 0, 30_000];
const PROFILE: TaskProfile = {
  timeoutMs: 5000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2000,
};

const workerName = (offset: number) => `clock${offset >= 0 ? '+' : ''}${offset / 1000}s`;
const offsetOf = (workerId: string | undefined) =>
  OFFSETS_MS.find((o) => workerName(o) === workerId) ?? 0;

/** Each takeover in a history: who held the lease and who claimed it. */
function takeovers(record: TaskRecord): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  let holder: string | undefined;
  for (const entry of record.history) {
    if (entry.event === AuditEvent.CLAIMED) {
      if (holder !== undefined) out.push({ from: holder, to: entry.workerId ?? '?' });
      holder = entry.workerId;
    } else if (entry.event !== AuditEvent.HEARTBEAT_EXTENDED) {
      holder = undefined;
    }
  }
  return out;
}

describe('clock skew', () => {
  it('never takes over a live lease while worker clocks are ±30 s apart', async () => {
    // Arrange: when a task starts on one worker, a duplicate goes to another one.
    const s = await Scenario.open({
      id: 'f',
      title: '(f) Clock skew ±30 s',
      description:
        'Three workers whose clocks are 30 s slow, right and 30 s fast, with the default lease grace (Defaults.LEASE_GRACE_MS). While each task runs, a duplicate of its message goes to another worker.',
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
    });
    const picks = s.rng.fork('duplicates');
    const duplicates: Promise<unknown>[] = [];
    const workers: Worker[] = [];
    for (const [n, offset] of OFFSETS_MS.entries()) {
      workers.push(
        s.worker(
          {
            profile: PROFILE,
            onCall: (_payload, run) => {
              if (run.attempt !== 1) return;
              const other = workers[(n + picks.int(1, OFFSETS_MS.length - 1)) % OFFSETS_MS.length];
              duplicates.push(
                other?.processBatch([syntheticDelivery(s.executor, run.taskId, FAULT_TASK_TYPE)]) ??
                  Promise.resolve(),
              );
            },
          },
          {
            workerId: workerName(offset),
            clock: () => Date.now() + offset,
            leaseGraceMs: Defaults.LEASE_GRACE_MS,
          },
        ),
      );
    }
    const stops = workers.map((w) => startPolling(w));
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 3000, pendingAgeMs: 10_000 });
    const tasks = range(TASKS).map((seq) => ({
      id: `f-${seq}`,
      payload: { seq, mode: WorkMode.OK, runMs: s.rng.int(300, 800) },
    }));

    // Act
    const { ids } = await enqueueAll(s.client(), s.producerTask(PROFILE), tasks, {
      pace: { sqs: s.executor.clients.sqs, queueUrl: s.executor.queueUrl, maxDepth: 100 },
    });
    await s.quiesce(ids, 120_000);
    await Promise.all(duplicates);
    await Promise.all(stops.map((stop) => stop()));
    await sweeper.stop();

    // Assert
    const { figures } = await s.classify(allSucceed(ids));
    const records = await readAllRecords(s.executor);
    const all = [...records.values()].flatMap(takeovers);
    const beyondGrace = all.filter(
      (t) => offsetOf(t.to) - offsetOf(t.from) > Defaults.LEASE_GRACE_MS,
    );
    const byPair = new Map<string, number>();
    for (const t of all) {
      byPair.set(`${t.from}→${t.to}`, (byPair.get(`${t.from}→${t.to}`) ?? 0) + 1);
    }
    s.note('lease grace (default)', `${Defaults.LEASE_GRACE_MS / 1000} s`);
    s.note('duplicates delivered to another worker during the run', duplicates.length);
    s.note('takeovers of a held lease', all.length);
    s.note(
      'takeovers by pair',
      [...byPair].map(([pair, n]) => `${pair}: ${n}`).join(', ') || 'none',
    );
    checkCommon(s, figures);
    checkDuplicatesExplained(s, figures);
    const spread = (Math.max(...OFFSETS_MS) - Math.min(...OFFSETS_MS)) / 1000;
    s.check(
      'skew-within-grace',
      `no live lease taken over by a clock at most the grace (${Defaults.LEASE_GRACE_MS / 1000} s) ahead of its holder`,
      all.length === beyondGrace.length,
      `${all.length - beyondGrace.length} such takeovers`,
    );
    s.check(
      'no-takeover',
      `no live lease taken over at all, with clocks up to ${spread} s apart (docs/design.md §1.3: a handler runs again only after a crash or timeout)`,
      all.length === 0,
      `${all.length} takeovers (${beyondGrace.length} by a clock more than the grace ahead), ${figures.duplicatedEffects} duplicated effects`,
    );
    await s.finish();
  });
});
