/**
 * (7) Model-based test of the task state machine (fast-check `fc.commands`): random
 * interleavings of enqueue, deliver, duplicate delivery, crash, lease expiry, heartbeat,
 * sweep and cancel run against a pure reference model and against the real store, processor
 * and sweeper on the emulator. After every command the task's status, attempt, history
 * length and terminal writes must match the model, attempts must stay within maxAttempts,
 * and the terminal state must be written at most once.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { Scenario } from '../faults/lib/scenario.js';
import { commands, MAX_COMMANDS, tally } from './commands.js';
import { LEASE_MS, MAX_ATTEMPTS, RealSystem } from './real-system.js';
import { newModel } from './task-model.js';

const RUNS = Number(process.env.MODEL_RUNS ?? 100);
const TASKS = 2;
/** A sequence that runs longer than this has hung. */
const HANG_MS = 60_000;

describe('(7) task state machine against a reference model', () => {
  it(`agrees with the model over ${RUNS} random command sequences`, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'model',
      title: '(7) Model-based test (fast-check commands)',
      description:
        'fast-check fc.commands: up to 40 interleaved enqueue, deliver, duplicate, finish, crash, lease-expire, heartbeat, sweep and cancel commands per run over 2 tasks, against a pure reference model (test/model/task-model.ts).',
      workerTimeoutSeconds: 5,
      maxAttempts: MAX_ATTEMPTS,
    });
    const real = new RealSystem(s.executor);
    let runs = 0;
    let steps = 0;
    console.log(`[model] fast-check seed ${s.seed}, ${RUNS} runs (MODEL_RUNS)`);

    // Act
    const details = await fc.check(
      fc.asyncProperty(commands(TASKS), async (cmds) => {
        runs += 1;
        real.reset(runs);
        const model = newModel(TASKS, {
          now: real.clock.now,
          maxAttempts: MAX_ATTEMPTS,
          leaseMs: LEASE_MS,
        });
        // A command that waits for what the system never does would hang the whole run: it
        // fails the sequence instead, after HANG_MS, so fast-check reports it.
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`sequence hung for ${HANG_MS} ms`)), HANG_MS);
        });
        try {
          await Promise.race([fc.asyncModelRun(() => ({ model, real }), cmds), hung]);
        } finally {
          clearTimeout(timer);
        }
        steps += model.steps;
      }),
      // MODEL_SHRINK_MS=0: report the first failure as it is, without shrinking it.
      { seed: s.seed, numRuns: RUNS, endOnFailure: process.env.MODEL_SHRINK_MS === '0' },
    );

    // Assert
    s.setFigures({ tasks: runs * TASKS });
    s.setSequences(runs);
    s.note('fast-check seed', s.seed);
    s.note('runs (including shrinking)', runs);
    s.note('commands checked', steps);
    s.note(
      'commands by kind',
      [...tally]
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    );
    s.check(
      'agrees',
      `model and system agree after every command (${RUNS} runs, ≤ ${MAX_COMMANDS} commands each)`,
      !details.failed,
      details.failed
        ? `counterexample ${fc.stringify(details.counterexample)} (seed ${details.seed}, path ${details.counterexamplePath}): ${String(details.errorInstance)}`.slice(
            0,
            2000,
          )
        : `${details.numRuns} runs passed`,
    );
    await s.finish();
  });
});
