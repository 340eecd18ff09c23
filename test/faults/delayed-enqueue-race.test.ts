/**
 * (m) Concurrent delayed enqueues of one id while CreateSchedule fails. A delayed enqueue
 * writes a SCHEDULED record, then creates the task's one-time schedule. Producers retry, so
 * several callers enqueue the same id at once; some of their CreateSchedule calls are slow,
 * some fail. A caller that failed must not undo what another caller was told exists: every
 * caller whose enqueue returned must find its task later, run exactly once. And since ADR 0038
 * the callers of one id never disagree: the first confirmation or rollback decides for all.
 */
import { describe, it } from 'vitest';
import { isTerminal } from '../../src/core/constants.js';
import { ScheduleFailedError } from '../../src/core/errors.js';
import { createSchedulePump } from '../../src/local/schedule-pump.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { faultyScheduler, type SchedulerFault } from './lib/faults.js';
import { sleep } from './lib/random.js';
import { readRecords } from './lib/records.js';
import { range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const IDS = 30;
const RUN_AT_MS = 8000;
const PROFILE: TaskProfile = {
  timeoutMs: 5000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 1000,
};

/** How each caller's CreateSchedule behaves. */
const ROLES = {
  /** Slow, then fails: the caller that wrote the record rolls back late. */
  'slow-fail': { delayMs: 1500, fail: true },
  fail: { fail: true },
  slow: { delayMs: 700 },
  ok: {},
} satisfies Record<string, SchedulerFault>;
type Role = keyof typeof ROLES;

interface Outcome {
  readonly id: string;
  readonly role: Role;
  readonly told: boolean;
  readonly created?: boolean;
  readonly error?: string;
}

describe('delayed enqueue race', () => {
  it(`loses no task that a caller was told exists, over ${IDS} contested ids`, async () => {
    // Arrange: one producer per role, a schedule pump, a worker and a sweeper.
    const s = await Scenario.open({
      id: 'm',
      title: '(m) Concurrent delayed enqueues while CreateSchedule fails',
      description: `${IDS} ids, each enqueued by 3 concurrent callers with runAt ${RUN_AT_MS / 1000} s ahead: the first caller's CreateSchedule is slow (1.5 s) and then fails; a second caller, 50–600 ms later, succeeds; a third, at a random moment, fails at once, is slow (0.7 s) or succeeds. A schedule pump delivers due schedules every 0.5 s.`,
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
      scheduling: true,
    });
    const scheduling = s.executor.scheduler;
    const schedulerClient = s.executor.clients.scheduler;
    if (scheduling === undefined || schedulerClient === undefined) {
      throw new Error('the executor has no schedule group');
    }
    const injectors = Object.fromEntries(
      (Object.keys(ROLES) as Role[]).map((role) => [
        role,
        faultyScheduler((command) => (command === 'CreateSchedule' ? ROLES[role] : undefined)),
      ]),
    ) as Record<Role, ReturnType<typeof faultyScheduler>>;
    const producer = (role: Role) =>
      s.client({
        scheduler: injectors[role].client,
        queueArn: s.executor.queueArn,
        scheduleGroup: scheduling.scheduleGroup,
        schedulerRoleArn: scheduling.schedulerRoleArn,
        scheduleDeadLetterArn: scheduling.scheduleDeadLetterArn,
        scheduleThresholdMs: 2000,
      });
    const producers = Object.fromEntries(
      (Object.keys(ROLES) as Role[]).map((role) => [role, producer(role)]),
    ) as Record<Role, ReturnType<typeof producer>>;
    const task = s.producerTask(PROFILE);
    const pumping = new AbortController();
    const pump = createSchedulePump({
      scheduler: schedulerClient,
      sqs: s.executor.clients.sqs,
      groupName: scheduling.scheduleGroup,
    }).run({ signal: pumping.signal, intervalMs: 500 });
    const stopWorker = startPolling(s.worker({ profile: PROFILE }), { concurrency: 2 });
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 2000, pendingAgeMs: 2000 });

    // Act: every id's callers at once.
    const runAt = new Date(Date.now() + RUN_AT_MS);
    const call = async (id: string, seq: number, role: Role, afterMs: number) => {
      await sleep(afterMs);
      try {
        const result = await producers[role].enqueue(
          task,
          { seq, mode: WorkMode.OK, runMs: 50 },
          { id, runAt },
        );
        return { id, role, told: true, created: result.created } satisfies Outcome;
      } catch (err) {
        const name = err instanceof ScheduleFailedError ? 'ScheduleFailedError' : String(err);
        return { id, role, told: false, error: name } satisfies Outcome;
      }
    };
    const third: Role[] = ['fail', 'slow', 'ok'];
    const outcomes: Outcome[] = await Promise.all(
      range(IDS).flatMap((seq) => {
        const id = `m-${seq}`;
        return [
          call(id, seq, 'slow-fail', 0),
          call(id, seq, 'ok', s.rng.int(50, 600)),
          call(id, seq, third[s.rng.int(0, 2)] as Role, s.rng.int(0, 1000)),
        ];
      }),
    );
    const told = [...new Set(outcomes.filter((o) => o.told).map((o) => o.id))];
    const untold = range(IDS)
      .map((seq) => `m-${seq}`)
      .filter((id) => !told.includes(id));
    // The sweeper repairs a SCHEDULED task without a schedule 2 minutes after its runAt.
    await s.quiesce(told, 200_000);
    await sleep(3000);
    await sweeper.stop();
    await stopWorker();
    pumping.abort();
    await pump;

    // Assert
    const { figures } = await s.classify(allSucceed(told));
    const contested = new Set(
      outcomes
        .filter((o) => !o.told)
        .map((o) => o.id)
        .filter((id) => told.includes(id)),
    );
    // Each call's own CreateSchedule either fails (slow-fail, fail) or succeeds (slow, ok).
    // Since ADR 0038 every call reports the id's one outcome, so a call whose own schedule
    // failed can be told the task exists (another call confirmed it first), and a call whose
    // schedule landed can get ScheduleFailedError (another call's rollback won).
    const ownFailed = (o: Outcome) => 'fail' in ROLES[o.role];
    const raced = new Set(outcomes.filter((o) => ownFailed(o) === o.told).map((o) => o.id));
    // A failed and a successful caller of one id agree when the failed call's record was rolled
    // back (by another failing call) before a later call created the id afresh (created: true):
    // "nothing was enqueued" was true of that call. Otherwise they contradict each other.
    const contradicted = [...contested].filter(
      (id) => !outcomes.some((o) => o.id === id && o.told && o.created === true),
    );
    for (const id of contested) {
      const calls = outcomes.filter((o) => o.id === id);
      console.log(
        `[faults] (m) ${id}: ${calls.map((o) => `${o.role} ${o.told ? `told (created: ${o.created})` : o.error}`).join('; ')}`,
      );
    }
    const leftovers = await readRecords(s.executor, untold);
    const effects = await s.ledger.readAll();
    const untoldOpen = [...leftovers.values()].filter((r) => !isTerminal(r.status)).length;
    const untoldEffects = effects.filter((e) => untold.includes(e.taskId)).length;
    s.note('enqueue calls', outcomes.length);
    s.note('calls told the task exists', outcomes.filter((o) => o.told).length);
    s.note('calls that failed (ScheduleFailedError)', outcomes.filter((o) => !o.told).length);
    s.note('ids with a failed and a successful caller', contested.size);
    s.note("ids where a caller was told the outcome of another caller's schedule", raced.size);
    s.note('ids no caller was told of', untold.length);
    s.note(
      'CreateSchedule calls failed by injection',
      Object.values(injectors).reduce((n, i) => n + i.failed(), 0),
    );
    s.note('sweeper sends', sweeper.stats.sent);
    checkCommon(s, figures);
    s.check(
      'told-run-once',
      'every id a caller was told exists ran exactly once and SUCCEEDED',
      figures.exactlyOnce === told.length,
      `${figures.exactlyOnce} of ${told.length}`,
    );
    s.check(
      'untold-clean',
      'an id no caller was told of is gone or finished, with at most one effect each',
      untoldOpen === 0 && untoldEffects <= untold.length,
      `${untoldOpen} left open, ${untoldEffects} effects over ${untold.length} ids`,
    );
    s.check(
      'callers-agree',
      'callers of one id agree: a failed and a successful caller only where the id was rolled back and created afresh',
      contradicted.length === 0,
      `${contradicted.length} of ${contested.size} such id(s) without a fresh creation`,
    );
    s.check(
      'exercised',
      'the race happened: a caller whose own CreateSchedule failed learned that another created the task, or the reverse',
      raced.size > 0,
      `${raced.size} id(s)`,
    );
    await s.finish();
  });
});
