/** The report's header (date, machine, caveats) and its method section. */
import { PROFILES } from '../config.js';
import { duration, table } from './markdown.js';
import type { BenchResults } from './results.js';

/** Title, date, and the caveats a reader needs before any number. */
export function header(results: BenchResults): string {
  const { profile, machine } = results;
  const full = PROFILES.full;
  const scaled =
    profile.name === 'full'
      ? ''
      : ` **Sizes are scaled down from the issue's** (enqueue at 1,000 and 10,000 tasks; scaling at 1k/5k/10k): this run used ${profile.sizes.join(', ')} tasks. On moto a Tasklane task costs about 70 ms of emulator time (enqueue and processing), so five repetitions at ${full.sizes.join(' + ')} tasks would take hours, and "median of at least 5" was kept rather than the sizes. \`npm run bench -- --profile full\` runs the issue's sizes.`;
  return [
    '# Tasklane benchmarks',
    '',
    `Measured ${results.date.slice(0, 10)} (commit \`${machine.commit}\`) by \`npm run bench\`, profile \`${profile.name}\`, in ${duration(results.wallMs)}. Every time is the median of ${profile.reps} repetitions with (min–max). Every ratio is Tasklane ÷ baseline, computed per repetition (each repetition runs every system once, in a rotating order) and summarized the same way: above 1× means Tasklane is slower, bigger or costlier.${scaled}`,
    '',
    `> **This machine is shared.** The 1-minute load average was ${results.loadAverage.start.toFixed(1)} at the start of the run and ${results.loadAverage.end.toFixed(1)} at the end, on ${machine.cores} cores: other jobs ran alongside, so absolute times and their spread are inflated and drift during the run. Each repetition runs every system back to back and ratios are taken per repetition, which cancels most of that; single figures are less trustworthy than ratios.`,
    '',
    `> **moto is not AWS.** Every request goes to a local moto ${machine.moto} that serves one request at a time (\`src/local/moto_server_serial.py\`), at several milliseconds each, and its cost per request grows with item size and expression complexity in ways DynamoDB's does not. Ratios of times on it mostly say how many requests each system makes, and how heavy they are for moto; request counts, units and costs are exact and do not depend on the emulator. ${results.emulatorStarted ? 'The bench also loads `bench/emulator/sitecustomize.py` into moto, which removes SQS hot spots real SQS does not have (queue-wide scans on every send and receive); tests and `npm run dev` run moto unpatched.' : 'This run used the emulator at AWS_ENDPOINT_URL, unpatched.'}`,
  ].join('\n');
}

/** How the run was made. */
export function methodSection(results: BenchResults): string {
  const { profile, machine, checks } = results;
  const failed = checks.filter((c) => !c.ok);
  return [
    '## Method',
    '',
    table(
      ['Machine', ''],
      [
        ['CPU', `${machine.cores} cores, ${machine.cpu}`],
        ['Memory', `${machine.memoryGiB} GiB`],
        ['OS', machine.os],
        ['Node.js', machine.node],
        [
          'Emulator',
          `moto ${machine.moto}${results.emulatorStarted ? ', started by the bench, patched' : ', from AWS_ENDPOINT_URL'}`,
        ],
        ['Bundler', `esbuild ${machine.esbuild}`],
      ],
    ),
    '',
    `- Each measurement provisions fresh, uniquely named resources (\`executorSettings({ name })\` through \`provision()\`, plus an idempotency table for Powertools) and deletes them after.`,
    `- Consumers run as bundled node processes, one per measurement (\`bench/consumers/\`), so each process's peak memory is its own and no JIT state carries over. Producers run in the bench process.`,
    `- Per repetition and size: the raw baseline, Tasklane and (at ${results.throughput.powertoolsSize} tasks) Powertools, in an order that rotates each repetition.`,
    `- Tasks have no ordering key, so each is its own message group, as independent tasks are. The handler is a no-op that counts its runs.`,
    `- Requests are counted by an SDK middleware on every client (\`bench/lib/request-counter.ts\`); DynamoDB units are computed per request from item sizes by AWS's sizing rules (\`bench/lib/item-size.ts\`); SQS requests are billed per started 64 KB.`,
    `- Correctness gates the run: ${checks.length} checks (every task sent, every message deleted, each handler run exactly as often as expected, no run out of time, no cold start reporting a failure); ${failed.length === 0 ? 'all passed' : `${failed.length} FAILED: ${failed.map((c) => `${c.name} (${c.detail})`).join('; ')}`}.`,
    `- Profile \`${profile.name}\`: sizes ${profile.sizes.join(', ')}; Powertools at ${profile.powertoolsSize}; ${profile.singleEnqueueTasks} single enqueues; ${profile.retryTasks} retried tasks; ${profile.coldInitProcesses} cold starts per bundle; ${profile.reps} repetitions of each.`,
    '',
    "Reproduce with `npm run bench` (writes this file; `-- --profile full` for the issue's sizes, `-- --profile quick` for a smoke run into `.tasklane/`). Raw results are in `docs/benchmarks/results.json`.",
  ].join('\n');
}
