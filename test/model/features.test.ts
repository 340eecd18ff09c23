/**
 * (7b) Model-based test across the features (fast-check, model commands): random interleavings
 * of enqueues (by id, keyed, in two lanes, claim-checked, dependents under either
 * `onParentDead`, delayed through a CreateSchedule that may fail or be held), debounced
 * enqueues in both modes, deliveries to workers that may die after any write, clock ticks past
 * leases and parked keys' holds, sweeps, pump ticks, cancel, redrive by id and by key,
 * releaseKey, purge, and S3 and EventBridge outages, against the real client, worker, sweeper
 * and pump on the emulator. After each sequence the system is drained and judged against the
 * README's guarantees (./feature-oracle.ts says precisely which). Some commands are aimed at
 * what the sequence did so far (./feature-commands.ts), so that features meet often enough.
 *
 * FAULT_SEED replays a run; MODEL_FEATURE_RUNS sets how many sequences (default 20);
 * MODEL_PATH (with FAULT_SEED) runs only the sequence at that fast-check path, e.g. a shrunk
 * counterexample's; MODEL_SHRINK_MS bounds the shrinking; MODEL_VERBOSE=1 prints a line per
 * sequence.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { Scenario } from '../faults/lib/scenario.js';
import { featureTally } from './enqueue-commands.js';
import {
  FEATURE_MAX_COMMANDS,
  FEATURE_MIN_COMMANDS,
  featureCommands,
  SLOTS,
} from './feature-commands.js';
import { FeatureModel } from './feature-model.js';
import { drain, judge } from './feature-oracle.js';
import { FeatureSystem } from './feature-system.js';

const RUNS = Number(process.env.MODEL_FEATURE_RUNS ?? 20);
/** How long a failure may be shrunk for: MODEL_SHRINK_MS (default 3 minutes). */
const SHRINK_MS = Number(process.env.MODEL_SHRINK_MS ?? 180_000);
/**
 * Debugging aids, off by default: MODEL_COLLECT=1 prints every failing sequence and goes on
 * (to count how many sequences each break needs); MODEL_ONLY=<regex> counts only matching
 * violations as failures (to shrink one break among several).
 */
const COLLECT = process.env.MODEL_COLLECT === '1';
const ONLY = process.env.MODEL_ONLY === undefined ? undefined : new RegExp(process.env.MODEL_ONLY);
/** MODEL_VERBOSE=1 prints a line per sequence; MODEL_VERBOSE=2 its trace as well. */
const VERBOSE = process.env.MODEL_VERBOSE === '1' || process.env.MODEL_VERBOSE === '2';
const TRACE_ALL = process.env.MODEL_VERBOSE === '2';

