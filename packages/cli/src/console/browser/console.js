// @ts-check
/**
 * The console's one script, served by the console itself (`/assets/console.js`) under a
 * Content-Security-Policy of `script-src 'self'`: no inline script, no other origin.
 *
 * - Times: every `<time datetime>` is shown in the browser's time zone with how long ago (or
 *   from now) it is; the header's button switches the page to UTC and back (remembered).
 * - Live updates: a page whose body has `data-live` opens `/live?page=<its address>` (server-
 *   sent events). Each `region` event carries a region's new HTML, rendered and escaped by
 *   the server's own templates; a region that holds a selection only says it changed.
 * - Charts: a `charts` event carries the last hour by minute; uPlot (served beside this
 *   script) draws it.
 *
 * Without this script every page still works: times read in UTC and a reload refreshes.
 */

const TIME_MODE_KEY = 'tasklane-console-times';
const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** @returns {'local' | 'utc'} */
function timeMode() {
  try {
    return localStorage.getItem(TIME_MODE_KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
}

/** @param {'local' | 'utc'} mode */
function setTimeMode(mode) {
  try {
    localStorage.setItem(TIME_MODE_KEY, mode);
  } catch {
    // Storage refused (a private window): the choice lasts until the page is left.
  }
  document.documentElement.dataset.times = mode;
  renderTimes(document);
  redrawCharts();
  showTimeMode();
}

/** @param {string} zone */
function wallClock(zone) {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
}

const localClock = wallClock(localZone);
const utcClock = wallClock('UTC');
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/**
 * "3 minutes ago", "in 2 hours": the largest unit that fits.
 * @param {number} ms the instant
 */
function fromNow(ms) {
  const delta = (ms - Date.now()) / 1000;
  const abs = Math.abs(delta);
  /** @type {[number, Intl.RelativeTimeFormatUnit][]} */
  const units = [
    [60, 'second'],
    [3600, 'minute'],
    [86400, 'hour'],
    [86400 * 30, 'day'],
    [86400 * 365, 'month'],
  ];
  let divisor = 1;
  for (const [limit, unit] of units) {
    if (abs < limit) return relative.format(Math.round(delta / divisor), unit);
    divisor = limit;
  }
  return relative.format(Math.round(delta / (86400 * 365)), 'year');
}

/** @param {ParentNode} root */
function renderTimes(root) {
  const mode = timeMode();
  for (const el of root.querySelectorAll('time[datetime]')) {
    const ms = Date.parse(el.getAttribute('datetime') ?? '');
    if (Number.isNaN(ms)) continue;
    const at = new Date(ms);
    const utc = `${utcClock.format(at)} UTC`;
    const local = `${localClock.format(at)} ${localZone}`;
    el.textContent = `${mode === 'utc' ? utc : localClock.format(at)} (${fromNow(ms)})`;
    el.setAttribute('title', mode === 'utc' ? local : utc);
  }
}

function showTimeMode() {
  const button = document.getElementById('time-zone');
  if (button === null) return;
  const utc = timeMode() === 'utc';
  button.hidden = false;
  button.textContent = utc ? 'Times in UTC' : `Times in ${localZone}`;
  button.setAttribute('aria-pressed', String(utc));
  button.setAttribute('title', utc ? 'Show local times' : 'Show times in UTC');
}

// ---- Live updates -----------------------------------------------------------------------

/** @param {string} text @param {'ok' | 'problem'} kind */
function liveState(text, kind) {
  const el = document.getElementById('live-state');
  if (el === null) return;
  el.hidden = false;
  el.textContent = text;
  el.dataset.state = kind;
}

/**
 * A region whose content changed: swapped, or (holding a selection) flagged.
 * @param {{ id: string, html: string, digest: string }} update
 */
function applyRegion(update) {
  const target = document.querySelector(`[data-region="${CSS.escape(update.id)}"]`);
  if (!(target instanceof HTMLElement)) return;
  if (target.dataset.regionMode === 'notify') {
    if (target.previousElementSibling?.classList.contains('stale')) return;
    const notice = document.createElement('p');
    notice.className = 'notice stale';
    notice.setAttribute('role', 'status');
    notice.append('This list has changed since the page was loaded. ');
    const reload = document.createElement('a');
    reload.href = location.pathname + location.search;
    reload.textContent = 'Reload it';
    notice.append(reload);
    target.before(notice);
    return;
  }
  // The server rendered and escaped this HTML with the page's own templates.
  target.innerHTML = update.html;
  target.dataset.digest = update.digest;
  renderTimes(target);
}

function openLive() {
  if (!document.body.hasAttribute('data-live') || typeof EventSource !== 'function') return;
  const page = location.pathname + location.search;
  // What the page shows now: the channel sends a region only once it differs.
  const shown = [...document.querySelectorAll('[data-region]')]
    .map((el) => `${el.getAttribute('data-region')}:${el.getAttribute('data-digest')}`)
    .join(',');
  const source = new EventSource(
    `/live?page=${encodeURIComponent(page)}&shown=${encodeURIComponent(shown)}`,
  );
  source.addEventListener('open', () => liveState('Live', 'ok'));
  source.addEventListener('region', (event) => {
    applyRegion(JSON.parse(/** @type {MessageEvent<string>} */ (event).data));
    liveState(`Live · updated ${localClock.format(new Date()).slice(11)}`, 'ok');
  });
  source.addEventListener('charts', (event) => {
    drawCharts(JSON.parse(/** @type {MessageEvent<string>} */ (event).data));
  });
  source.addEventListener('problem', (event) => {
    liveState(
      `Live: ${JSON.parse(/** @type {MessageEvent<string>} */ (event).data).message}`,
      'problem',
    );
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      liveState(
        'Live updates stopped (the console restarted or signed you out): reload the page',
        'problem',
      );
    } else {
      liveState('Live: reconnecting…', 'problem');
    }
  });
}

// ---- Charts -----------------------------------------------------------------------------

/**
 * @typedef {{ source: string, times: number[], stepMs: number, notes: string[],
 *   series: Record<string, (number | null)[]> }} ChartData
 */

/** @type {ChartData | undefined} */
let lastCharts;
/** @type {Map<string, { destroy(): void }>} */
const drawn = new Map();

const CHARTS = {
  throughput: {
    unit: 'tasks/min',
    series: [
      ['started', 'Started', '#0b57d0'],
      ['succeeded', 'Succeeded', '#1e8e3e'],
    ],
  },
  failures: {
    unit: 'tasks/min',
    series: [
      ['failed', 'Failed attempts', '#e37400'],
      ['dead', 'DEAD', '#b3261e'],
    ],
  },
  latency: {
    unit: 'ms',
    series: [
      ['waitP50', 'Enqueue→start p50', '#7baaf7'],
      ['waitP95', 'Enqueue→start p95', '#0b57d0'],
      ['runP50', 'Start→end p50', '#81c995'],
      ['runP95', 'Start→end p95', '#1e8e3e'],
    ],
  },
  depth: { unit: 'tasks', series: [['depth', 'Waiting to start', '#5e35b1']] },
};

/** @param {ChartData} data */
function drawCharts(data) {
  lastCharts = data;
  const lib = /** @type {any} */ (window).uPlot;
  if (typeof lib !== 'function') return;
  const utc = timeMode() === 'utc';
  const xs = data.times.map((t) => t / 1000);
  for (const el of document.querySelectorAll('[data-chart]')) {
    if (!(el instanceof HTMLElement)) continue;
    const name = /** @type {keyof typeof CHARTS} */ (el.dataset.chart);
    const spec = CHARTS[name];
    if (spec === undefined) continue;
    drawn.get(name)?.destroy();
    el.replaceChildren();
    const options = {
      width: Math.max(280, el.clientWidth),
      height: 180,
      ...(utc
        ? { tzDate: (/** @type {number} */ ts) => lib.tzDate(new Date(ts * 1000), 'Etc/UTC') }
        : {}),
      scales: { x: { time: true } },
      axes: [{}, { label: spec.unit, size: 60 }],
      series: [
        { label: utc ? 'Time (UTC)' : 'Time' },
        ...spec.series.map(([, label, stroke]) => ({
          label,
          stroke,
          width: 2,
          spanGaps: false,
          // A minute alone between gaps has no line to draw: its point shows it.
          points: { show: true, size: 5 },
        })),
      ],
    };
    const values = spec.series.map(([key]) => data.series[key] ?? xs.map(() => null));
    drawn.set(name, new lib(options, [xs, ...values], el));
    el.dataset.drawn = String(data.times.length);
  }
  const notes = document.getElementById('chart-notes');
  if (notes !== null) {
    notes.textContent = [
      `Source: ${data.source === 'cloudwatch' ? 'CloudWatch metrics' : 'the task records'}.`,
      ...data.notes,
    ].join(' ');
  }
}

function redrawCharts() {
  if (lastCharts !== undefined) drawCharts(lastCharts);
}

// ---- Start ------------------------------------------------------------------------------

document.documentElement.dataset.times = timeMode();
renderTimes(document);
showTimeMode();
document.getElementById('time-zone')?.addEventListener('click', () => {
  setTimeMode(timeMode() === 'utc' ? 'local' : 'utc');
});
// Relative times age: refresh them twice a minute.
setInterval(() => renderTimes(document), 30_000);
let resized = 0;
addEventListener('resize', () => {
  clearTimeout(resized);
  resized = window.setTimeout(redrawCharts, 200);
});
openLive();
