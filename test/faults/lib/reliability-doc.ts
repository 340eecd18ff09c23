/** Renders RELIABILITY.md from the scenario results of the last run(s). */
import { KNOWN_FAILURES } from './known-failures.js';
import { renderSection, renderSummary, type ScenarioResult } from './report.js';

const DATA_OPEN = '<!-- fault-results';
const DATA_CLOSE = '-->';

const INTRO = `# Reliability

This file is written by \`npm run test:faults\` (test/faults, test/model); do not edit it by
hand. It holds the figures of the last run of each scenario.

The fault suite runs the real system against the emulator (moto, serialized so that
conditional writes are atomic): real SQS FIFO queues, the real DynamoDB task table, the real
worker (in the test process or in worker child processes that are SIGKILLed, SIGSTOPped and
restarted), the real sweeper, and faults injected through AWS SDK v3 middleware.

**What is measured.** Every handler run writes to an *effects ledger* (a separate DynamoDB
table): a \`call\` entry when the handler starts and an \`effect\` entry when its side effect
happens. After each scenario the system is left to quiesce (workers and sweeper keep running
until every task is terminal, or a deadline passes), and every task whose \`enqueue\` returned
is classified, Jepsen-style, from its record, its history and the ledger:

- **completed exactly once**: the expected terminal status, written once, with exactly the
  expected number of effects (1 for work that succeeds, 0 for poison);
- **lost**: not terminal after quiescing (or no record at all);
- **duplicated**: more effects than expected, or more than one terminal write;
- **unexpected**: terminal, but not as expected (wrong status, a missing effect, an effect by
  an attempt that the history does not show, an attempt above maxAttempts).

A *lost lease* is an attempt that did not end by its own worker's write: requeued by the
sweeper, taken over by a newer claim, or declared dead when its lease ran out. docs/design.md §1.3
allows a handler to run again only then, so every duplicated effect must be matched by a lost
lease in the task's history ("duplicates not explained by a lost lease" must be 0).

**Replaying a run.** Every random choice (fault schedule, kill times, generated inputs,
model commands) derives from one master seed, printed at the start of the run and shown
below. Replay with \`FAULT_SEED=<seed> npm run test:faults\`, or one scenario with
\`FAULT_SEED=<seed> npx vitest run -c vitest.faults.config.ts test/faults/<file>\`. The seed
fixes the faults and the inputs; process scheduling, the emulator's timing and the system's
own jitter still vary, so a replay reproduces the conditions, not every interleaving.
`;

/** Reads the results embedded in an earlier RELIABILITY.md, so a partial run keeps the rest. */
export function previousResults(doc: string): ScenarioResult[] {
  const start = doc.indexOf(DATA_OPEN);
  if (start < 0) return [];
  const end = doc.indexOf(DATA_CLOSE, start);
  try {
    return JSON.parse(doc.slice(start + DATA_OPEN.length, end)) as ScenarioResult[];
  } catch {
    return [];
  }
}

export function renderReliability(
  results: readonly ScenarioResult[],
  run: { masterSeed: number; date: string; wallMs: number; scenarios: number },
): string {
  // Scenarios (a)…(k) first, in letter order, then the model and audit tests.
  const rank = (r: ScenarioResult) => `${r.id.length <= 2 ? 0 : 1}${r.id}`;
  const ordered = [...results].sort((a, b) => rank(a).localeCompare(rank(b)));
  const known = Object.entries(KNOWN_FAILURES);
  return [
    INTRO,
    '## Last run',
    '',
    `${run.date}: FAULT_SEED=${run.masterSeed}, ${run.scenarios} scenario file(s), ` +
      `${(run.wallMs / 1000).toFixed(0)} s of wall time on this machine (2 cores). ` +
      'Scenarios not run then keep the figures (and seed) of their own last run.',
    '',
    '## Summary',
    '',
    renderSummary(ordered),
    '',
    '## Known failures',
    '',
    known.length === 0
      ? 'None registered.'
      : known.map(([id, reason]) => `- \`${id}\`: ${reason}`).join('\n'),
    '',
    '## Scenarios',
    '',
    ...ordered.map(renderSection),
    `${DATA_OPEN}\n${JSON.stringify(ordered)}\n${DATA_CLOSE}`,
    '',
  ].join('\n');
}
