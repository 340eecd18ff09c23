/**
 * The Targets section: issue 14's table, then issue 29's own, each followed by why each target
 * came out as it did.
 */
import { pairedRatio, summarize } from '../lib/stats.js';
import { coldStart, enqueueAt, msPerRequest, runsOf, singleEnqueue } from './analysis.js';
import { judgeIssue29Targets, RATE_TARGETS, ratesOf } from './issue29-targets.js';
import { kb, med, num, ratio, table, usd } from './markdown.js';
import type { TaskFigures } from './measured-figures.js';
import { limitLabel } from './rate-section.js';
import type { BenchResults } from './results.js';
import { requests } from './tallies.js';
import { type Headline, judgeTargets, type RealisticHeadline, type Target } from './targets.js';
import { templateFile } from './template.js';

const targetsTemplate = templateFile('targets.md');

/** "✅ met", "❌ missed" or "not measured". */
export function status(target: Target): string {
  if (target.met === undefined) return '— not measured';
  return target.met ? '✅ met' : '❌ missed';
}

/** `DynamoDB.PutItem` 1.00, `DynamoDB.UpdateItem` 2.00, … of a per-task figure. */
export function operations(
  figures: TaskFigures,
  pick: (t: TaskFigures['tally'][string]) => number,
): string {
  const parts = Object.entries(figures.tally)
    .filter(([, t]) => pick(t) > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, t]) => `\`${key}\` ${num(pick(t))}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** Realistic-scenario reasons; `undefined` when the run did not measure it. */
function realisticWhy(r: RealisticHeadline, results: BenchResults): Record<string, () => string> {
  const s = r.successful;
  const load = r.ceiling.load;
  return {
    requests: () =>
      targetsTemplate('requests', {
        requests: num(s.requests),
        operations: operations(s, (t) => t.requests),
      }),
    writeUnits: () =>
      targetsTemplate('writeUnits', {
        table: num(s.tableWriteUnits),
        index: num(s.indexWriteUnits),
        tableByWrite: operations(s, (t) => t.writeUnits),
        indexByWrite: operations(s, (t) => t.indexWriteUnits),
      }),
    readUnits: () => targetsTemplate('readUnits', { reads: operations(s, (t) => t.readUnits) }),
    costSuccessful: () =>
      targetsTemplate('cost', {
        tasklane: usd(s.cost),
        powertools: usd(r.powertoolsCost),
        writeUnits: num(s.writeUnits),
        requests: num(s.requests),
        powertoolsSize: results.throughput.powertoolsSize,
      }),
    costRetried: () =>
      targetsTemplate('costRetried', {
        tasklane: usd(r.retried.cost),
        powertools: usd(r.powertoolsRetriedCost),
        writeUnits: num(r.retried.writeUnits),
        requests: num(r.retried.requests),
      }),
    ceiling: () =>
      load === undefined
        ? targetsTemplate('ceiling-unbounded')
        : targetsTemplate('ceiling', {
            status: load.status,
            writes: num(load.writesPerTask),
            units: num(load.unitsPerWrite),
            defaultShards: r.ceiling.defaultShards,
            atDefault: Math.round(r.ceiling.atDefault).toLocaleString('en-US'),
            atTarget: Math.round(r.ceiling.atTarget).toLocaleString('en-US'),
          }),
    retryUnits: () =>
      targetsTemplate('retryUnits', {
        retried: num(r.retried.writeUnits),
        successful: num(s.writeUnits),
        retriedIndex: num(r.retried.indexWriteUnits),
        successfulIndex: num(s.indexWriteUnits),
      }),
    meter: () =>
      targetsTemplate('meter', {
        counted: r.meter.counted,
        metered: r.meter.metered,
        tasks: results.realistic?.tasks ?? 0,
        meteredUnits: num(results.realistic?.successful.metered.workerWriteUnits ?? 0, 0),
      }),
  };
}

function speedWhy(results: BenchResults, h: Headline): Record<string, () => string> {
  const a = results.awsShaped;
  const shaped = (pick: (x: NonNullable<typeof a>) => { tasklane: number[]; raw: number[] }) =>
    a === undefined
      ? targetsTemplate('aws-shaped-missing')
      : targetsTemplate('aws-shaped-ratio', {
          ratio: ratio(pairedRatio(pick(a).tasklane, pick(a).raw)),
        });
  const perTask = (system: 'tasklane' | 'raw', n: number) =>
    runsOf(results, system, n).map((r) => requests(r.enqueue.tally) / n);
  const single = results.single;
  const largestRuns = runsOf(results, 'tasklane', h.largest);
  const consumerDynamodb =
    largestRuns.map((r) => requests(r.consumer.tally, 'DynamoDB') / h.largest).sort()[
      Math.floor(largestRuns.length / 2)
    ] ?? 0;
  const imported = coldStart(results, (c) => c.importMs);
  const handled = coldStart(results, (c) => c.handleMs);
  const { benchWorker, powertools } = results.pkg.bundles;
  const zod = benchWorker.contributors.find((c) => c.name === 'zod')?.bytes ?? 0;
  return {
    enqueueBatch: () =>
      targetsTemplate('enqueueBatch', {
        tasklaneRequests: num(perTask('tasklane', h.enqueueSize)[0] ?? 0),
        rawRequests: num(perTask('raw', h.enqueueSize)[0] ?? 0),
        time: ratio(enqueueAt(results, h.enqueueSize).ratio),
        shaped: shaped((x) => x.batch),
      }),
    singleEnqueue: () =>
      targetsTemplate('singleEnqueue', {
        requests: num(requests(single.tasklane[0]?.tally ?? {}) / single.tasks),
        ms: med(singleEnqueue(results).tasklane, 1),
        rawMs: med(singleEnqueue(results).baseline, 1),
        shaped: shaped((x) => x.single),
      }),
    endToEnd: () =>
      targetsTemplate('endToEnd', {
        consumerDynamodb: num(consumerDynamodb),
        tasklaneMsPerRequest: med(msPerRequest(largestRuns), 1),
        rawMsPerRequest: med(msPerRequest(runsOf(results, 'raw', h.largest)), 1),
      }),
    coldInit: () =>
      targetsTemplate('coldInit', {
        importTasklane: med(imported.tasklane, 0),
        importBaseline: med(imported.baseline, 0),
        extraBytes: kb(benchWorker.bytes - powertools.bytes),
        zod: kb(zod),
        handleTasklane: med(handled.tasklane, 0),
        handleBaseline: med(handled.baseline, 0),
      }),
    endToEndSlow: () =>
      a === undefined
        ? targetsTemplate('not-measured')
        : targetsTemplate('endToEndSlow', {
            tasks: a.endToEndTasks,
            handlerMs: a.handlerMs,
            tasklane: med(summarize(a.endToEnd.tasklane), 0),
            raw: med(summarize(a.endToEnd.raw), 0),
          }),
  };
}

/** Issue 29's bundle and rate targets: from section 8's bundle and section 10's runs. */
function issue29Why(results: BenchResults): Record<string, () => string> {
  const { worker } = results.pkg.bundles;
  const rates = RATE_TARGETS.map((target): [string, () => string] => [
    target.id,
    () =>
      targetsTemplate('rate', {
        runs: ratesOf(results, target)
          .map(
            ({ run, granted }) =>
              `${run.workers} worker${run.workers === 1 ? '' : 's'}: ${granted.perInterval.join(', ')}`,
          )
          .join('; '),
        limit: limitLabel(target),
      }),
  ]);
  return {
    bundle: () =>
      targetsTemplate('bundle', {
        gzip: kb(worker.gzipBytes),
        largest: worker.contributors
          .slice(0, 4)
          .map((c) => `\`${c.name}\` ${kb(c.bytes)}`)
          .join(', '),
      }),
    ...Object.fromEntries(rates),
  };
}