describe('(7b) every feature against a model of the guarantees', () => {
  // About 8 s a sequence on 2 idle cores, up to 60 s on a loaded machine, plus the shrinking budget.
  const timeout = RUNS * 90_000 + SHRINK_MS + 120_000;
  it(`keeps the guarantees over ${RUNS} random command sequences`, { timeout }, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'model-features',
      title: '(7b) Model-based test across features (fast-check commands)',
      description: `fast-check commands: ${FEATURE_MIN_COMMANDS} to ${FEATURE_MAX_COMMANDS} interleaved commands per sequence over ${SLOTS} ids, 2 ordering keys, 2 debounce keys and 2 lanes (enqueue by id, keyed, claim-checked, dependent, delayed with a failing or held CreateSchedule; debounce last and first; deliveries to workers that die after any write; ticks past leases and parked holds; sweep; pump; cancel; redrive by id, by key and of the key parked last; releaseKey; purge; S3 and EventBridge outages), some aimed at what the sequence did so far, then drained and judged against the guarantees (test/model/feature-oracle.ts).`,
      workerTimeoutSeconds: 5,
      maxAttempts: 2,
    });
    const real = await FeatureSystem.create();
    let sequences = 0;
    let commands = 0;
    let tasks = 0;
    let lastTrace: string[] = [];
    const timing = { commands: 0, drain: 0, judge: 0 };
    console.log(
      `[model] features: fast-check seed ${s.seed}, ${RUNS} sequences (MODEL_FEATURE_RUNS)`,
    );

    // Act
    const property = fc.asyncProperty(featureCommands(), async (cmds) => {
      sequences += 1;
      real.reset(sequences);
      const model = new FeatureModel();
      const traced = [...cmds].map((c) => wrap(c, model));
      const t0 = Date.now();
      await fc.asyncModelRun(() => ({ model, real }), traced);
      const t1 = Date.now();
      await drain(model, real);
      const t2 = Date.now();
      const violations = await judge(model, real);
      if (TRACE_ALL) {
        for (const id of model.tasks.keys()) {
          const rec = await real.get(id);
          const story = (rec?.history ?? []).map((h) => `${h.event}#${h.attempt}`).join(' > ');
          model.trace.push(`  ${id}: ${rec?.status ?? 'ABSENT'}; ${story}`);
        }
      }
      timing.commands += t1 - t0;
      timing.drain += t2 - t1;
      timing.judge += Date.now() - t2;
      commands += traced.length;
      tasks += model.tasks.size;
      lastTrace = model.trace;
      if (VERBOSE) {
        console.log(
          `[model] sequence ${sequences}: ${traced.length} commands, ${model.tasks.size} tasks, ${((Date.now() - t0) / 1000).toFixed(1)} s, ${violations.length === 0 ? 'ok' : violations[0]}${TRACE_ALL ? `\n${model.trace.join('\n')}` : ''}`,
        );
      }
      if (COLLECT && violations.length > 0) {
        console.log(
          `[model] sequence ${sequences} (path ${sequences - 1}): ${violations.join(' | ')}${VERBOSE ? `\n${model.trace.join('\n')}` : ''}`,
        );
        return;
      }
      const counted = ONLY === undefined ? violations : violations.filter((v) => ONLY.test(v));
      if (counted.length > 0) {
        throw new Error(
          `${violations.slice(0, 5).join('\n')}\n--- trace\n${model.trace.join('\n')}`,
        );
      }
    });
    // A fixed number of sequences first; a failure is then shrunk within a time budget, from
    // the failing sequence's path (each shrink step is a whole sequence on the emulator).
    const replay = process.env.MODEL_PATH;
    const found = await fc.check(property, {
      seed: s.seed,
      numRuns: replay === undefined ? RUNS : 1,
      endOnFailure: true,
      ...(replay === undefined ? {} : { path: replay }),
    });
    const searched = sequences;
    const shrunk = !found.failed
      ? found
      : await fc.check(property, {
          seed: s.seed,
          ...(found.counterexamplePath === null ? {} : { path: found.counterexamplePath }),
          numRuns: 1,
          interruptAfterTimeLimit: SHRINK_MS,
          markInterruptAsFailure: true,
        });
    // Shrinking stopped before its first run: report the sequence as found.
    const details = shrunk.counterexample === null ? found : shrunk;

    // Assert
    s.setFigures({ tasks });
    s.setSequences(searched);
    s.note('fast-check seed', s.seed);
    s.note('command sequences', searched);
    if (found.failed) {
      s.note('failing sequence', `#${found.numRuns} (path ${found.counterexamplePath})`);
      s.note('sequences run to shrink it', sequences - searched);
    }
    s.note('commands run', commands);
    s.note(
      'commands by kind',
      [...featureTally]
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    );
    void lastTrace;
    s.note(
      'time in commands / drain / judging',
      `${(timing.commands / 1000).toFixed(1)} s / ${(timing.drain / 1000).toFixed(1)} s / ${(timing.judge / 1000).toFixed(1)} s`,
    );
    s.check(
      'guarantees',
      `the guarantees hold after every sequence (${RUNS} sequences, ≤ ${FEATURE_MAX_COMMANDS} commands each)`,
      !details.failed,
      details.failed
        ? `sequence #${found.numRuns} of ${RUNS} failed (seed ${s.seed}, path ${found.counterexamplePath}); shrunk ${details.numShrinks} time(s)${details.interrupted ? ' (shrinking stopped at its time budget)' : ''} to ${fc.stringify(details.counterexample)} (replay: FAULT_SEED=${s.masterSeed} MODEL_PATH=${details.counterexamplePath}): ${String(details.errorInstance)}`.slice(
            0,
            6000,
          )
        : `${details.numRuns} sequences passed`,
    );
    await s.finish();
  });
});

/** Traces each command before it runs (the trace goes into a failure's report). */
function wrap<
  C extends { run(m: FeatureModel, r: FeatureSystem): Promise<void>; toString(): string },
>(command: C, model: FeatureModel): C {
  const run = command.run.bind(command);
  return Object.assign(Object.create(command) as C, {
    run: (m: FeatureModel, r: FeatureSystem) => {
      model.trace.push(command.toString());
      return run(m, r);
    },
  });
}
