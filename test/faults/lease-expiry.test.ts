/**
 * (e) Lease expires mid-task. A worker process is frozen (SIGSTOP: a long GC pause, a
 * suspended VM) while it runs tasks, until both their leases and their messages'
 * visibility have expired and another worker has taken them over and finished them. Then it
 * resumes (SIGCONT), and its handlers carry on, unaware.
 * - Without heartbeat: the stale runs finish and repeat their effect (a duplicate, which
 *   docs/design.md §1.3 allows after a lost lease); their outcome write is fenced off.
 * - With heartbeat: the lease is short and heartbeated automatically, and the handler
 *   heartbeats right before its effect, so a stale run learns of its lost lease and stops.
 */
import { describe, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { readRecords } from './lib/records.js';
import { enqueueAll, eventuallyTrue, range } from './lib/run.js';
import { allSucceed, checkCommon, checkDuplicatesExplained, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const TASKS = 30;
const RUN_MS = 1500;

interface Variant {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly profile: TaskProfile;
  readonly leaseDurationMs: number;
}

const VARIANTS: readonly Variant[] = [
  {
    id: 'e1',
    title: '(e) Lease expires mid-task, without heartbeat',
    description:
      'A worker process is SIGSTOPped while it runs tasks, until their leases (6.5 s) and message visibility (6 s) have expired and another worker has finished them; then SIGCONT. No heartbeat.',
    // Lease = timeout + grace = 6.5 s, within leaseDurationMs: no automatic heartbeat.
    profile: { timeoutMs: 6000, maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 1000 },
    leaseDurationMs: 10_000,
  },
  {
    id: 'e2',
    title: '(e) Lease expires mid-task, with heartbeat',
    description:
      'The same freeze, with a 2 s lease kept alive by the automatic heartbeat (every 0.67 s), and a heartbeat right before the effect.',
    // Lease 2 s < timeout + grace: heartbeats every 0.67 s, and one before the effect.
    profile: {
      timeoutMs: 6000,
      maxAttempts: 3,
      baseDelayMs: 200,
      maxDelayMs: 1000,
      fenceEffect: true,
    },
    leaseDurationMs: 2000,
  },
];

describe('lease expires mid-task', () => {
  for (const variant of VARIANTS) {
    it(variant.title, async () => {
      // Arrange: one worker takes the tasks, and is frozen while it runs them.
      const s = await Scenario.open({
        id: variant.id,
        title: variant.title,
        description: variant.description,
        workerTimeoutSeconds: 1,
        maxAttempts: variant.profile.maxAttempts,
      });
      const settings = {
        leaseGraceMs: 500,
        leaseDurationMs: variant.leaseDurationMs,
        concurrency: 2,
        batchSize: 10,
        waitTimeSeconds: 1,
      };
      const victim = s.fleet(variant.profile, settings, 'victim');
      const healthy = s.fleet(variant.profile, settings, 'healthy');
      victim.start(1);
      const tasks = range(TASKS).map((seq) => ({
        id: `${variant.id}-${seq}`,
        payload: { seq, mode: WorkMode.OK, runMs: RUN_MS },
      }));
      const { ids } = await enqueueAll(s.client(), s.producerTask(variant.profile), tasks);
      const runningOnVictim = async () => {
        const records = await readRecords(s.executor, ids);
        return [...records.values()]
          .filter((r) => r.status === TaskStatus.RUNNING && r.workerId?.startsWith('victim'))
          .map((r) => r.id);
      };
      await eventuallyTrue(async () => (await runningOnVictim()).length >= 5, 30_000);

      // Act: freeze; let the lease and visibility run out and the others finish; resume.
      victim.workers[0]?.signal('SIGSTOP');
      const frozenAt = Date.now();
      // Writes already on the wire may still land; the held tasks are read after them.
      await new Promise((r) => setTimeout(r, 300));
      const held = await runningOnVictim();
      const sweeper = startSweeperLoop(s.executor, { intervalMs: 1000, pendingAgeMs: 3000 });
      healthy.start(1);
      await eventuallyTrue(async () => {
        const records = await readRecords(s.executor, held, ['pk', 'status']);
        return held.every((id) => records.get(id)?.status === TaskStatus.SUCCEEDED);
      }, 90_000);
      const frozenMs = Date.now() - frozenAt;
      victim.workers[0]?.signal('SIGCONT');
      const resumedAt = Date.now();
      await s.quiesce(ids, 60_000);
      // Give the resumed worker time to finish its stale runs and attempt their writes.
      await new Promise((r) => setTimeout(r, variant.profile.timeoutMs + 1000));
      await sweeper.stop();
      await Promise.all([victim.stopAll(), healthy.stopAll()]);

      // Assert
      const { figures, verdicts } = await s.classify(allSucceed(ids));
      const stale = s.calls.audits.filter(
        (a) => a.event === AuditEvent.STALE_DROPPED && held.includes(String(a.taskId)),
      ).length;
      const heldLost = verdicts.filter((v) => held.includes(v.id) && v.lostLeases > 0).length;
      s.note('tasks running on the frozen worker', held.length);
      s.note('freeze', `${(frozenMs / 1000).toFixed(1)} s`);
      s.note('stale outcomes dropped by the fence (stale-dropped)', stale);
      checkCommon(s, figures);
      checkDuplicatesExplained(s, figures);
      s.check(
        'leases-lost',
        'every task of the frozen worker lost its lease and was finished by another',
        heldLost === held.length,
        `${heldLost}/${held.length}`,
      );
      // A frozen run's effect after its lease was taken over: the duplicate heartbeats avoid.
      const effects = await s.ledger.readAll();
      const staleEffects = effects.filter(
        (e) => held.includes(e.taskId) && e.workerId.startsWith('victim') && e.at >= resumedAt,
      ).length;
      s.note('effects of the frozen runs after they resumed', staleEffects);
      if (variant.profile.fenceEffect) {
        s.check(
          'fenced-effects',
          'with heartbeat: no frozen run repeats its effect after resuming',
          staleEffects === 0,
          staleEffects,
        );
      }
      await s.finish();
    });
  }
});