function neededShards(h: Headline): number {
  const load = h.realistic?.ceiling.load;
  return load === undefined
    ? 0
    : Math.ceil((13_000 * load.writesPerTask * load.unitsPerWrite) / 1000);
}

/** An issue's table: Figure | Today | Target | Measured | Status. */
export function targetsTable(targets: readonly Target[], issue = 14): string {
  return table(
    ['Figure', `Today (issue ${issue})`, 'Target', 'Measured', 'Status'],
    targets.map((t) => [t.name, t.today, t.threshold, t.value ?? '—', status(t)]),
  );
}

/** The section: each issue's table, then each target's reason and, when missed, what it would take. */
export function targetsSection(results: BenchResults, h: Headline): string {
  const why: Record<string, () => string> = {
    ...speedWhy(results, h),
    ...issue29Why(results),
    ...(h.realistic === undefined ? {} : realisticWhy(h.realistic, results)),
  };
  const items = (targets: readonly Target[]) =>
    targets
      .map((target) => {
        const reason =
          target.met === undefined ? targetsTemplate('not-measured') : (why[target.id]?.() ?? '');
        const values = target.id === 'ceiling' ? { neededShards: neededShards(h) } : {};
        const take =
          target.met === false ? ` ${targetsTemplate(`${target.id}-missed`, values)}` : '';
        return targetsTemplate('item', {
          name: target.name,
          value: target.value ?? '—',
          threshold: target.threshold,
          outcome: target.met === undefined ? 'not measured' : target.met ? 'met' : 'missed',
          why: `${reason}${take}`,
        });
      })
      .join('\n');
  const issue14 = judgeTargets(results, h);
  const issue29 = judgeIssue29Targets(results, h);
  return targetsTemplate('section', {
    table: targetsTable(issue14),
    items: items(issue14),
    table29: targetsTable(issue29, 29),
    items29: items(issue29),
  });
}
