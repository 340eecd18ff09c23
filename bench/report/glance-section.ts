/** The one-minute summary at the top of the report: checks, targets, cost, speed, package. */
import { costPerMillion } from '../lib/cost.js';
import { coldStart, type TaskCost } from './analysis.js';
import { costRatio } from './cost-section.js';
import { kb, num, usd } from './markdown.js';
import type { BenchResults } from './results.js';
import { requests } from './tallies.js';
import type { Headline, Target } from './targets.js';
import { templateFile } from './template.js';

const glanceTemplate = templateFile('glance.md');

const times = (x: number) => `${num(x)}×`;

function costOf(cost: TaskCost): number {
  return costPerMillion({ tally: cost.median.tally, lambdaInvocations: cost.median.invocations })
    .total;
}

function names(targets: readonly Target[]): string {
  return targets.length === 0
    ? 'none'
    : targets.map((t) => glanceTemplate(`label-${t.id}`)).join(', ');
}

function costLine(h: Headline): string {
  const r = h.realistic;
  const powertoolsRequests = num(requests(h.powertools.median.tally));
  if (r === undefined) {
    return glanceTemplate('cost-noop', {
      tasklaneCost: usd(costOf(h.tasklane)),
      powertoolsCost: usd(costOf(h.powertools)),
      costRatio: times(costRatio(h.tasklane, h.powertools).median),
      tasklaneRequests: num(requests(h.tasklane.median.tally)),
      powertoolsRequests,
    });
  }
  return glanceTemplate('cost-realistic', {
    tasklaneCost: usd(r.successful.cost),
    powertoolsCost: usd(r.powertoolsCost),
    costRatio: times(r.costRatio),
    tasklaneRequests: num(r.successful.requests),
    writeUnits: num(r.successful.writeUnits),
    powertoolsRequests,
  });
}

/** One issue's line: how many of its targets were met, and which were missed. */
function targetsLine(issue: number, targets: readonly Target[]): string {
  return glanceTemplate('targets', {
    issue,
    metCount: targets.filter((t) => t.met === true).length,
    targetCount: targets.length,
    metNames: names(targets.filter((t) => t.met === true)),
    missedNames: names(targets.filter((t) => t.met === false)),
    unmeasured: targets.some((t) => t.met === undefined)
      ? glanceTemplate('unmeasured', { names: names(targets.filter((t) => t.met === undefined)) })
      : '',
  }).trimEnd();
}

/** The section's Markdown: `targets` by issue number. */
export function glanceSection(
  results: BenchResults,
  h: Headline,
  targets: ReadonlyMap<number, readonly Target[]>,
): string {
  const failed = results.checks.filter((c) => !c.ok).length;
  const count = results.checks.length;
  return glanceTemplate('section', {
    date: results.date.slice(0, 10),
    profile: results.profile.name,
    checks:
      failed === 0
        ? glanceTemplate('checks-passed', { count })
        : glanceTemplate('checks-failed', { failed, count }),
    targets: [...targets].map(([issue, list]) => targetsLine(issue, list)).join('\n'),
    cost: costLine(h),
    largest: h.largest,
    overhead: times(h.overhead.median),
    shaped:
      h.slowEndToEnd === undefined
        ? glanceTemplate('shaped-missing')
        : glanceTemplate('shaped', { slow: times(h.slowEndToEnd.median) }),
    bundle: kb(results.pkg.bundles.worker.bytes),
    coldInit: times(coldStart(results, (c) => c.totalMs).ratio.median),
  });
}
