/**
 * The overview's charts of the last hour: a frame per chart that the console's script fills
 * with uPlot, and a table of the hour's figures that reads without the script.
 */
import { html } from 'hono/html';
import { type ChartData, total } from '../charts/chart-data.js';
import { duration, type Html, region } from './layout.js';

/** The charts, by `data-chart` name, with what each shows. */
const CHARTS = [
  {
    name: 'throughput',
    title: 'Throughput',
    describes: 'attempts started and tasks succeeded per minute',
  },
  {
    name: 'failures',
    title: 'Failures',
    describes: 'failed attempts and tasks declared DEAD per minute',
  },
  {
    name: 'latency',
    title: 'Latency',
    describes: 'median and 95th percentile from enqueue to start and from start to end, in ms',
  },
  { name: 'depth', title: 'Queue depth', describes: 'tasks waiting to start' },
] as const;

/** The charts section; `data` is the hour as read when the page was made, if it could be. */
export function chartsSection(data: ChartData | undefined, problem: string | undefined): Html {
  return html`<section aria-labelledby="last-hour">
<h2 id="last-hour">The last hour</h2>
<div class="charts">${CHARTS.map(
    (c) => html`<figure class="chart">
<figcaption>${c.title} <span class="muted">(${c.describes})</span></figcaption>
<div data-chart="${c.name}" role="img" aria-label="${c.title}: ${c.describes}, by minute over the last hour"></div>
</figure>`,
  )}</div>
<p id="chart-notes" class="muted">${data === undefined ? '' : `Source: ${sourceName(data)}.`}</p>
${region('chart-summary', chartSummary(data, problem))}
</section>`;
}

function sourceName(data: ChartData): string {
  return data.source === 'cloudwatch' ? 'CloudWatch metrics' : 'the task records';
}

/** The hour's figures as a table: the charts' text equivalent. */
export function chartSummary(data: ChartData | undefined, problem: string | undefined): Html {
  if (data === undefined) {
    return html`<p class="muted">The charts could not be read${problem === undefined ? '' : `: ${problem}`}.</p>`;
  }
  const { series } = data;
  const worst = (values: readonly (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length === 0 ? '–' : duration(Math.max(...known));
  };
  const lastDepth = [...series.depth].reverse().find((v) => v !== null);
  return html`<table class="summary">
<caption class="muted">The last hour from ${sourceName(data)}${data.notes.length === 0 ? '' : html`; ${data.notes.join('; ')}`}</caption>
<thead><tr><th scope="col" class="num">Started</th><th scope="col" class="num">Succeeded</th><th scope="col" class="num">Failed attempts</th><th scope="col" class="num">DEAD</th><th scope="col" class="num">Worst minute p95, enqueue→start</th><th scope="col" class="num">Worst minute p95, start→end</th><th scope="col" class="num">Waiting now</th></tr></thead>
<tbody><tr><td class="num">${total(series.started)}</td><td class="num">${total(series.succeeded)}</td><td class="num">${total(series.failed)}</td><td class="num">${total(series.dead)}</td><td class="num">${worst(series.waitP95)}</td><td class="num">${worst(series.runP95)}</td><td class="num">${lastDepth ?? '–'}</td></tr></tbody>
</table>`;
}
